// Verdict integrity: each way a sceptical reviewer got a wrong GO or NO-GO
// by editing result files is refused (65) or made INCONCLUSIVE.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>

#include "common/results_schema.h"
#include "report/interval.h"
#include "report/run_data.h"
#include "test/crafted_profile.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"
#include "test/temp_dir.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using nlohmann::json;
using testing::FailedGateNames;
using testing::GateNamed;
using testing::Judge;
using testing::ResultsBuilder;
using testing::SplitEntries;

// Parses `doc` and expects kCorruption whose message names every `part`.
void ExpectRefused(const json& doc, const std::vector<std::string>& parts) {
  Result<ResultSet> rs = ParseResults(doc.dump(), "edited.json");
  REQUIRE_FALSE(rs.ok());
  INFO(rs.status().message());
  CHECK(rs.status().ExitCode() == 65);
  CHECK(rs.status().message().find("edited.json") != std::string::npos);
  for (const auto& p : parts)
    CHECK(rs.status().message().find(p) != std::string::npos);
}

TEST_CASE("another results format version is refused", "[report][integrity]") {
  json doc = ResultsBuilder().Build();
  SECTION("older: no version key") {
    doc["context"].erase("flatbench.results_format");
    ExpectRefused(doc, {"flatbench.results_format", "older", "format 2"});
  }
  SECTION("newer") {
    doc["context"]["flatbench.results_format"] = 3;
    ExpectRefused(doc, {"flatbench.results_format", "3", "format 2"});
  }
  SECTION("as text") {
    doc["context"]["flatbench.results_format"] = "2";
    ExpectRefused(doc, {"flatbench.results_format"});
  }
}

TEST_CASE("impossible values are refused naming benchmark and counter",
          "[report][integrity]") {
  json doc = ResultsBuilder().Build();
  const std::string name = "arena/storage/hit/cold/threads:8/rep:2";
  json& e = testing::Entry(doc, name);
  std::string counter;
  SECTION("reads/s of -1") { e[counter = "reads_per_s"] = -1; }
  SECTION("reads/s of 0") { e[counter = "reads_per_s"] = 0; }
  SECTION("reads/s of 1e300") { e[counter = "reads_per_s"] = 1e300; }
  SECTION("reads/s above 100M per thread") {
    e[counter = "reads_per_s"] = 8e8 * 1.01;
  }
  SECTION("reads/s not a number (NaN is written as null)") {
    e[counter = "reads_per_s"] = std::nan("");
  }
  SECTION("zero latency") { e[counter = "lat_p50_ns"] = 0; }
  SECTION("percentiles out of order") { e[counter = "lat_p999_ns"] = 1; }
  SECTION("zero open time") { e[counter = "open_seconds"] = 0; }
  SECTION("negative major faults") {
    e[counter = "major_faults_per_read"] = -0.5;
  }
  SECTION("negative minor faults") {
    e[counter = "minor_faults_per_read"] = -1;
  }
  SECTION("negative bytes read") { e[counter = "bytes_read_per_read"] = -1; }
  SECTION("zero CPU per read") { e[counter = "cpu_ns_per_read"] = 0; }
  SECTION("negative preloaded bytes") {
    e[counter = "preloaded_bytes"] = -4096;
  }
  SECTION("a resident fraction above 1") {
    e[counter = "resident_fraction_after_eviction"] = 1.5;
  }
  SECTION("a flag that is not 0 or 1") { e[counter = "storage_bound"] = 0.5; }
  SECTION("hits found fewer keys than were read") {
    e[counter = "found_fraction"] = 0.999;
  }
  SECTION("distinct keys differ from the reads made") {
    e[counter = "distinct_keys"] = 79999;
  }
  SECTION("thread counter differs from the name") {
    e[counter = "threads"] = 4;
  }
  SECTION("peak in flight above the thread count") {
    e[counter = "peak_inflight"] = 9;
  }
  SECTION("a required counter missing") { e.erase(counter = "mean_inflight"); }
  SECTION("I/O efficiency that is not reads/s over the device rate") {
    e[counter = "io_efficiency"] = 0.99;
  }
  SECTION("I/O efficiency without the device rate") {
    e.erase("device_reads_per_s");
    counter = "io_efficiency";
  }
  SECTION("two passes at one schedule position") {
    e[counter = "pass_order"] = testing::Entry(
        doc, "lmdb/account/hit/warm/threads:1/rep:0")["pass_order"];
  }
  CAPTURE(counter);
  ExpectRefused(doc, {name, counter});
}

// RESULTS_FORMAT.md: within one pass the mean in flight is the time
// average of the count whose maximum is the peak.
TEST_CASE("a pass whose mean in flight is above its peak is refused",
          "[report][integrity]") {
  json doc = ResultsBuilder().Build();
  const std::string name = "rocksdb/account/hit/cold/threads:32/rep:1";
  json& e = testing::Entry(doc, name);
  e["peak_inflight"] = 14;
  e["mean_inflight"] = 29;
  ExpectRefused(doc, {"benchmark '" + name + "'",
                      "mean_inflight 29 is above peak_inflight 14"});
  e["mean_inflight"] = 14;  // At the peak: every thread read throughout.
  Result<ResultSet> rs = ParseResults(doc.dump(), "edited.json");
  INFO(rs.status().message());
  CHECK(rs.ok());
}

TEST_CASE("every backend negative in one cell is refused",
          "[report][integrity]") {
  json doc = ResultsBuilder().Build();
  for (const char* b : {"arena", "rocksdb", "lmdb"}) {
    testing::ScaleCounter(doc, std::string(b) + "/account/miss-absent/cold/",
                          "reads_per_s", -1);
  }
  ExpectRefused(doc, {"account/miss-absent/cold", "reads_per_s"});
}

TEST_CASE("a misses found fraction above 0 is refused", "[report][integrity]") {
  json doc = ResultsBuilder().Build();
  testing::Entry(
      doc, "rocksdb/storage/miss-live/cold/threads:1/rep:0")["found_fraction"] =
      0.01;
  ExpectRefused(doc, {"rocksdb/storage/miss-live/cold/threads:1/rep:0",
                      "found_fraction"});
}

TEST_CASE("a missing provenance field is an error, not a pass",
          "[report][integrity]") {
  json doc = ResultsBuilder().Build();
  std::vector<std::string> keys;
  for (const r::ContextKey& k : r::AllContextKeys()) {
    if (k.provenance) keys.emplace_back(k.name);
  }
  auto key = GENERATE_COPY(from_range(keys));
  CAPTURE(key);
  doc["context"].erase(key);
  ExpectRefused(doc, {key});
}

TEST_CASE("mistyped context values are refused", "[report][integrity]") {
  json doc = ResultsBuilder().Build();
  std::string key;
  SECTION("hardware threads as text") {
    doc["context"][key = "flatbench.env.hardware_threads"] = "32";
  }
  SECTION("sanity as the old text") {
    doc["context"][key = "flatbench.backend.lmdb.sanity_passed"] =
        "passed (2000 keys)";
  }
  SECTION("settings as a JSON string") {
    doc["context"][key = "flatbench.backend.arena.settings"] = "{\"a\": 1}";
  }
  SECTION("a per-backend key missing") {
    doc["context"].erase(key = "flatbench.backend.rocksdb.disk_bytes");
  }
  SECTION("a recorded device profile that is not an object") {
    doc["context"][key = "flatbench.device_profile"] = "fast";
  }
  ExpectRefused(doc, {key});
}

TEST_CASE("a recorded device profile is checked by its own contract",
          "[report][integrity]") {
  json doc = ResultsBuilder().Build();
  json profile = flatbench::testing::CraftedDeviceProfile();
  profile.erase("cpus");
  doc["context"]["flatbench.device_profile"] = profile;
  ExpectRefused(doc, {"flatbench.device_profile", "\"cpus\""});
  profile = flatbench::testing::CraftedDeviceProfile();
  profile["cells"].erase(profile["cells"].begin());
  doc["context"]["flatbench.device_profile"] = profile;
  ExpectRefused(doc, {"flatbench.device_profile", "queue depth 1 and 4096"});
}

// Splits one run into an arena file and a baselines file, changes `key`
// in the second, and expects the merge to name the key and both values.
TEST_CASE("files from another host, disk, build or run are refused",
          "[report][integrity]") {
  flatbench::testing::TempDir tmp;
  json doc = ResultsBuilder().Build();
  std::vector<std::string> keys;
  for (const r::ContextKey& k : r::AllContextKeys()) {
    if (k.provenance && k.name != r::kResultsFormat.name) {
      keys.emplace_back(k.name);
    }
  }
  auto key = GENERATE_COPY(from_range(keys));
  CAPTURE(key);
  json arena, rest;
  SplitEntries(doc, "arena/", &arena, &rest);
  json& v = rest["context"][key];
  std::string before = v.is_string() ? v.get<std::string>() : v.dump();
  if (v.is_string()) {
    v = v.get<std::string>() + "-other";
  } else if (v.is_boolean()) {
    v = !v.get<bool>();
  } else if (v.is_number_integer()) {
    v = v.get<int64_t>() + 1;
  } else {
    v = v.get<double>() * 2;
  }
  std::string after = v.is_string() ? v.get<std::string>() : v.dump();
  std::ofstream(tmp / "arena.json") << arena.dump();
  std::ofstream(tmp / "rest.json") << rest.dump();
  Result<ResultSet> rs = LoadResults({tmp / "arena.json", tmp / "rest.json"});
  REQUIRE_FALSE(rs.ok());
  INFO(rs.status().message());
  CHECK(rs.status().ExitCode() == 65);
  for (const std::string& part :
       {key, before, after, std::string("rest.json")}) {
    CHECK(rs.status().message().find(part) != std::string::npos);
  }
}

TEST_CASE("a scale claimed but not shown is INCONCLUSIVE",
          "[report][integrity]") {
  ResultsBuilder b;
  std::string detail;
  SECTION("smoke-sized counts claimed as full") {
    b.accounts = 100000;
    b.slots_per_account = 5;
    b.spec = "flatbench-dataset v1 accounts=100000 slots_per_account=5 seed=42";
    detail = "counts are not full's";
  }
  SECTION("smoke-sized files claimed as full") {
    b.disk_bytes = 20000000;
    detail = "on disk";
  }
  SECTION("files larger than the full estimate") {
    b.disk_bytes = 400000000000;
    detail = "on disk";
  }
  Verdict v = Judge(b.Build());
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) == std::vector<std::string>{"gate scale"});
  const Gate& g = GateNamed(v, "gate scale");
  REQUIRE_FALSE(g.details.empty());
  CHECK(g.details.front().find(detail) != std::string::npos);
}

TEST_CASE(
    "a host with fewer hardware threads than the largest thread count "
    "is INCONCLUSIVE",
    "[report][integrity]") {
  ResultsBuilder b;
  b.hardware_threads = 2;
  Verdict v = Judge(b.Build());
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) ==
        std::vector<std::string>{"host hardware threads"});
  b.hardware_threads = 32;
  CHECK(Judge(b.Build()).outcome == Outcome::kGo);
}

TEST_CASE("a ratio whose interval contains the bound is within noise",
          "[report][integrity]") {
  ResultsBuilder b;
  b.jitter = 0.05;                    // Repetitions at ±5% and ±10%.
  b.hit_reads_per_s["lmdb"] = 15000;  // arena/lmdb stays clear of 0.85.
  SECTION("median just above the bound: not GO") {
    b.hit_reads_per_s["arena"] = 18200;  // 1.82 x RocksDB.
    Verdict v = Judge(b.Build());
    CHECK(v.Valid());
    CHECK(v.provisional == Outcome::kGo);
    CHECK(v.outcome == Outcome::kInconclusive);
    CHECK(v.NoisyChecks().size() == 6);
    CHECK(v.reason.find("within noise") != std::string::npos);
    for (const RatioCheck* c : v.NoisyChecks()) {
      CHECK(c->interval.low < 1.8);
      CHECK(c->interval.high > 1.8);
      CHECK(c->threshold.baseline == "rocksdb");
    }
  }
  SECTION("median just below the bound: not NO-GO") {
    b.hit_reads_per_s["arena"] = 17800;
    Verdict v = Judge(b.Build());
    CHECK(v.provisional == Outcome::kNoGo);
    CHECK(v.outcome == Outcome::kInconclusive);
  }
  SECTION("far from the bound the same spread still decides") {
    b.hit_reads_per_s["arena"] = 24000;  // 2.4 x RocksDB, 1.6 x LMDB.
    Verdict v = Judge(b.Build());
    CHECK(v.NoisyChecks().empty());
    CHECK(v.outcome == Outcome::kGo);
    b.hit_reads_per_s["arena"] = 14000;  // 1.4 x RocksDB, 1.4 x LMDB.
    b.hit_reads_per_s["lmdb"] = 10000;
    CHECK(Judge(b.Build()).outcome == Outcome::kNoGo);
  }
}

TEST_CASE("the bootstrap interval brackets the ratio and is reproducible",
          "[report][integrity]") {
  std::vector<double> x{98, 99, 100, 101, 102}, y{49, 49.5, 50, 50.5, 51};
  Interval a = BootstrapRatioOfMedians(x, y);
  Interval b = BootstrapRatioOfMedians(x, y);
  CHECK(a.low == b.low);
  CHECK(a.high == b.high);
  CHECK(a.low < 2.0);
  CHECK(a.high > 2.0);
  CHECK(a.low >= 98.0 / 51);
  CHECK(a.high <= 102.0 / 49);
  // The bounds these repetitions have always had, so that a recorded
  // report reproduces: the median of each resample is that of its sorted
  // draws, however it is found.
  CHECK(a.low == 99.0 / 51);
  CHECK(a.high == 102.0 / 49.5);
  // An even count of unsorted, tied values beside an odd one.
  Interval even = BootstrapRatioOfMedians({101, 98, 102, 99, 100, 100},
                                          {50.5, 49, 51, 50, 49.5, 50, 52});
  CHECK(even.low == 98.5 / 50.5);
  CHECK(even.high == 100.5 / 49.5);
  Interval flat = BootstrapRatioOfMedians({3, 3, 3}, {2, 2, 2});
  CHECK(flat.low == 1.5);
  CHECK(flat.high == 1.5);
  CHECK_FALSE(flat.Contains(1.5));
}

TEST_CASE("storage that serves one backend's files faster is INCONCLUSIVE",
          "[report][integrity]") {
  ResultsBuilder b;
  SECTION("at 1.30 x") { b.device_reads_per_s["lmdb"] = 32500; }
  SECTION("at 1/1.30 x") { b.device_reads_per_s["arena"] = 25000 / 1.3; }
  Verdict v = Judge(b.Build());
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) == std::vector<std::string>{"storage uniformity"});
  const Gate& g = GateNamed(v, "storage uniformity");
  CHECK(g.figure.find("1.300") != std::string::npos);
  CHECK(g.figure.find("recently written") != std::string::npos);
  REQUIRE_FALSE(g.details.empty());
  CHECK(g.details.front().find("account at 1 threads") != std::string::npos);
}

TEST_CASE("a spread exactly at the bound passes", "[report][integrity]") {
  ResultsBuilder b;
  b.jitter = 0;
  b.device_reads_per_s["rocksdb"] = 25000 * 1.25;
  CHECK(Judge(b.Build()).outcome == Outcome::kGo);
}

TEST_CASE("device rates drifting over the run are INCONCLUSIVE",
          "[report][integrity]") {
  auto doc = ResultsBuilder().Build();
  // LMDB's files read 30% faster in its last repetition than its first;
  // its cold hits copy their adjacent device cell's rate.
  for (auto& e : doc["benchmarks"]) {
    std::string n = e["name"];
    if (n.rfind("lmdb/", 0) != 0 || n.find("/rep:4") == std::string::npos) {
      continue;
    }
    const double f = 1.3 / 1.02 * 0.98;
    if (n.find("/device/cold/") != std::string::npos) {
      e["reads_per_s"] = e["reads_per_s"].get<double>() * f;
    }
    if (n.find("/hit/cold/") != std::string::npos) {
      e["device_reads_per_s"] = e["device_reads_per_s"].get<double>() * f;
      e["io_efficiency"] = e["reads_per_s"].get<double>() /
                           e["device_reads_per_s"].get<double>();
    }
  }
  Verdict v = Judge(doc);
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) == std::vector<std::string>{"device drift"});
  CHECK(GateNamed(v, "device drift").details.front().find("lmdb") !=
        std::string::npos);
}

}  // namespace
}  // namespace flatbench::report
