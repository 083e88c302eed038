// Generate: building a dataset's backends into its directory, resumable,
// refusing what is not ours, leaving nothing partial behind.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "common/files.h"
#include "common/progress.h"
#include "datagen/dataset.h"
#include "datagen/dataset_files.h"
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

// Passes pairs on to the real loader until `stop` becomes non-zero.
class StoppableSink final : public BulkLoader {
 public:
  StoppableSink(BulkLoader* inner, const volatile std::sig_atomic_t* stop)
      : inner_(inner), stop_(stop) {}
  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    if (stop_ != nullptr && *stop_ != 0) return Status::IOError("interrupted");
    return inner_->Add(table, key, value);
  }
  Status Finish() override { return inner_->Finish(); }

 private:
  BulkLoader* inner_;
  const volatile std::sig_atomic_t* stop_;
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

Result<BackendBuild> BuildOne(const GenOptions& o, Dataset* ds,
                              const std::string& backend,
                              const LoaderFactory& factory) {
  std::string bdir = ds->BackendDir(backend);
  std::error_code ec;
  if (fs::exists(bdir, ec)) {
    std::fprintf(stderr, "gen %s: removing %s left by an interrupted build\n",
                 backend.c_str(), bdir.c_str());
    fs::remove_all(bdir, ec);
    if (ec) return Status::IOError(bdir + ": " + ec.message());
  }
  fs::create_directories(bdir, ec);
  if (ec) return Status::IOError(bdir + ": cannot create: " + ec.message());

  auto start = std::chrono::steady_clock::now();
  FLATBENCH_ASSIGN_OR_RETURN(std::unique_ptr<BulkLoader> loader,
                             factory(backend, bdir, o.spec));
  // Steps: one per account to bucket it, then one per pair loaded.
  Progress progress("gen " + backend, "steps", o.progress);
  StoppableSink sink(loader.get(), o.stop);
  Result<StreamDigest> digest = GenerateSorted(
      o.spec, &sink,
      [&](uint64_t done, uint64_t total) { progress.Update(done, total); });
  if (!digest.ok()) return digest.status().WithContext("gen " + backend);
  FLATBENCH_RETURN_IF_ERROR(loader->Finish().WithContext("gen " + backend));
  loader.reset();
  progress.Finish(2 * digest->pairs[0] + digest->pairs[1]);

  BackendBuild b;
  b.backend = backend;
  b.fingerprint = FingerprintHex(digest->fingerprint);
  b.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  b.disk_bytes = DiskBytes(bdir);
  b.pairs[0] = digest->pairs[0];
  b.pairs[1] = digest->pairs[1];
  if (!ds->fingerprint().empty() && ds->fingerprint() != b.fingerprint) {
    return Status::Corruption("gen " + backend + ": stream fingerprint " +
                              b.fingerprint + " differs from the dataset's " +
                              ds->fingerprint() +
                              " (non-deterministic generator?)");
  }
  if (ds->fingerprint().empty()) {
    FLATBENCH_RETURN_IF_ERROR(WriteIdentity(o.dir, o.spec, b.fingerprint));
  }
  FLATBENCH_RETURN_IF_ERROR(WriteMarker(*ds, b));
  FLATBENCH_ASSIGN_OR_RETURN(*ds, Dataset::Open(o.dir));
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

}  // namespace

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
  std::vector<BackendBuild> builds;
  for (const std::string& backend : o.backends) {
    if (o.stop != nullptr && *o.stop != 0) {
      return Status::IOError("gen: interrupted before " + backend);
    }
    Result<BackendBuild> done = ds.Build(backend);
    if (done.ok()) {
      std::fprintf(stderr, "gen %s: already complete, skipping\n",
                   backend.c_str());
      builds.push_back(done.value());
      continue;
    }
    if (done.status().code() != Code::kMissingInput) return done.status();
    Result<BackendBuild> built = BuildOne(o, &ds, backend, factory);
    if (!built.ok()) return FailBuild(ds, backend, built.status());
    builds.push_back(built.value());
  }
  return builds;
}

}  // namespace flatbench::datagen
