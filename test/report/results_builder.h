#pragma once
// Builds a complete, valid, full-scale bench results document (the JSON
// `flatbench bench` writes, bench/RESULTS_FORMAT.md) that passes every
// default threshold with margin, so each test mutates one thing and sees
// exactly that effect.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace flatbench::report::testing {

struct ResultsBuilder {
  std::string scale = "full";
  std::string spec = "accounts=300000000 slots_per_account=4 seed=42";
  std::string fingerprint = "0123456789abcdef";
  std::string build_type = "release";
  std::string asserts = "off";
  int repetitions = 5;
  std::vector<int> threads = {1, 8, 32};
  std::vector<std::string> backends = {"arena", "rocksdb", "lmdb"};
  std::vector<std::string> modes = {"cold", "warm", "cold-lazy"};
  bool device_row = true;
  // Median single-thread reads/s per backend; each thread count multiplies
  // it, and repetitions spread it by ±1% and ±2% around the exact median.
  // Defaults: arena/rocksdb hit 2.0, arena/lmdb hit 1.0, miss cost 1.0.
  std::map<std::string, double> hit_reads_per_s = {
      {"arena", 20000}, {"rocksdb", 10000}, {"lmdb", 20000}};
  std::map<std::string, double> miss_reads_per_s = {
      {"arena", 100000}, {"rocksdb", 80000}, {"lmdb", 100000}};
  double device_reads_per_s = 25000;

  nlohmann::json Build() const;
  // Build() as text, for the parser.
  std::string Text() const { return Build().dump(1); }
};

// The benchmarks[] entry with this exact name; throws if absent.
nlohmann::json& Entry(nlohmann::json& doc, const std::string& name);
// Removes every entry whose name starts with `prefix`; returns how many.
int RemoveEntries(nlohmann::json& doc, const std::string& prefix);
// Sets `counter` to `value` on every entry whose name starts with `prefix`.
int SetCounter(nlohmann::json& doc, const std::string& prefix,
               const std::string& counter, double value);

}  // namespace flatbench::report::testing
