// What RocksDB's cold reads cost in its own counts (backend_counters on
// the entries), read through the contract: medians per cell for the
// report and the fresh-vs-aged comparison, impossible values refused, and
// the per-cell section's table beside the store's levels.
#include "report/read_cost.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>

#include "common/results_schema.h"
#include "report/document/report.h"
#include "test/report/results_builder.h"
#include "test/temp_dir.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using nlohmann::json;
using testing::ResultsBuilder;

ResultsBuilder ColdOnly() {
  ResultsBuilder b;
  b.modes = {"cold"};
  b.repetitions = 3;
  return b;
}

// A two-level store's hit: a probe in L0 that is wrong, a probe in L6
// that is right, and the data block `data` reads in L6.
json HitCounts(double data) {
  return {{"data_blocks_read", data},
          {"index_blocks_read", 0},
          {"filter_blocks_read", 0},
          {"filter_probes", 1.25},
          {"filter_false_positives", 0.25},
          {"block_cache_misses", data},
          {"block_cache_hits", 1 - data},
          {"L0.filter_probes", 0.25},
          {"L0.filter_false_positives", 0.25},
          {"L0.block_cache_misses", 0},
          {"L6.filter_probes", 1},
          {"L6.filter_false_positives", 0},
          {"L6.block_cache_misses", data}};
}

// Gives every entry of `cell` ("rocksdb/account/hit/cold/threads:8/")
// `counts`, rep R getting data_blocks_read data[R].
void SetCounts(json& doc, const std::string& cell,
               const std::vector<double>& data) {
  for (size_t rep = 0; rep < data.size(); ++rep) {
    testing::Entry(
        doc, cell + "rep:" +
                 std::to_string(rep))[std::string(r::kEntryBackendCounters)] =
        HitCounts(data[rep]);
  }
}

const CellKey kHit8{"rocksdb", "account", "hit", "cold", 8};

TEST_CASE("a cell's read cost is the median of its passes' counts",
          "[report][read_cost]") {
  json doc = ColdOnly().Build();
  SetCounts(doc, "rocksdb/account/hit/cold/threads:8/", {1.0, 0.8, 0.9});
  // One pass reached no L0 file: it counts 0 there.
  json& third = testing::Entry(
      doc, "rocksdb/account/hit/cold/threads:8/rep:2")[std::string(
      r::kEntryBackendCounters)];
  for (const char* key : {"L0.filter_probes", "L0.filter_false_positives",
                          "L0.block_cache_misses"}) {
    third.erase(key);
  }
  auto rs = ParseResults(doc.dump(), "r.json");
  INFO(rs.status().message());
  REQUIRE(rs.ok());
  const ReadCost c = ReadCostOf(rs.value(), kHit8);
  CHECK(c.passes == 3);
  CHECK(c.data_blocks == Approx(0.9));
  CHECK(c.filter_probes == Approx(1.25));
  CHECK(c.filter_false_positives == Approx(0.25));
  CHECK(c.index_blocks == 0);
  REQUIRE(c.levels.size() == 2);
  CHECK(c.levels.at(0).filter_probes == Approx(0.25));  // 0.25, 0.25, 0.
  CHECK(c.levels.at(6).block_cache_misses == Approx(0.9));
  CHECK(PerLevelText(c, &LevelReadCost::filter_probes) == "L0 0.25, L6 1.00");
  // A cell without counts (another backend's) has none.
  const ReadCost none =
      ReadCostOf(rs.value(), {"arena", "account", "hit", "cold", 8});
  CHECK(none.passes == 0);
  CHECK(std::isnan(none.data_blocks));
  CHECK(PerLevelText(none, &LevelReadCost::filter_probes) == "–");
}

TEST_CASE("impossible backend counters are refused, naming the key",
          "[report][read_cost]") {
  const std::string entry = "rocksdb/account/hit/cold/threads:8/rep:1";
  const std::string field(r::kEntryBackendCounters);
  auto refused = [&](const std::function<void(json&)>& edit) {
    json doc = ColdOnly().Build();
    SetCounts(doc, "rocksdb/account/hit/cold/threads:8/", {1, 1, 1});
    edit(testing::Entry(doc, entry)[field]);
    auto rs = ParseResults(doc.dump(), "r.json");
    REQUIRE(rs.status().code() == Code::kCorruption);
    CHECK_THAT(rs.status().message(), Catch::Contains(entry));
    return rs.status().message();
  };
  CHECK_THAT(refused([](json& c) { c["blocks_touched"] = 1; }),
             Catch::Contains("'blocks_touched', not a backend counter"));
  // Per level only where the contract gives a counter per level.
  CHECK_THAT(refused([](json& c) { c["L1.data_blocks_read"] = 1; }),
             Catch::Contains("L1.data_blocks_read"));
  CHECK_THAT(refused([](json& c) { c["data_blocks_read"] = -1; }),
             Catch::Contains("data_blocks_read is negative"));
  CHECK_THAT(refused([](json& c) { c["L0.filter_false_positives"] = 0.5; }),
             Catch::Contains("L0.filter_false_positives 0.5 is above "
                             "L0.filter_probes 0.25"));
  CHECK_THAT(refused([](json& c) { c = json::array(); }),
             Catch::Contains("is not an object"));
}

TEST_CASE("the per-cell section shows the read cost beside the levels",
          "[report][read_cost]") {
  flatbench::testing::TempDir tmp;
  json doc = ColdOnly().Build();
  for (int threads : {1, 8, 32}) {
    SetCounts(
        doc,
        "rocksdb/storage/hit/cold/threads:" + std::to_string(threads) + "/",
        {1.0, 1.0, 1.0});
  }
  json& ctx = doc["context"];
  ctx[r::BackendKey("rocksdb", r::kOpenShape)] = {
      {"account.levels", "L0:2/3000000 L6:4/128000000"},
      {"account.l0_files", "2"},
      {"account.sst_bytes", "131000000"},
      {"storage.levels", "L6:1/64000000"},
      {"storage.l0_files", "0"},
      {"storage.sst_bytes", "64000000"}};
  ctx[r::BackendKey("rocksdb", r::kShape)] = {
      {"kind", "aged"},
      {"blocks", 100},
      {"engine.account.levels", "L0:2/3000000 L6:4/128000000"},
      {"engine.account.l0_files", "2"},
      {"engine.account.sst_bytes", "131000000"},
      {"engine.compaction_bytes_written", "512000000"}};
  const std::string path = tmp / "r.json";
  std::ofstream(path) << doc.dump(1);
  ReportOptions o;
  o.inputs = {path};
  o.out_dir = tmp / "out";
  auto s = WriteReport(o);
  INFO(s.status().message());
  REQUIRE(s.ok());
  const std::string md = flatbench::testing::ReadAll(s->markdown_path);
  CHECK_THAT(md, Catch::Contains("What each cold read cost in the backend's "
                                 "own counts"));
  CHECK_THAT(md, Catch::Contains("| rocksdb | storage hit 8t cold | 1.00 | "
                                 "0.00 | 0.00 | 1.25 | 0.25 | L0 0.25, L6 "
                                 "1.00 | L0 0.25, L6 0.00 | L0 0.00, L6 "
                                 "1.00 |"));
  // Cells without counts have no row.
  CHECK_THAT(md, !Catch::Contains("| rocksdb | account hit 8t cold | 1.00"));
  // The levels as the bench's open found them, and as aging left them,
  // with the compaction bytes aging wrote.
  CHECK_THAT(md, Catch::Contains("| rocksdb | account | the bench's open | "
                                 "L0 2 files, 2.86 MiB; L6 4 files, 122 "
                                 "MiB | 2 | 125 MiB | 488 MiB |"));
  CHECK_THAT(md, Catch::Contains("| rocksdb | storage | the bench's open | "
                                 "L6 1 file, 61 MiB | 0 | 61 MiB | 488 MiB |"));
  CHECK_THAT(md, Catch::Contains("| rocksdb | account | the end of aging |"));
}

}  // namespace
}  // namespace flatbench::report
