#pragma once
// Builds a complete, valid, full-scale bench results document (the JSON
// `flatbench bench` writes, common/results_schema.h) that passes every
// default threshold with margin, so each test mutates one thing and sees
// exactly that effect. Every name comes from the results contract.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace flatbench::report::testing {

struct ResultsBuilder {
  std::string scale = "full";
  int64_t accounts = 300000000;
  int64_t slots_per_account = 4;
  std::string spec =
      "flatbench-dataset v1 accounts=300000000 "
      "slots_per_account=4 seed=42";
  std::string fingerprint = "0123456789abcdef";
  std::string build_type = "release";
  bool asserts_on = false;
  int64_t hardware_threads = 32;
  // On-disk bytes of every backend: within the full-scale estimate.
  int64_t disk_bytes = 140000000000;
  int repetitions = 5;
  std::vector<int> threads = {1, 8, 32};
  std::vector<std::string> backends = {"arena", "rocksdb", "lmdb"};
  std::vector<std::string> modes = {"cold", "warm", "cold-lazy"};
  bool device_cells = true;
  // Scan cells (every table, thread count and mode; scans/s a tenth of
  // the hit reads/s) and startup cells (every mode).
  bool scan_cells = false;
  bool startup_cells = false;
  // Batch cells (every table and mode, at batch_threads, batch_size keys
  // per call; keys/s four times the hit reads/s per thread, and in cold
  // modes the device rate at depth batch_size from the device cell at
  // threads:<batch_size>, which `threads` must hold).
  bool batch_cells = false;
  int batch_size = 32;
  std::vector<int> batch_threads = {1, 2};
  // Median single-thread reads/s per backend; each thread count multiplies
  // it, and repetitions spread it by `jitter` per repetition around the
  // exact median (±1% and ±2% for five). Defaults: arena/rocksdb hit 2.0,
  // arena/lmdb hit 1.0, miss cost 1.0.
  std::map<std::string, double> hit_reads_per_s = {
      {"arena", 20000}, {"rocksdb", 10000}, {"lmdb", 20000}};
  std::map<std::string, double> miss_reads_per_s = {
      {"arena", 100000}, {"rocksdb", 80000}, {"lmdb", 100000}};
  // Single-thread own-file device reads/s per backend (x threads).
  std::map<std::string, double> device_reads_per_s = {
      {"arena", 25000}, {"rocksdb", 25000}, {"lmdb", 25000}};
  double jitter = 0.01;

  // A copy of the document these fields describe. The cases of one
  // process build the same few documents again and again (most of them
  // the defaults), so the last ones built are kept and copied: building
  // one was a sixth of a verdict case's time under the sanitizers.
  nlohmann::json Build() const;
  // Build() as text, for the parser.
  std::string Text() const { return Build().dump(1); }

  bool operator==(const ResultsBuilder&) const = default;
};

// The benchmarks[] entry with this exact name; throws if absent.
nlohmann::json& Entry(nlohmann::json& doc, const std::string& name);
// Removes every entry whose name starts with `prefix`; returns how many.
int RemoveEntries(nlohmann::json& doc, const std::string& prefix);
// Splits doc in two, both with doc's context: *with the entries whose name
// starts with `prefix`, *rest the others (one run's results as two files).
void SplitEntries(const nlohmann::json& doc, const std::string& prefix,
                  nlohmann::json* with, nlohmann::json* rest);
// Sets `counter` to `value` on every entry whose name starts with `prefix`.
int SetCounter(nlohmann::json& doc, const std::string& prefix,
               const std::string& counter, double value);
// Sets reads_per_s on every entry whose name starts with `prefix`, and its
// io_efficiency (where it has one) to match; a device entry's adjacent cold
// hit gets it as its device_reads_per_s.
int SetRate(nlohmann::json& doc, const std::string& prefix, double value);
// Multiplies `counter` by `factor` on every entry whose name starts with
// `prefix`.
int ScaleCounter(nlohmann::json& doc, const std::string& prefix,
                 const std::string& counter, double factor);

}  // namespace flatbench::report::testing
