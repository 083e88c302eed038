#pragma once
// The go/no-go thresholds: which cells the verdict looks at, the ratios each
// must meet, and the validity gates a run must pass before any ratio counts.
//
// They live in a checked-in JSON file (thresholds.json at the top of the
// tree, described there and in RESEARCH.md). The report names the file it
// used and its XXH3-64 digest, so a reader can tell the bounds were fixed in
// advance.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/results_schema.h"
#include "common/status.h"
#include "dataset/backend_facts.h"

namespace flatbench::report {

// What a ratio check compares between the candidate and a baseline.
enum class Metric {
  // Median reads/s on hit cells; ratio = candidate / baseline, higher is
  // better, passes when ratio >= bound.
  kHitReadsPerS,
  // Median cost per miss read on miss cells, where the cost of a pass is
  // threads / reads_per_s (thread-seconds per read: the mean time one
  // reader thread spends per miss, including everything around the lookup);
  // ratio = candidate / baseline, lower is better, passes when
  // ratio <= bound.
  kMissCost,
};

// The JSON name of a metric ("hit_reads_per_s", "miss_cost").
const char* MetricName(Metric metric);

struct RatioThreshold {
  std::string name;  // Shown in the report, e.g. "arena/rocksdb ...".
  Metric metric = Metric::kHitReadsPerS;
  std::string baseline;  // Backend compared against, e.g. "rocksdb".
  double bound = 0;      // min_ratio (kHitReadsPerS) or max_ratio (kMissCost).
  bool HigherIsBetter() const { return metric == Metric::kHitReadsPerS; }
};

struct Thresholds {
  std::string gate_mode{results::kModeCold};
  std::string gate_scale = "full";
  std::string candidate{dataset::kCandidate};
  std::vector<RatioThreshold> checks;
  int min_repetitions = 5;
  double max_resident_fraction = 0.01;
  std::vector<int> threads;
  // Table -> the kinds (hit, miss-absent, miss-live) it must have.
  std::map<std::string, std::vector<std::string>> cells;
  bool require_release_build = true;
  bool require_asserts_off = true;
  // Concurrency gate: storage-bound cells need mean reads in flight of at
  // least min_mean_inflight_share x threads; CPU-bound cells need a host
  // with at least as many hardware threads as the cell has threads.
  bool require_full_concurrency = true;
  bool require_sanity_passed = true;
  double min_mean_inflight_share = 0.75;
  // Storage uniformity: max/min of the gated backends' own-file device
  // rates per (table, threads), at most this.
  double max_device_rate_spread = 1.25;
  // Drift: per backend, first against last repetition's device rates
  // (geometric mean over table x threads), max/min at most this.
  double max_device_drift = 1.25;

  std::string source;  // Where the text came from (a path or "built-in").
  std::string text;    // The exact bytes the digest covers.
  std::string digest;  // XXH3-64 of `text`, 16 lowercase hex digits.

  // The candidate and every baseline a check names, candidate first.
  std::vector<std::string> Backends() const;
};

// Parses thresholds JSON. Unknown keys are rejected so a typo cannot switch
// a gate off silently. Errors are kCorruption naming `source` and the field.
Result<Thresholds> ParseThresholds(std::string_view text,
                                   const std::string& source);

// Reads and parses a thresholds file: kMissingInput if it does not exist,
// kCorruption if it is malformed.
Result<Thresholds> LoadThresholdsFile(const std::string& path);

// The checked-in thresholds.json as it was when this binary was built.
std::string_view BuiltInThresholdsText();
Result<Thresholds> BuiltInThresholds();

// XXH3-64 of `bytes` as 16 lowercase hex digits.
std::string Xxh3Hex(std::string_view bytes);

}  // namespace flatbench::report
