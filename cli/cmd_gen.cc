// flatbench gen: build a dataset into the chosen backends.
#include <malloc.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "backends/table.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "common/files.h"
#include "datagen/dataset_dir.h"
#include "dataset/estimate.h"

namespace flatbench::cli {
namespace {

struct GenArgs {
  std::string scale = "smoke";
  std::string dir;
  std::vector<std::string> backends;
  uint64_t accounts = 0;
  uint32_t slots = 4;
  uint64_t seed = dataset::kDefaultSeed;
  dataset::StreamSpec stream;
  bool rebuild = false;
  bool quiet = false;
  int jobs = 0;
  const CLI::Option* jobs_option = nullptr;  // Not given: hardware threads.
};

// --jobs, or the host's hardware threads when not given.
unsigned DefaultJobs() {
  return std::max(1u, std::thread::hardware_concurrency());
}

// gen allocates and frees a buffer of a few MiB per batch of pairs and per
// arena shard, from several threads. glibc's malloc serves such sizes with
// mmap and returns them with munmap, so every buffer's pages are faulted
// in and zeroed again, and a second job spent on those faults what it
// saved (RESEARCH.md section 12). Kept in the heap and not trimmed, freed
// buffers are reused; peak memory is still the largest set of buffers alive at
// once (dataset::EstimateGeneratorBytes).
void KeepFreedBuffers() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest on 64-bit.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
}

Status RunGen(const GenArgs& a) {
  KeepFreedBuffers();
  datagen::GenOptions o;
  FLATBENCH_ASSIGN_OR_RETURN(
      o.spec, dataset::MakeSpec(a.scale, a.accounts, a.slots, a.seed));
  FLATBENCH_RETURN_IF_ERROR(dataset::ValidateStream(a.stream));
  o.spec.stream = a.stream;
  o.dir = a.dir;
  o.backends =
      a.backends.empty() ? backends::DefaultStores(o.spec) : a.backends;
  // Before anything is written; a backend already built is not checked.
  auto existing = datagen::Dataset::Open(a.dir);
  for (const auto& b : o.backends) {
    if (existing.ok() && existing->spec() == o.spec &&
        existing->Build(b).ok()) {
      continue;
    }
    FLATBENCH_RETURN_IF_ERROR(backends::CheckBuildable(b, o.spec, a.dir));
  }
  if (a.jobs_option->count() > 0 && a.jobs < 1) {
    return Status::Usage("--jobs " + std::to_string(a.jobs) +
                         ": must be at least 1");
  }
  if (a.jobs_option->count() > 0) {
    o.jobs = static_cast<unsigned>(a.jobs);
  } else {
    // Not asked for: the host's hardware threads, fewer if the memory
    // holds fewer (an explicit --jobs that does not fit is refused).
    o.jobs = DefaultJobs();
    const uint64_t avail = MemAvailableBytes();
    while (o.jobs > 1 && avail != 0 &&
           dataset::EstimateGeneratorBytes(o.spec, o.jobs) + (1ULL << 30) >
               avail) {
      --o.jobs;
    }
  }
  o.rebuild = a.rebuild;
  o.progress = !a.quiet;
  o.stop = CatchStopSignals();
  FLATBENCH_ASSIGN_OR_RETURN(auto builds,
                             datagen::Generate(o, backends::NewLoader));
  std::printf("dataset %s: %s\n", a.dir.c_str(), o.spec.Canonical().c_str());
  std::printf("%-8s %12s %12s %10s %12s\n", "backend", "pairs", "disk",
              "build s", "keys/s");
  for (const auto& b : builds) {
    uint64_t pairs = b.pairs[0] + b.pairs[1];
    std::printf("%-8s %12llu %12s %10.1f %12.0f\n", b.backend.c_str(),
                static_cast<unsigned long long>(pairs),
                HumanBytes(b.disk_bytes).c_str(), b.build_seconds,
                b.build_seconds > 0 ? pairs / b.build_seconds : 0.0);
  }
  std::printf("fingerprint %s\n", builds.front().fingerprint.c_str());
  return Status::Ok();
}

}  // namespace

Command AddGen(CLI::App& app) {
  auto a = std::make_shared<GenArgs>();
  CLI::App* sub = app.add_subcommand(
      "gen",
      "Build a dataset into the chosen backends. Resumable: finished "
      "backends are skipped, an interrupted one is rebuilt. A failed build "
      "removes its partial backend; on SIGINT, SIGTERM or SIGHUP it stops, "
      "removes it and exits 128+signal (a killed gen's leftovers are removed "
      "by the next run). Refuses (exit 73) to touch a directory holding "
      "another dataset unless --rebuild, or one another gen is building.");
  sub->add_option("--scale", a->scale,
                  "tiny (10k x 5), smoke (100k x 5), medium (10M x 4), full "
                  "(300M x 4) or custom")
      ->capture_default_str();
  sub->add_option("--dir", a->dir, "Dataset directory")->required();
  AddListOption(sub, "--backends", &a->backends,
                "Comma-separated backends (default: every backend of this "
                "build; fs only up to smoke scale, it is one file per key)")
      ->check(CLI::IsMember(backends::Names()));
  sub->add_option("--accounts", a->accounts, "Accounts (--scale custom)");
  sub->add_option("--slots-per-account", a->slots,
                  "Storage slots per account (--scale custom)")
      ->capture_default_str();
  sub->add_option("--seed", a->seed, "Value seed")->capture_default_str();
  AddStreamOptions(sub, &a->stream);
  sub->add_flag("--rebuild", a->rebuild,
                "Delete and rebuild a dataset whose identity differs");
  sub->add_flag("--quiet", a->quiet, "No progress lines");
  a->jobs_option = sub->add_option(
      "--jobs", a->jobs,
      "Threads (default: the host's hardware threads, " +
          std::to_string(DefaultJobs()) +
          ", fewer if the memory holds fewer). Builds up to this many "
          "backends at once, as many as the memory allows, each making its "
          "pairs and, where the engine "
          "allows (arena, RocksDB, PostgreSQL), loading with this many "
          "threads. The "
          "output does not depend on it.");
  return {sub, [a] {
            Status st = RunGen(*a);
            return ExitCodeOfStoppable(st, "gen");
          }};
}

}  // namespace flatbench::cli
