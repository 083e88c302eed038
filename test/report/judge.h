#pragma once
// Test helpers: parse a constructed results document and judge it against
// the built-in (checked-in) thresholds.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_data.h"
#include "report/thresholds.h"
#include "report/verdict/verdict.h"

namespace flatbench::report::testing {

// The document is read as parsed JSON, not as text: serialising tens of
// thousands of values only to parse them again was half of what reading
// a crafted document cost under the sanitizers. The refusals that depend
// on the text (NaN written as null) read it as text (integrity_test.cc,
// run_data_test.cc).
inline ResultSet Parse(const nlohmann::json& doc,
                       const std::string& file = "results.json") {
  Result<ResultSet> rs = ParseResultsDocument(doc, file);
  INFO(rs.status().message());
  REQUIRE(rs.ok());
  return std::move(rs).value();
}

// What the parser says of `doc` read as `file`: ok, or why it refuses it.
inline Status ParseStatus(const nlohmann::json& doc,
                          const std::string& file = "results.json") {
  return ParseResultsDocument(doc, file).status();
}

// One check, arena over RocksDB on cold hit reads/s at bound 1.8, at
// `threads` on `tables`: the thresholds the prediction tests judge crafted
// sweeps by.
inline Thresholds ArenaOverRocksDbHits(std::vector<int> threads,
                                       const std::vector<std::string>& tables) {
  Thresholds th;
  th.candidate = "arena";
  th.threads = std::move(threads);
  for (const auto& table : tables) th.cells[table] = {"hit"};
  RatioThreshold check;
  check.name = "arena/rocksdb cold hit reads/s";
  check.metric = Metric::kHitReadsPerS;
  check.baseline = "rocksdb";
  check.bound = 1.8;
  th.checks = {check};
  return th;
}

inline Thresholds Defaults() {
  Result<Thresholds> t = BuiltInThresholds();
  INFO(t.status().message());
  REQUIRE(t.ok());
  return std::move(t).value();
}

inline Verdict Judge(const nlohmann::json& doc) {
  return ComputeVerdict(Parse(doc), Defaults());
}

// The gate with this name; fails the test if there is none.
inline const Gate& GateNamed(const Verdict& v, const std::string& name) {
  for (const auto& g : v.gates) {
    if (g.name == name) return g;
  }
  FAIL("no gate named " << name);
  return v.gates.front();
}

// The hit check of the candidate against `baseline` for `table` at
// `threads`; fails the test if there is none.
inline const RatioCheck& HitCheck(const Verdict& v, const std::string& baseline,
                                  const std::string& table, int threads) {
  for (const auto& c : v.checks) {
    if (c.threshold.metric == Metric::kHitReadsPerS &&
        c.baseline.backend == baseline && c.candidate.table == table &&
        c.candidate.threads == threads) {
      return c;
    }
  }
  FAIL("no hit check against " << baseline << " for " << table << " at "
                               << threads);
  return v.checks.front();
}

// Names of the failed gates, for messages and exact-set checks.
inline std::vector<std::string> FailedGateNames(const Verdict& v) {
  std::vector<std::string> out;
  for (const Gate* g : v.FailedGates()) out.push_back(g->name);
  return out;
}

}  // namespace flatbench::report::testing
