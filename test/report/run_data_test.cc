// Reading and merging bench results: what is malformed (65), missing (66)
// or inconsistent (65, e.g. two datasets mixed).
#include "report/run_data.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "test/crafted_profile.h"
#include "test/report/results_builder.h"
#include "test/temp_dir.h"

namespace flatbench::report {
namespace {

using nlohmann::json;
using testing::ResultsBuilder;
using testing::SplitEntries;

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST_CASE("a built results document parses into every pass",
          "[report][results]") {
  ResultsBuilder b;
  Result<ResultSet> rs = ParseResults(b.Text(), "r.json");
  REQUIRE(rs.ok());
  // 3 backends x 3 modes x 5 (table, kind) x 3 threads x 5 reps, and
  // device cells: 3 backends x 2 cold modes x 2 tables x 3 threads x 5.
  CHECK(rs->passes.size() == 3 * 3 * 5 * 3 * 5 + 3 * 2 * 2 * 3 * 5);
  CHECK(rs->scale() == "full");
  CHECK(rs->Context(results::kFingerprint) == "0123456789abcdef");
  CHECK(rs->Context("flatbench.env.kernel") == "Linux 6.1.0-test x86_64");
  CHECK(rs->Integer("flatbench.env.hardware_threads") == 32);
  CHECK(rs->Bool("flatbench.backend.lmdb.sanity_passed") == true);
  CHECK(rs->settings.at("arena")["block_bytes"] == "4096");
  CHECK(rs->Context("num_cpus") == "32");
}

TEST_CASE("a pass holds each counter its entry carries, NaN for the rest",
          "[report][results]") {
  json doc = ResultsBuilder().Build();
  const std::string name = "lmdb/storage/hit/cold/threads:8/rep:3";
  const json& e = testing::Entry(doc, name);
  Result<ResultSet> rs = ParseResultsDocument(doc, "r.json");
  REQUIRE(rs.ok());
  const Pass* pass = nullptr;
  for (const Pass& p : rs->passes) {
    if (p.Name() == name) pass = &p;
  }
  REQUIRE(pass != nullptr);
  int carried = 0;
  for (const results::Counter& c : results::AllCounters()) {
    CAPTURE(c.name);
    auto it = e.find(std::string(c.name));
    if (it == e.end()) {
      CHECK(std::isnan(pass->Get(c)));
    } else {
      ++carried;
      CHECK(pass->Get(c) == it->get<double>());
    }
  }
  CHECK(carried > 20);
}

TEST_CASE("counter values are kept by the counter's place in the contract",
          "[report][results]") {
  const auto all = results::AllCounters();
  for (size_t i = 0; i < all.size(); ++i) {
    CAPTURE(all[i].name);
    CHECK(results::CounterIndex(all[i].name) == i);
  }
  CHECK_FALSE(results::CounterIndex("no_such_counter").has_value());
  CHECK_FALSE(results::CounterIndex("").has_value());

  CounterValues v;
  for (const auto& c : all) CHECK(std::isnan(v.Get(c.name)));
  v[results::kReadsPerS.name] = 5;
  v[results::kLatP99Ns.name] = 7;
  CHECK(v.Get(results::kReadsPerS.name) == 5);
  CHECK(v.at(*results::CounterIndex(results::kLatP99Ns.name)) == 7);
  v.erase(results::kReadsPerS.name);
  CHECK(std::isnan(v.Get(results::kReadsPerS.name)));
  CHECK(v.Get(results::kLatP99Ns.name) == 7);
  CHECK(std::isnan(v.Get("no_such_counter")));
  CHECK_THROWS_AS(v["no_such_counter"], std::out_of_range);
}

TEST_CASE("google-benchmark aggregate rows are ignored", "[report][results]") {
  json doc = ResultsBuilder().Build();
  json agg = doc["benchmarks"][0];
  agg["run_type"] = "aggregate";
  agg["name"] = "arena/account/hit/cold/threads:1/rep:0_median";
  doc["benchmarks"].push_back(agg);
  Result<ResultSet> rs = ParseResults(doc.dump(), "r.json");
  REQUIRE(rs.ok());
  CHECK(rs->passes.size() == 3 * 3 * 5 * 3 * 5 + 3 * 2 * 2 * 3 * 5);
}

TEST_CASE("names google-benchmark decorates still parse", "[report][results]") {
  json doc = ResultsBuilder().Build();
  testing::Entry(doc, "arena/account/hit/cold/threads:1/rep:0")["name"] =
      "arena/account/hit/cold/iterations:10000/real_time/threads:1/rep:0";
  Result<ResultSet> rs = ParseResults(doc.dump(), "r.json");
  INFO(rs.status().message());
  REQUIRE(rs.ok());
  bool found = false;
  for (const auto& p : rs->passes) {
    found = found || (p.Name() == "arena/account/hit/cold/threads:1/rep:0");
  }
  CHECK(found);
}

TEST_CASE("malformed results are kCorruption naming the file",
          "[report][results]") {
  json doc = ResultsBuilder().Build();
  std::string text;
  std::string expect;
  SECTION("not JSON") {
    text = doc.dump().substr(0, 100);
    expect = "not valid JSON";
  }
  SECTION("no context") {
    doc.erase("context");
    text = doc.dump();
    expect = "context";
  }
  SECTION("no fingerprint") {
    doc["context"].erase("flatbench.fingerprint");
    text = doc.dump();
    expect = "flatbench.fingerprint";
  }
  SECTION("a bad benchmark name") {
    doc["benchmarks"][3]["name"] = "BM_Something/8";
    text = doc.dump();
    expect = "BM_Something/8";
  }
  SECTION("a missing counter") {
    doc["benchmarks"][3].erase("reads_per_s");
    text = doc.dump();
    expect = "reads_per_s";
  }
  SECTION("a counter that is not a number") {
    doc["benchmarks"][3]["lat_p99_ns"] = "fast";
    text = doc.dump();
    expect = "lat_p99_ns";
  }
  Result<ResultSet> rs = ParseResults(text, "bad.json");
  REQUIRE_FALSE(rs.ok());
  CHECK(rs.status().code() == Code::kCorruption);
  CHECK(rs.status().ExitCode() == 65);
  CHECK(rs.status().message().find("bad.json") != std::string::npos);
  CHECK(rs.status().message().find(expect) != std::string::npos);
}

TEST_CASE("a recorded device profile is read with its file",
          "[report][results]") {
  flatbench::testing::TempDir tmp;
  json doc = ResultsBuilder().Build();
  Result<ResultSet> none = ParseResults(doc.dump(), "r.json");
  REQUIRE(none.ok());
  CHECK(none->device_profiles.empty());
  // Split into two files, only the arena's recording a profile.
  json arena, rest;
  SplitEntries(doc, "arena/", &arena, &rest);
  arena["context"]["flatbench.device_profile"] =
      flatbench::testing::CraftedDeviceProfile();
  Write(tmp / "arena.json", arena.dump());
  Write(tmp / "rest.json", rest.dump());
  Result<ResultSet> rs = LoadResults({tmp / "arena.json", tmp / "rest.json"});
  INFO(rs.status().message());
  REQUIRE(rs.ok());
  REQUIRE(rs->device_profiles.size() == 1);
  const DeviceProfile& p = rs->device_profiles.at(tmp / "arena.json");
  CHECK(p.cpus == 2);
  CHECK(p.cells.size() == 12);
  CHECK(p.ReadsPerS(1, 4096) == Approx(1 / 15e-6));
}

TEST_CASE("results of one dataset split across files merge",
          "[report][results]") {
  flatbench::testing::TempDir tmp;
  json doc = ResultsBuilder().Build();
  json arena, rest;
  SplitEntries(doc, "arena/", &arena, &rest);
  Write(tmp / "arena.json", arena.dump());
  Write(tmp / "rest.json", rest.dump());
  Result<ResultSet> rs = LoadResults({tmp / "arena.json", tmp / "rest.json"});
  REQUIRE(rs.ok());
  CHECK(rs->passes.size() == doc["benchmarks"].size());
  CHECK(rs->files.size() == 2);
}

TEST_CASE("results from two datasets are refused with exit 65",
          "[report][results]") {
  flatbench::testing::TempDir tmp;
  ResultsBuilder a;
  ResultsBuilder b;
  a.backends = {"arena"};
  b.backends = {"rocksdb", "lmdb"};
  std::string what;
  SECTION("fingerprint differs") {
    b.fingerprint = "fedcba9876543210";
    what = "fingerprint";
  }
  SECTION("spec differs") {
    b.spec =
        "flatbench-dataset v1 accounts=300000000 slots_per_account=4 "
        "seed=7";
    what = "spec";
  }
  Write(tmp / "a.json", a.Text());
  Write(tmp / "b.json", b.Text());
  Result<ResultSet> rs = LoadResults({tmp / "a.json", tmp / "b.json"});
  REQUIRE_FALSE(rs.ok());
  CHECK(rs.status().ExitCode() == 65);
  CHECK(rs.status().message().find("different runs") != std::string::npos);
  CHECK(rs.status().message().find(what) != std::string::npos);
  CHECK(rs.status().message().find("b.json") != std::string::npos);
}

TEST_CASE("the same pass in two files is refused", "[report][results]") {
  flatbench::testing::TempDir tmp;
  Write(tmp / "a.json", ResultsBuilder().Text());
  Write(tmp / "b.json", ResultsBuilder().Text());
  Result<ResultSet> rs = LoadResults({tmp / "a.json", tmp / "b.json"});
  REQUIRE_FALSE(rs.ok());
  CHECK(rs.status().ExitCode() == 65);
  CHECK(rs.status().message().find("appears twice") != std::string::npos);
}

TEST_CASE("a missing results file is kMissingInput (66)", "[report][results]") {
  flatbench::testing::TempDir tmp;
  Result<ResultSet> rs = LoadResults({tmp / "absent.json"});
  REQUIRE_FALSE(rs.ok());
  CHECK(rs.status().ExitCode() == 66);
  CHECK(rs.status().message().find("absent.json") != std::string::npos);
}

}  // namespace
}  // namespace flatbench::report
