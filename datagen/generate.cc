// Generate: building a dataset's backends into its directory, resumable,
// refusing what is not ours, leaving nothing partial behind.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "common/files.h"
#include "datagen/dataset_dir.h"
#include "datagen/dataset_files.h"
#include "datagen/needs.h"
#include "datagen/progress.h"
#include "dataset/estimate.h"
#include "dataset/names.h"

namespace flatbench::datagen {
namespace fs = std::filesystem;

namespace {

// Removes the dataset's own files; leaves anything else alone.
Status RemoveDataset(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!IsDatasetFile(e.path().filename().string())) continue;
    fs::remove_all(e.path(), ec);
    if (ec) return Status::IOError(e.path().string() + ": " + ec.message());
  }
  if (ec) return Status::IOError(dir + ": " + ec.message());
  return Status::Ok();
}

// Removes what an earlier, killed gen left behind: unfinished backend
// folders and half-written marker or identity files. Only our own names.
Status RemoveStaleLeftovers(const Dataset& ds) {
  for (std::string_view store : dataset::kStores) {
    const std::string backend(store);
    FLATBENCH_ASSIGN_OR_RETURN(
        bool removed,
        RemovePartialBackend(ds.BackendDir(backend), ds.MarkerPath(backend)));
    if (removed) {
      std::fprintf(stderr, "gen: removed %s, left by an interrupted build\n",
                   ds.BackendDir(backend).c_str());
    }
    std::error_code ec;
    fs::remove(ds.MarkerPath(backend) + ".tmp", ec);
  }
  std::error_code ec;
  fs::remove(ds.dir() + "/" + kIdentityFile + ".tmp", ec);
  return Status::Ok();
}

// Passes pairs on to the real loader until `stop` becomes non-zero (a
// signal) or `cancel` true (another backend's build failed).
class StoppableSink final : public BulkLoader {
 public:
  StoppableSink(BulkLoader* inner, const volatile std::sig_atomic_t* stop,
                const std::atomic<bool>* cancel)
      : inner_(inner), stop_(stop), cancel_(cancel) {}
  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    FLATBENCH_RETURN_IF_ERROR(Check());
    return inner_->Add(table, key, value);
  }
  Status Finish() override { return inner_->Finish(); }
  bool TakesBuckets() const override { return inner_->TakesBuckets(); }
  Result<std::unique_ptr<LoadPart>> Prepare(Table table,
                                            const PairRun& run) override {
    return inner_->Prepare(table, run);
  }
  Status Commit(std::unique_ptr<LoadPart> part) override {
    FLATBENCH_RETURN_IF_ERROR(Check());
    return inner_->Commit(std::move(part));
  }

 private:
  Status Check() const {
    if (stop_ != nullptr && *stop_ != 0) return Status::IOError("interrupted");
    if (cancel_->load(std::memory_order_relaxed)) {
      return Status::IOError("stopped: another backend's build failed");
    }
    return Status::Ok();
  }

  BulkLoader* inner_;
  const volatile std::sig_atomic_t* stop_;
  const std::atomic<bool>* cancel_;
};

// What the builds running at once share.
struct SharedState {
  SharedState(Dataset d, GroupProgress* p) : ds(std::move(d)), progress(p) {}
  std::mutex mu;  // Guards `ds` and the identity and marker files.
  Dataset ds;
  std::atomic<bool> cancel{false};
  GroupProgress* progress = nullptr;
  unsigned builds_at_once = 1;  // For the markers' GenRecord.
};

std::string RebuildHint(const GenOptions& o) {
  std::string cmd = "flatbench gen --dir " + o.dir + " --scale " + o.spec.scale;
  if (o.spec.scale == "custom") {
    cmd += " --accounts " + std::to_string(o.spec.accounts) +
           " --slots-per-account " + std::to_string(o.spec.slots_per_account);
  }
  if (o.spec.seed != dataset::kDefaultSeed)
    cmd += " --seed " + std::to_string(o.spec.seed);
  return cmd + " --rebuild";
}

// Checks the target directory: creates it, accepts our own matching
// dataset, and refuses anything else unless rebuild is set.
Status PrepareDirectory(const GenOptions& o) {
  std::error_code ec;
  bool exists = false, is_dir = false;
  FLATBENCH_RETURN_IF_ERROR(StatDir(o.dir, &exists, &is_dir));
  if (!exists) {
    fs::create_directories(o.dir, ec);
    if (ec) return Status::IOError(o.dir + ": cannot create: " + ec.message());
    return WriteIdentity(o.dir, o.spec, "");
  }
  if (!is_dir) {
    return Status::RefuseOverwrite(o.dir + ": exists and is not a directory");
  }
  FLATBENCH_RETURN_IF_ERROR(CheckReadable(o.dir));
  Result<Dataset> existing = Dataset::Open(o.dir);
  if (!existing.ok()) {
    bool empty = fs::is_empty(o.dir, ec);
    if (existing.status().code() == Code::kMissingInput && empty) {
      return WriteIdentity(o.dir, o.spec, "");
    }
    if (existing.status().code() == Code::kMissingInput) {
      return Status::RefuseOverwrite(
          o.dir + ": not empty and holds no flatbench dataset (no " +
          kIdentityFile + "); choose an empty or new --dir");
    }
    if (!o.rebuild) {
      return Status::RefuseOverwrite(existing.status().message() +
                                     "; to replace it run: " + RebuildHint(o));
    }
  } else if (existing->spec() == o.spec && !o.rebuild) {
    return Status::Ok();
  } else if (!o.rebuild) {
    return Status::RefuseOverwrite(
        o.dir + " holds dataset " + DescribeSpec(existing->spec()) + ", " +
        HumanBytes(DiskBytes(o.dir)) + ", not the requested " +
        DescribeSpec(o.spec) + "; to replace it run: " + RebuildHint(o));
  }
  std::fprintf(stderr, "gen: --rebuild: removing the dataset in %s (%s)\n",
               o.dir.c_str(), HumanBytes(DiskBytes(o.dir)).c_str());
  FLATBENCH_RETURN_IF_ERROR(RemoveDataset(o.dir));
  return WriteIdentity(o.dir, o.spec, "");
}

Result<BackendBuild> BuildOne(const GenOptions& o, SharedState* shared,
                              const std::string& backend,
                              const LoaderFactory& factory) {
  std::string bdir;
  {
    std::lock_guard lock(shared->mu);
    bdir = shared->ds.BackendDir(backend);
  }
  std::error_code ec;
  if (fs::exists(bdir, ec)) {
    std::fprintf(stderr, "gen %s: removing %s left by an interrupted build\n",
                 backend.c_str(), bdir.c_str());
    fs::remove_all(bdir, ec);
    if (ec) return Status::IOError(bdir + ": " + ec.message());
  }
  fs::create_directories(bdir, ec);
  if (ec) return Status::IOError(bdir + ": cannot create: " + ec.message());

  const unsigned jobs = std::max(1u, o.jobs);
  auto start = std::chrono::steady_clock::now();
  const GenRecord how = GenRecordNow(jobs, shared->builds_at_once);
  FLATBENCH_ASSIGN_OR_RETURN(std::unique_ptr<BulkLoader> loader,
                             factory(backend, bdir, o.spec, jobs));
  // Steps: one per account to bucket it, then one per pair loaded.
  const uint64_t steps = 2 * o.spec.accounts + o.spec.storage_slots();
  uint64_t done_steps = 0;
  StoppableSink sink(loader.get(), o.stop, &shared->cancel);
  Result<StreamDigest> digest = GenerateSorted(
      o.spec, &sink,
      [&](uint64_t done, uint64_t total) {
        done_steps = done;
        shared->progress->Update(backend, done, total);
      },
      jobs);
  if (!digest.ok()) {
    shared->progress->Finish(backend, done_steps);
    return digest.status().WithContext("gen " + backend);
  }
  Status finished = loader->Finish().WithContext("gen " + backend);
  loader.reset();
  shared->progress->Finish(backend, steps);
  FLATBENCH_RETURN_IF_ERROR(finished);

  BackendBuild b;
  b.backend = backend;
  b.fingerprint = FingerprintHex(digest->fingerprint);
  b.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  b.disk_bytes = DiskBytes(bdir);
  b.pairs[0] = digest->pairs[0];
  b.pairs[1] = digest->pairs[1];
  b.gen = how;
  if (o.spec.stream.blocks > 0) {
    b.shape = "{\"kind\":\"fresh\",\"blocks\":" +
              std::to_string(o.spec.stream.blocks) + "}";
  }
  if (o.progress) {
    std::fprintf(stderr, "gen %s: done, %llu pairs in %.1fs\n", backend.c_str(),
                 static_cast<unsigned long long>(b.pairs[0] + b.pairs[1]),
                 b.build_seconds);
  }
  std::lock_guard lock(shared->mu);
  Dataset& ds = shared->ds;
  if (!ds.fingerprint().empty() && ds.fingerprint() != b.fingerprint) {
    return Status::Corruption("gen " + backend + ": stream fingerprint " +
                              b.fingerprint + " differs from the dataset's " +
                              ds.fingerprint() +
                              " (non-deterministic generator?)");
  }
  if (ds.fingerprint().empty()) {
    FLATBENCH_RETURN_IF_ERROR(WriteIdentity(o.dir, o.spec, b.fingerprint));
  }
  FLATBENCH_RETURN_IF_ERROR(WriteMarker(ds, b));
  FLATBENCH_ASSIGN_OR_RETURN(ds, Dataset::Open(o.dir));
  return b;
}

// A failed or interrupted build leaves no partial backend behind.
Status FailBuild(const Dataset& ds, const std::string& backend,
                 const Status& error) {
  Result<bool> removed =
      RemovePartialBackend(ds.BackendDir(backend), ds.MarkerPath(backend));
  if (!removed.ok()) {
    return error.WithContext("gen " + backend + " (and " +
                             removed.status().message() + ")");
  }
  if (removed.value()) {
    std::fprintf(stderr, "gen %s: removed the partial %s\n", backend.c_str(),
                 ds.BackendDir(backend).c_str());
  }
  return error;
}

// The backends still to build, by index into o.backends; those already
// complete go into `builds`. A store half-way through an age is refused.
Result<std::vector<size_t>> PendingBuilds(
    const GenOptions& o, const Dataset& ds,
    std::vector<std::optional<BackendBuild>>* builds) {
  std::vector<size_t> pending;
  for (size_t i = 0; i < o.backends.size(); ++i) {
    Result<BackendBuild> done = ds.Build(o.backends[i]);
    if (done.ok()) {
      std::fprintf(stderr, "gen %s: already complete, skipping\n",
                   o.backends[i].c_str());
      (*builds)[i] = done.value();
      continue;
    }
    if (done.status().code() != Code::kMissingInput) return done.status();
    std::error_code ec;
    const std::string aging =
        o.dir + "/" + dataset::StoreOf(o.backends[i]) + ".aging";
    if (fs::exists(aging, ec)) {
      // Its folder holds a store half-way through the stream: gen's
      // rebuild would replace the aged shape with a fresh one.
      return Status::RefuseOverwrite(done.status().message() +
                                     "; or rebuild it with --rebuild");
    }
    pending.push_back(i);
  }
  // The builds that use extra cores least start first: one-writer engines,
  // then by dataset::ParallelShare (from the measured rates). So the build
  // left running alone at the end is one that uses every core.
  auto serial_first = [&](size_t a, size_t b) {
    const dataset::StoreFigures& fa = dataset::FiguresOf(o.backends[a]);
    const dataset::StoreFigures& fb = dataset::FiguresOf(o.backends[b]);
    if (fa.one_writer != fb.one_writer) return fa.one_writer;
    return dataset::ParallelShare(fa) < dataset::ParallelShare(fb);
  };
  std::stable_sort(pending.begin(), pending.end(), serial_first);
  return pending;
}

// As many backends at once as --jobs and the memory allow; each build
// uses every job (a build that ends frees its cores to the others).
// Refused (73) when the disk or memory is not there.
Result<RunNeeds> GenNeeds(const GenOptions& o, size_t pending) {
  const unsigned jobs = std::max(1u, o.jobs);
  RunNeeds needs;
  needs.jobs = jobs;
  needs.free_ram = MemAvailableBytes();
  needs.concurrent = ConcurrentBuilds(o.spec, jobs, pending, needs.free_ram);
  needs.ram = needs.concurrent * dataset::EstimateGeneratorBytes(o.spec, jobs) +
              (1ULL << 30);
  if (pending > 0) {
    FLATBENCH_RETURN_IF_ERROR(CheckRunNeeds(needs, o.spec, o.dir));
  }
  return needs;
}

// The pending builds, `concurrent` at a time; the first failure stops the
// others, and each removes its partial folder.
Status BuildPending(const GenOptions& o, const LoaderFactory& factory,
                    Dataset ds, const std::vector<size_t>& pending,
                    unsigned concurrent,
                    std::vector<std::optional<BackendBuild>>* builds) {
  const uint64_t steps = 2 * o.spec.accounts + o.spec.storage_slots();
  GroupProgress progress("gen", "steps", steps * pending.size(), o.progress);
  SharedState shared(std::move(ds), &progress);
  shared.builds_at_once = std::max(1u, concurrent);
  std::atomic<size_t> next{0};
  std::mutex error_mu;
  std::optional<Status> first_error;
  auto record_error = [&](const Status& st) {
    std::lock_guard g(error_mu);
    if (!first_error) first_error = st;
    shared.cancel.store(true);
  };
  auto worker = [&] {
    for (size_t k = next++; k < pending.size(); k = next++) {
      const std::string& backend = o.backends[pending[k]];
      if (shared.cancel.load()) return;
      if (o.stop != nullptr && *o.stop != 0) {
        record_error(Status::IOError("gen: interrupted before " + backend));
        return;
      }
      Result<BackendBuild> built = BuildOne(o, &shared, backend, factory);
      if (!built.ok()) {
        // The first failure is the one reported; the builds it stopped
        // remove their partial folders as well.
        Dataset paths = [&] {
          std::lock_guard g(shared.mu);
          return shared.ds;
        }();
        record_error(FailBuild(paths, backend, built.status()));
        return;
      }
      std::lock_guard g(shared.mu);
      (*builds)[pending[k]] = built.value();
    }
  };
  if (concurrent <= 1) {
    worker();
  } else {
    std::vector<std::jthread> threads;
    for (unsigned t = 0; t < concurrent; ++t) threads.emplace_back(worker);
  }
  return first_error ? *first_error : Status::Ok();
}

}  // namespace

// The phases: the folder locked and prepared, stale leftovers removed, the
// builds still to do chosen and ordered, the disk and memory checked, the
// builds run.
Result<std::vector<BackendBuild>> Generate(const GenOptions& o,
                                           const LoaderFactory& factory) {
  DirLock lock;
  bool exists = false, is_dir = false;
  FLATBENCH_RETURN_IF_ERROR(StatDir(o.dir, &exists, &is_dir));
  if (is_dir) FLATBENCH_RETURN_IF_ERROR(lock.Lock(o.dir));
  FLATBENCH_RETURN_IF_ERROR(PrepareDirectory(o));
  if (!is_dir) FLATBENCH_RETURN_IF_ERROR(lock.Lock(o.dir));
  FLATBENCH_ASSIGN_OR_RETURN(Dataset ds, Dataset::Open(o.dir));
  FLATBENCH_RETURN_IF_ERROR(RemoveStaleLeftovers(ds));
  // Results in the order asked; backends already complete are skipped.
  std::vector<std::optional<BackendBuild>> builds(o.backends.size());
  FLATBENCH_ASSIGN_OR_RETURN(const std::vector<size_t> pending,
                             PendingBuilds(o, ds, &builds));
  FLATBENCH_ASSIGN_OR_RETURN(const RunNeeds needs, GenNeeds(o, pending.size()));
  FLATBENCH_RETURN_IF_ERROR(BuildPending(o, factory, std::move(ds), pending,
                                         needs.concurrent, &builds));
  std::vector<BackendBuild> out;
  for (auto& b : builds) out.push_back(std::move(b).value());
  return out;
}

}  // namespace flatbench::datagen
