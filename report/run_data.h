#pragma once
// Bench results as the report reads them: the measured passes of one or
// more `flatbench bench` JSON files, read only through the results
// contract (common/results_schema.h), checked value by value, and merged
// into one run over one dataset on one host.

#include <cmath>
#include <compare>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/device_profile.h"
#include "common/results_schema.h"
#include "common/status.h"

namespace flatbench::report {

// One cell of the matrix: backend x table x kind x mode x threads.
struct CellKey {
  std::string backend;  // arena, rocksdb, lmdb, ...
  std::string table;    // account, storage.
  std::string kind;     // hit, miss-absent, miss-live, device.
  std::string mode;     // warm, cold, cold-lazy.
  int threads = 0;
  auto operator<=>(const CellKey&) const = default;
  // "arena/account/hit/cold/threads:8".
  std::string Name() const;
};

// A pass's counters: one slot per contract counter, in
// results::AllCounters() order, NaN where the pass has none. A flat array
// rather than a map by name: a verdict looks up each pass's counters many
// times over.
class CounterValues {
 public:
  CounterValues();
  // The counter's value; NaN when absent or not a contract counter.
  double Get(std::string_view name) const;
  // The slot of a contract counter, to set; throws std::out_of_range for a
  // name outside the contract.
  double& operator[](std::string_view name);
  // The slot at `index` in results::AllCounters().
  double& at(size_t index) { return values_.at(index); }
  double at(size_t index) const { return values_.at(index); }
  // Makes the counter absent again.
  void erase(std::string_view name) { (*this)[name] = NAN; }

 private:
  std::vector<double> values_;
};

// One measured pass. Counters its entry does not carry are NaN.
struct Pass {
  CellKey cell;
  int rep = 0;
  std::string file;  // The input file it came from.
  bool error = false;
  std::string error_message;
  CounterValues counters;
  // The backend's own counts per read (results::kEntryBackendCounters), by
  // key ("data_blocks_read", "L6.filter_probes"); empty when it gave none.
  std::map<std::string, double> backend_counters;
  // Writing passes: the read p99 series and the merge windows
  // (results_writing.h), as their entry gave them; null otherwise.
  nlohmann::json series, windows;

  // The counter's value, NaN when absent.
  double Get(const results::Counter& counter) const;
  std::string Name() const;  // Cell name with "/rep:R".
};

// Every pass of a run, and the context of the files it came from.
struct ResultSet {
  std::vector<std::string> files;
  // Context key -> each distinct value seen across the files, as text
  // (strings as they are, other scalars as JSON). Provenance keys hold one.
  std::map<std::string, std::set<std::string>> context;
  // Per backend: its settings object (results::kSettings).
  std::map<std::string, nlohmann::json> settings;
  // Per backend that recorded one: its store's shape (results::kShape).
  std::map<std::string, nlohmann::json> shapes;
  // Per backend that recorded one: its levels at open (results::kOpenShape).
  std::map<std::string, nlohmann::json> open_shapes;
  // Per results file that recorded one (results::kRecordedDeviceProfile):
  // the device profile bench was given.
  std::map<std::string, DeviceProfile> device_profiles;
  std::vector<Pass> passes;

  // The distinct values of a context key joined by " / ", or "" if absent.
  std::string Context(const std::string& key) const;
  std::string Context(const results::ContextKey& key) const;
  std::string Context(const std::string& backend,
                      const results::BackendContextKey& key) const;
  // The key's value as an integer; nullopt if absent, not one, or mixed.
  std::optional<int64_t> Integer(std::string_view key) const;
  // The key's value as a bool; nullopt if absent, not one, or mixed.
  std::optional<bool> Bool(std::string_view key) const;
  std::string scale() const { return Context(results::kScale); }
};

// The largest credible reads/s per reader thread. A 4 KiB read from the
// fastest NVMe takes microseconds, and a lookup hitting memory about
// 100 ns at the least; 100M per thread is well above either, so anything
// faster was not measured.
inline constexpr double kMaxReadsPerSPerThread = 1e8;

// Parses one results file's text; `file` names it in errors. kCorruption
// for malformed JSON, another results format version, a missing or mistyped
// context key, a name outside the grammar, and any impossible counter value
// (naming the benchmark and the counter).
Result<ResultSet> ParseResults(std::string_view text, const std::string& file);
// The same for a document already parsed (a sweep's state holds each
// size's results as an object): what the text's JSON reads as.
Result<ResultSet> ParseResultsDocument(const nlohmann::json& doc,
                                       const std::string& file);

// Merges per-file results. kCorruption if their provenance differs (the
// first differing key and both values are named) or a pass appears twice.
Result<ResultSet> MergeResults(std::vector<ResultSet> parts);

// Reads, parses and merges files: kMissingInput names an absent file,
// kCorruption a malformed or inconsistent one.
Result<ResultSet> LoadResults(const std::vector<std::string>& paths);

}  // namespace flatbench::report
