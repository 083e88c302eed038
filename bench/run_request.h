#pragma once
// A bench run as it is asked for: every parameter of `flatbench bench`, one
// plain value. The CLI fills it from the options (cli/run_options.h),
// gonogo and sweep fill it to start their bench, and it crosses process
// boundaries as JSON (RunRequestToJson / RunRequestFromJson). What depends
// on the dataset (the reads at its scale, how "auto" evicts on this host)
// is resolved later, into RunParameters (bench/results.h).
//
// A field's JSON name is its option's name without the leading "--"
// ("device-reads"), so a request and its command line name a parameter
// the same way, and the command line of a request is derived from its JSON
// (cli/run_options.h RequestArgs).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/defaults.h"
#include "bench/schedule.h"
#include "common/results_schema.h"
#include "common/status.h"

namespace flatbench::bench {

// Where gonogo puts its timestamped results folders unless --results says
// otherwise; the plan calibrates from the newest of them by default.
inline constexpr char kDefaultResultsRoot[] = "results";

struct RunRequest {
  std::string dir;
  std::vector<std::string> backends;  // Empty: every one the dataset holds.
  std::string out;
  bool force = false;  // Replace an existing results file.
  bool quiet = false;
  std::vector<std::string> modes = {std::begin(results::kModes),
                                    std::end(results::kModes)};
  std::vector<std::string> tables = {std::begin(results::kTables),
                                     std::end(results::kTables)};
  std::vector<std::string> kinds = {std::string(results::kKindHit),
                                    std::string(results::kKindMissAbsent),
                                    std::string(results::kKindMissLive)};
  // Empty: kDefaultThreads, and batch cells at kDefaultBatchThreads; given,
  // batch cells run at these too.
  std::vector<int> threads;
  uint64_t reads = 0;   // 0: DefaultReadsPerPass(scale).
  int repetitions = 0;  // 0: DefaultRepetitions(scale).
  // Seeds every cell's key draw (bench/schedule.h CellDrawSeed).
  uint64_t draw_seed = kDefaultDrawSeed;
  // auto (empty: the same), drop_caches or fadvise.
  std::string evict;
  bool no_device = false;
  uint64_t device_reads = 0;    // 0: as many as reads.
  std::string device_profile;   // Recorded in the results' context.
  std::string thresholds;       // Which backends are gated; empty: built in.
  bool full_reference = false;  // Reference rows run the whole matrix.
  // Results whose figures calibrate the plan (bench/plan_calibration.h):
  // empty, the newest of this host under results_root and beside out;
  // "none", the built-in model alone.
  std::string calibration;
  std::string results_root = kDefaultResultsRoot;
  uint32_t scan_length = kDefaultScanLength;
  uint64_t scans = 0;  // 0: a tenth of reads.
  uint64_t startup_probes = kDefaultStartupProbes;
  uint32_t batch_size = kDefaultBatchSize;
  uint64_t check_samples = 10'000;
  uint64_t cache_mib = 1024;
  // Writing cells (bench/writing_pass.h): hit reads while the store takes
  // the dataset's stream of blocks, at block_rate blocks/s (0: as fast as
  // the store takes them), the arena merging every merge_every blocks (0:
  // dataset::DefaultMergeEvery of the dataset), in the first
  // writing_repetitions repetitions of each mode.
  bool write_while_reading = false;
  uint64_t block_rate = 0;
  uint64_t merge_every = 0;
  int writing_repetitions = 1;
  bool fresh = false;  // Remove the journal of an earlier run first.
  bool plan = false;   // Print the plan, run nothing.

  bool operator==(const RunRequest&) const = default;
};

// The JSON names of the fields, in the order a command line lists them.
std::vector<std::string_view> RunRequestFields();

// Every field, by its JSON name.
nlohmann::json RunRequestToJson(const RunRequest& r);

// A request from a JSON object; a field left out keeps its default.
// kUsage naming the field for one of the wrong type or out of its type's
// range, and for a name that is no field.
Result<RunRequest> RunRequestFromJson(const nlohmann::json& j);

}  // namespace flatbench::bench
