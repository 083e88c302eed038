#include "bench/run_context.h"

#include <unistd.h>

#include <ctime>
#include <sstream>
#include <thread>

#include "bench/environment.h"
#include "bench/pass.h"
#include "common/results_schema.h"
#include "common/text.h"
#include "dataset/backend_facts.h"
#include "flatbench_config.h"
#include "flatbench_revision.h"

namespace flatbench::bench {

nlohmann::json RunContext(const datagen::Dataset& ds, const RunParameters& p,
                          const Versions& versions) {
  const ScheduleOptions& o = p.schedule;
  nlohmann::json c = DescribeEnvironment(ds.dir());
  const auto set = [&c](const results::ContextKey& k, nlohmann::json v) {
    c[std::string(k.name)] = std::move(v);
  };
  set(results::kResultsFormat, results::kFormatVersion);
  set(results::kVersion, FLATBENCH_VERSION);
  set(results::kRevision, FLATBENCH_REVISION);
  set(results::kBuildType, FLATBENCH_BUILD_TYPE);
  set(results::kAssertsOn, !FLATBENCH_NDEBUG);
  set(results::kScale, ds.spec().scale);
  set(results::kSpec, ds.spec().Canonical());
  set(results::kFingerprint, ds.fingerprint());
  set(results::kDatasetAccounts, ds.spec().accounts);
  set(results::kDatasetSlotsPerAccount, ds.spec().slots_per_account);
  set(results::kDatasetDir, ds.dir());
  set(results::kReadsPerPass, o.reads_per_pass);
  set(results::kDeviceReadsPerPass, o.device_reads);
  set(results::kRepetitions, o.repetitions);
  set(results::kThreadCounts, Join(o.threads));
  std::string modes;
  for (Mode m : o.modes) {
    if (!modes.empty()) modes.push_back(',');
    modes.append(ModeName(m));
  }
  set(results::kModeList, modes);
  set(results::kSchedule, DescribeSchedule());
  set(results::kVerifyChecksums, p.verify_checksums);
  set(results::kEvictMethod, p.evict);
  set(results::kTimingOverheadNs, ClockPairCostNs());
  std::ostringstream draw;
  draw << "uniform over the whole key space of each (table, kind): a seeded "
          "4-round Feistel permutation of the hit or miss index space "
          "(datagen::Sampler, draw seed 0x"
       << std::hex << o.draw_seed << std::dec
       << "); each thread of each pass reads its own disjoint range of "
          "permutation indices, and successive passes continue the "
          "permutation, so no key repeats within a pass; every backend reads "
          "the same keys in the same cell and repetition; key bytes are "
          "prepared before the timed loop";
  set(results::kKeyDraw, draw.str());
  for (const dataset::BackendFacts& f : dataset::kBackends) {
    if (f.library.empty()) continue;
    auto it = versions.find(std::string(f.library));
    set(f.library_key, it != versions.end() ? it->second : "not built");
  }
  set(results::kLibCompiler, FLATBENCH_COMPILER);
  set(results::kEvictionBound, p.eviction_bound);
  set(results::kWarmBound, p.warm_bound);
  set(results::kRunStart, UtcTime(std::time(nullptr)));
  return c;
}

}  // namespace flatbench::bench
