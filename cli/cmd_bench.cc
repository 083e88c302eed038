// flatbench bench: the point-read matrix, each backend in its own process,
// plus the raw-device rows, merged into one google-benchmark JSON file.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>

#include "bench/device.h"
#include "bench/harness.h"
#include "bench/results.h"
#include "cli/backends.h"
#include "cli/command.h"
#include "cli/subprocess.h"
#include "common/files.h"
#include "datagen/dataset.h"
#include "flatbench_config.h"
#if FLATBENCH_HAVE_ROCKSDB
#include <rocksdb/version.h>
#endif
#if FLATBENCH_HAVE_LMDB
#include <lmdb.h>
#endif


namespace flatbench::cli {
namespace {

struct BenchArgs {
  std::string dir, backends, out;
  std::string modes = "warm,cold,cold-lazy";
  std::string tables = "account,storage";
  std::string kinds = "hit,miss-absent,miss-live";
  std::string threads = "1,8,32";
  uint64_t reads = 20'000;
  int repetitions = 0;        // 0: 3 at smoke and below, 5 above.
  uint64_t device_bytes = 0;  // 0: min(4 GiB, dataset size).
  bool no_device = false;
  bool force = false;
  uint64_t check_samples = 10'000;
  bool quiet = false;
  // Hidden: run one backend in this process and write its document to --out.
  std::string child;
  // Hidden test hook: the sanity check must then fail (exit 65).
  bool corrupt_expectations = false;
};

std::vector<std::string> SplitCsv(const std::string& csv) {
  std::vector<std::string> out;
  std::stringstream ss(csv);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

template <typename T, typename ParseFn>
Status ParseCsv(const char* flag, const std::string& csv, ParseFn parse,
                std::vector<T>* out) {
  out->clear();
  for (const auto& item : SplitCsv(csv)) {
    T v;
    if (!parse(item, &v)) {
      return Status::Usage(std::string(flag) + ": '" + item +
                           "' is not a valid value");
    }
    if (std::find(out->begin(), out->end(), v) != out->end()) {
      return Status::Usage(std::string(flag) + ": '" + item + "' twice");
    }
    out->push_back(v);
  }
  if (out->empty()) return Status::Usage(std::string(flag) + ": empty list");
  return Status::Ok();
}

bool ParseThreads(const std::string& s, int* out) {
  if (s.empty() || s.size() > 4 ||
      s.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  *out = std::stoi(s);
  return *out >= 1 && *out <= 1024;
}

Status MakeOptions(const BenchArgs& a, const datagen::Spec& spec,
                   bench::BenchOptions* o) {
  FLATBENCH_RETURN_IF_ERROR(ParseCsv<bench::Mode>(
      "--modes", a.modes,
      [](const std::string& s, bench::Mode* m) {
        return bench::ParseMode(s, m);
      },
      &o->modes));
  FLATBENCH_RETURN_IF_ERROR(ParseCsv<Table>(
      "--tables", a.tables,
      [](const std::string& s, Table* t) { return ParseTable(s, t); },
      &o->tables));
  FLATBENCH_RETURN_IF_ERROR(ParseCsv<datagen::KeyKind>(
      "--kinds", a.kinds,
      [](const std::string& s, datagen::KeyKind* k) {
        return datagen::ParseKeyKind(s, k);
      },
      &o->kinds));
  FLATBENCH_RETURN_IF_ERROR(
      ParseCsv<int>("--threads", a.threads, ParseThreads, &o->threads));
  if (a.reads == 0) return Status::Usage("--reads: must be at least 1");
  if (a.repetitions < 0 || a.repetitions > 1000) {
    return Status::Usage("--repetitions: must be 1 to 1000");
  }
  if (a.check_samples == 0) {
    return Status::Usage("--check-samples: must be at least 1");
  }
  o->reads_per_pass = a.reads;
  o->repetitions = a.repetitions > 0 ? a.repetitions
                   : (spec.scale == "tiny" || spec.scale == "smoke") ? 3
                                                                     : 5;
  o->check.samples = a.check_samples;
  o->check.corrupt_expectations = a.corrupt_expectations;
  o->progress = !a.quiet;
  return Status::Ok();
}

bench::Opener MakeOpener(const datagen::Dataset& ds) {
  return [ds](const std::string& name, const OpenOptions& options) {
    return OpenBackend(name, ds.BackendDir(name), options);
  };
}

bench::Versions LibraryVersions() {
  bench::Versions v;
#if FLATBENCH_HAVE_ROCKSDB
  v.rocksdb = std::to_string(ROCKSDB_MAJOR) + "." +
              std::to_string(ROCKSDB_MINOR) + "." +
              std::to_string(ROCKSDB_PATCH);
#endif
#if FLATBENCH_HAVE_LMDB
  v.lmdb = mdb_version(nullptr, nullptr, nullptr);
#endif
  return v;
}

// Child process: one backend's matrix, its document written to --out.
int RunChild(const BenchArgs& a) {
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  bench::BenchOptions o;
  Status st = MakeOptions(a, ds->spec(), &o);
  if (!st.ok()) return Fail(st);
  auto run = bench::RunBackend(ds.value(), a.child, MakeOpener(ds.value()), o);
  if (!run.ok()) return Fail(run.status().WithContext(a.child));
  st = WriteFileAtomic(a.out, bench::BackendDocument(run.value()).dump(1));
  if (!st.ok()) return Fail(st);
  if (!run->sanity.ok()) return Fail(run->sanity.WithContext(a.child));
  return 0;
}

// Runs `args` as a child of /proc/self/exe; returns its exit code.
std::vector<std::string> ChildArgs(const BenchArgs& a, const std::string& b,
                                   const std::string& part, int reps) {
  std::vector<std::string> v = {"bench",
                                "--child",
                                b,
                                "--dir",
                                a.dir,
                                "--out",
                                part,
                                "--modes",
                                a.modes,
                                "--tables",
                                a.tables,
                                "--kinds",
                                a.kinds,
                                "--threads",
                                a.threads,
                                "--reads",
                                std::to_string(a.reads),
                                "--repetitions",
                                std::to_string(reps),
                                "--check-samples",
                                std::to_string(a.check_samples)};
  if (a.quiet) v.push_back("--quiet");
  if (a.corrupt_expectations) v.push_back("--corrupt-expectations");
  return v;
}

int RunParent(const BenchArgs& a) {
  // Flags first (64), then the dataset (66).
  {
    bench::BenchOptions unused;
    Status flags = MakeOptions(a, datagen::Spec(), &unused);
    if (!flags.ok()) return Fail(flags);
  }
  if (!a.backends.empty()) {
    auto named = ParseBackendList(a.backends);
    if (!named.ok()) return Fail(named.status());
  }
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  std::string names = a.backends;
  if (names.empty()) {
    // Default: every backend this build has that the dataset holds.
    for (const auto& b : ds->CompleteBackends()) {
      for (const auto& known : AvailableBackends()) {
        if (b != known) continue;
        if (!names.empty()) names.push_back(',');
        names.append(b);
      }
    }
    if (names.empty()) {
      return Fail(Status::MissingInput("--dir: " + a.dir +
                                       " holds no complete backend"));
    }
  }
  auto backends = ParseBackendList(names);
  if (!backends.ok()) return Fail(backends.status());
  bench::BenchOptions o;
  Status st = MakeOptions(a, ds->spec(), &o);
  if (!st.ok()) return Fail(st);
  for (const auto& b : backends.value()) {
    auto build = ds->Build(b);
    if (!build.ok()) {
      return Fail(Status::MissingInput(
          "--backends: '" + b + "' is not built in dataset " + a.dir +
          " (run flatbench gen --backends " + b + ")"));
    }
  }
  struct stat sb {};
  if (!a.force && stat(a.out.c_str(), &sb) == 0) {
    return Fail(Status::RefuseOverwrite(
        "--out: " + a.out + " already exists (pass --force to replace it)"));
  }
  nlohmann::json run_context =
      bench::RunContext(ds.value(), o, LibraryVersions());

  std::vector<nlohmann::json> documents;
  int exit_code = 0;
  for (const auto& b : backends.value()) {
    std::string part = a.out + "." + b + ".part";
    if (!a.quiet) {
      std::fprintf(stderr, "bench: %s: running in its own process\n",
                   b.c_str());
    }
    int rc = SpawnSelf(ChildArgs(a, b, part, o.repetitions));
    auto text = ReadSmallFile(part);
    unlink(part.c_str());
    nlohmann::json doc;
    if (text.ok()) doc = nlohmann::json::parse(text.value(), nullptr, false);
    if (!text.ok() || doc.is_discarded()) {
      doc = nlohmann::json::object();
      doc["context"]["flatbench.backend." + b + ".error"] =
          "child process exited " + std::to_string(rc) + " without results";
    }
    documents.push_back(std::move(doc));
    if (rc == 65 && exit_code == 0) exit_code = 65;
    if (rc != 0 && rc != 65) {
      std::fprintf(stderr, "flatbench: backend %s: child process exited %d\n",
                   b.c_str(), rc);
      exit_code = rc > 0 && rc < 128 ? rc : 74;
    }
  }

  std::unique_ptr<bench::DeviceRun> device;
  std::string device_status = "skipped: --no-device";
  if (!a.no_device) {
    bench::DeviceOptions d;
    d.dir = a.dir;
    d.bytes = a.device_bytes > 0
                  ? a.device_bytes
                  : std::min(bench::kDefaultDeviceBytes, DiskBytes(a.dir));
    d.threads = o.threads;
    d.reads_per_pass = o.reads_per_pass;
    d.repetitions = o.repetitions;
    d.progress = !a.quiet;
    auto run = bench::MeasureDevice(d);
    if (run.ok()) {
      device = std::make_unique<bench::DeviceRun>(std::move(run).value());
      device_status = device->status;
    } else {
      device_status = "failed: " + run.status().message();
      std::fprintf(stderr, "flatbench: device: %s\n",
                   run.status().message().c_str());
    }
    if (!a.quiet) {
      std::fprintf(stderr, "bench: device: %s\n", device_status.c_str());
    }
  }
  nlohmann::json merged = bench::MergeDocuments(run_context, documents,
                                                device.get(), device_status);
  st = WriteFileAtomic(a.out, merged.dump(2) + "\n");
  if (!st.ok()) return Fail(st);
  if (!a.quiet) {
    std::fprintf(stderr, "bench: wrote %s (%zu entries)\n", a.out.c_str(),
                 merged["benchmarks"].size());
  }
  if (exit_code == 65) {
    std::fprintf(stderr,
                 "flatbench: a sanity check failed; see "
                 "flatbench.backend.*.sanity in %s\n",
                 a.out.c_str());
  }
  return exit_code;
}

constexpr char kHelp[] =
    "Runs the point-read matrix: backend x table (account, storage) x kind "
    "(hit, miss-absent, and miss-live for storage) x threads x mode x "
    "repetition, one google-benchmark entry per measured pass, and writes "
    "google-benchmark JSON (see bench/RESULTS_FORMAT.md). Each backend runs "
    "in its own process. Before any eviction every backend is sanity-checked "
    "(sampled hits byte for byte, misses absent, both tables; exit 65 on a "
    "wrong answer).\n"
    "Modes:\n"
    "  warm       all backend files read into the page cache and verified "
    ">= 99% resident with mincore before every pass.\n"
    "  cold       before every pass: close the backend, evict its files "
    "(drop_caches if writable, else fadvise DONTNEED), verify <= 1% resident "
    "with mincore (else eviction_verified=0), reopen (timed), then one pass "
    "of fixed iterations, real time, no warm-up.\n"
    "  cold-lazy  as cold, but the backend preloads no metadata (RocksDB "
    "index/filter through a fresh block cache, arena index through the "
    "map).\n"
    "Keys are uniform over the whole key space (a seeded permutation), "
    "distinct within a pass, prepared before the timed loop. Each pass "
    "records reads/s, latency percentiles, major faults and storage bytes "
    "per read, residency, peak reads in flight (flagged when short of the "
    "thread count), RSS, open time and resident metadata. The raw device is "
    "measured too: 4 KiB O_DIRECT random reads on a scratch file in --dir.";

}  // namespace

RunFn AddBench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench", kHelp);
  sub->add_option("--dir", a->dir, "Dataset directory")->required();
  sub->add_option("--backends", a->backends,
                  "Comma-separated backends (default: every backend built "
                  "in the dataset)");
  sub->add_option("--out", a->out, "Results JSON file")->required();
  sub->add_option("--modes", a->modes, "warm,cold,cold-lazy (any subset)")
      ->capture_default_str();
  sub->add_option("--tables", a->tables, "account,storage")
      ->capture_default_str();
  sub->add_option("--kinds", a->kinds,
                  "hit,miss-absent,miss-live (miss-live: storage only)")
      ->capture_default_str();
  sub->add_option("--threads", a->threads, "Thread counts, 1 to 1024")
      ->capture_default_str();
  sub->add_option("--reads", a->reads,
                  "Reads per pass, over all threads (capped at the key space)")
      ->capture_default_str();
  sub->add_option("--repetitions", a->repetitions,
                  "Passes per cell (default 3 at tiny/smoke, 5 above)");
  auto* dev = sub->add_option(
      "--device-bytes", a->device_bytes,
      "Device scratch file size (default: min(4 GiB, dataset size))");
  sub->add_flag("--no-device", a->no_device, "Skip the raw-device rows")
      ->excludes(dev);
  sub->add_flag("--force", a->force, "Replace an existing --out file");
  sub->add_option("--check-samples", a->check_samples,
                  "Sanity-check keys per table and kind")
      ->capture_default_str();
  sub->add_flag("--quiet", a->quiet, "No progress lines");
  sub->add_option("--child", a->child, "internal: run one backend")->group("");
  sub->add_flag("--corrupt-expectations", a->corrupt_expectations,
                "test hook: make the sanity check fail")
      ->group("");
  return [a] { return a->child.empty() ? RunParent(*a) : RunChild(*a); };
}

}  // namespace flatbench::cli
