#pragma once
// Bench results as the report reads them: the measured passes of one or
// more `flatbench bench` JSON files (bench/RESULTS_FORMAT.md), merged into
// one run over one dataset.

#include <compare>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace flatbench::report {

// One cell of the matrix: backend x table x kind x mode x threads.
struct CellKey {
  std::string backend;  // arena, rocksdb, lmdb, device.
  std::string table;    // account, storage (raw for device).
  std::string kind;     // hit, miss-absent, miss-live.
  std::string mode;     // warm, cold, cold-lazy.
  int threads = 0;
  auto operator<=>(const CellKey&) const = default;
  // "arena/account/hit/cold/threads:8".
  std::string Name() const;
};

// One measured pass. Counters a file does not carry are NaN.
struct Pass {
  CellKey cell;
  int rep = 0;
  std::string file;  // The input file it came from.
  bool error = false;
  std::string error_message;
  double reads_per_s = 0;
  double lat_mean_ns = 0;
  double lat_p50_ns = 0;
  double lat_p99_ns = 0;
  double lat_p999_ns = 0;
  double major_faults_per_read = 0;
  double bytes_read_per_read = 0;
  double resident_fraction_before = 0;
  // Measured right after eviction, before the reopen that may fault in
  // metadata (cold modes); NaN when the file does not carry it.
  double resident_fraction_after_eviction = 0;
  double eviction_verified = 0;
  double peak_inflight = 0;
  double concurrency_short = 0;
  double distinct_keys = 0;
  double rss_after_open_bytes = 0;
  double rss_after_pass_bytes = 0;
  double open_seconds = 0;
  double metadata_bytes = 0;
  double found_fraction = 0;
};

// Every pass of a run, and the context of the files it came from.
struct ResultSet {
  std::vector<std::string> files;
  std::string scale;
  std::string spec;
  std::string fingerprint;
  // Context key -> each distinct value seen across the files (scalars only).
  std::map<std::string, std::set<std::string>> context;
  std::vector<Pass> passes;

  // The distinct values of a context key joined by " / ", or "" if absent.
  std::string Context(const std::string& key) const;
};

// Parses one results file's text; `file` names it in errors (kCorruption).
Result<ResultSet> ParseResults(std::string_view text, const std::string& file);

// Merges per-file results. kCorruption if they come from different datasets
// (scale, spec or fingerprint differ) or a pass appears twice.
Result<ResultSet> MergeResults(std::vector<ResultSet> parts);

// Reads, parses and merges files: kMissingInput names an absent file,
// kCorruption a malformed or inconsistent one.
Result<ResultSet> LoadResults(const std::vector<std::string>& paths);

}  // namespace flatbench::report
