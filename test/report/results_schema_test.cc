// The results contract (common/results_schema.h): the cell-name grammar,
// the counter and context tables, and bench/RESULTS_FORMAT.md against them.
#include "common/results_schema.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "common/backend.h"
#include "common/results_meanings.h"
#include "common/results_ops.h"

namespace flatbench::results {
namespace {

TEST_CASE("cell names round-trip through format and parse",
          "[report][schema]") {
  CellName c{"arena", "storage", "miss-live", "cold-lazy", 32, 4};
  std::string name = FormatCellName(c);
  CHECK(name == "arena/storage/miss-live/cold-lazy/threads:32/rep:4");
  auto p = ParseCellName(name);
  REQUIRE(p.has_value());
  CHECK(p->backend == "arena");
  CHECK(p->table == "storage");
  CHECK(p->kind == "miss-live");
  CHECK(p->mode == "cold-lazy");
  CHECK(p->threads == 32);
  CHECK(p->rep == 4);
  auto d = ParseCellName("lmdb/account/device/cold/threads:8/rep:0");
  REQUIRE(d.has_value());
  CHECK(d->kind == "device");
}

TEST_CASE("google-benchmark decorations before threads:N still parse",
          "[report][schema]") {
  auto p = ParseCellName(
      "rocksdb/account/hit/warm/iterations:100/real_time/threads:1/rep:0");
  REQUIRE(p.has_value());
  CHECK(p->mode == "warm");
  CHECK(p->threads == 1);
}

TEST_CASE("names outside the grammar do not parse", "[report][schema]") {
  auto bad = GENERATE(as<std::string>{}, "", "BM_Something/8",
                      "arena/account/hit/cold/threads:8",
                      "arena/account/hit/cold/rep:0/threads:8",
                      "arena/raw/hit/cold/threads:8/rep:0",
                      "device/raw/hit/cold/threads:8/rep:0",
                      "arena/account/hot/cold/threads:8/rep:0",
                      "arena/account/hit/tepid/threads:8/rep:0",
                      "arena/account/miss-live/cold/threads:8/rep:0",
                      "arena/account/device/warm/threads:8/rep:0",
                      "arena/account/hit/cold/threads:0/rep:0",
                      "arena/account/hit/cold/threads:-1/rep:0",
                      "arena/account/hit/cold/threads:8/rep:x",
                      "arena/account/hit/cold/threads:9999999/rep:0",
                      "Arena/account/hit/cold/threads:8/rep:0",
                      "arena/account/hit/cold//threads:8/rep:0");
  CAPTURE(bad);
  CHECK_FALSE(ParseCellName(bad).has_value());
}

TEST_CASE("every name in the contract is spelled once", "[report][schema]") {
  std::set<std::string_view> names;
  for (const auto& c : AllCounters()) CHECK(names.insert(c.name).second);
  for (const auto& k : AllContextKeys()) {
    CHECK(names.insert(k.name).second);
    CHECK(k.name.substr(0, 10) == "flatbench.");
  }
  std::set<std::string_view> backend;
  for (const auto& k : AllBackendContextKeys()) {
    CHECK(backend.insert(k.name).second);
  }
  CHECK(BackendKey("lmdb", kSanityPassed) ==
        "flatbench.backend.lmdb.sanity_passed");
}

TEST_CASE("the table enum's names are the contract's", "[report][schema]") {
  // common/backend.h spells the table names once more (its TableName is
  // inline in a header every backend includes); this holds the two equal.
  CHECK(std::string_view(TableName(Table::kAccount)) == kTableAccount);
  CHECK(std::string_view(TableName(Table::kStorage)) == kTableStorage);
  for (std::string_view name : kTables) {
    Table t;
    REQUIRE(ParseTable(name, &t));
    CHECK(TableName(t) == name);
  }
  Table t;
  CHECK_FALSE(ParseTable("accounts", &t));
}

TEST_CASE("counters are expected where the contract says", "[report][schema]") {
  CHECK(CounterExpected(kReadsPerS, kKindDevice, kModeCold));
  CHECK(CounterExpected(kReadsPerS, kKindHit, kModeWarm));
  CHECK_FALSE(CounterExpected(kOpenSeconds, kKindDevice, kModeCold));
  CHECK(CounterExpected(kResidentFractionAfterEviction, kKindMissLive,
                        kModeColdLazy));
  CHECK_FALSE(
      CounterExpected(kResidentFractionAfterEviction, kKindHit, kModeWarm));
  CHECK(CounterExpected(kLockedBytes, kKindHit, kModeWarm));
  CHECK_FALSE(CounterExpected(kLockedBytes, kKindHit, kModeCold));
  // Only beside measured device cells, so never required.
  CHECK_FALSE(CounterExpected(kIoEfficiency, kKindHit, kModeCold));
  CHECK_FALSE(CounterExpected(kIoEfficiency, kKindMissAbsent, kModeCold));
  CHECK_FALSE(CounterExpected(kIoEfficiency, kKindHit, kModeWarm));
  CHECK(CounterExpected(kDeviceFileBytes, kKindDevice, kModeColdLazy));
  CHECK_FALSE(CounterExpected(kBytesReadPerRead, kKindHit, kModeCold));
  // Written by every pass since it exists, absent from older results.
  CHECK_FALSE(CounterExpected(kCpuNsPerRead, kKindHit, kModeWarm));
  CHECK_FALSE(CounterExpected(kCpuNsPerRead, kKindDevice, kModeCold));
}

TEST_CASE("scan and startup cells: names and expected counters",
          "[report][schema]") {
  auto s = ParseCellName("sqlite/storage/scan/cold-lazy/threads:8/rep:1");
  REQUIRE(s.has_value());
  CHECK(s->kind == kKindScan);
  auto u = ParseCellName("postgres/account/startup/warm/threads:1/rep:0");
  REQUIRE(u.has_value());
  CHECK(u->kind == kKindStartup);
  // Startup opens the whole backend once: one thread, the account table.
  CHECK_FALSE(ParseCellName("arena/storage/startup/cold/threads:1/rep:0"));
  CHECK_FALSE(ParseCellName("arena/account/startup/cold/threads:8/rep:0"));

  CHECK(CounterExpected(kReadsPerS, kKindScan, kModeCold));
  CHECK(CounterExpected(kEntriesPerS, kKindScan, kModeWarm));
  CHECK(CounterExpected(kLockedBytes, kKindScan, kModeWarm));
  CHECK_FALSE(CounterExpected(kIoEfficiency, kKindScan, kModeCold));
  CHECK_FALSE(CounterExpected(kEntriesPerS, kKindHit, kModeCold));
  CHECK(CounterExpected(kStartupS, kKindStartup, kModeWarm));
  CHECK(CounterExpected(kOpenSeconds, kKindStartup, kModeCold));
  CHECK(
      CounterExpected(kResidentFractionAfterEviction, kKindStartup, kModeCold));
  CHECK_FALSE(
      CounterExpected(kResidentFractionAfterEviction, kKindStartup, kModeWarm));
  CHECK_FALSE(CounterExpected(kReadsPerS, kKindStartup, kModeCold));
  CHECK_FALSE(CounterExpected(kStartupS, kKindScan, kModeCold));
}

TEST_CASE("batch cells: names and expected counters", "[report][schema]") {
  for (const char* name : {"arena/storage/batch/cold/threads:2/rep:1",
                           "lmdb/account/batch/warm/threads:64/rep:0",
                           "rocksdb/account/batch/cold-lazy/threads:1/rep:3"}) {
    CAPTURE(name);
    auto b = ParseCellName(name);
    REQUIRE(b.has_value());
    CHECK(b->kind == kKindBatch);
  }
  // Every read counter, per call, and the batch's own.
  CHECK(CounterExpected(kReadsPerS, kKindBatch, kModeWarm));
  CHECK(CounterExpected(kDistinctKeys, kKindBatch, kModeCold));
  CHECK(CounterExpected(kResidentFractionAfterEviction, kKindBatch,
                        kModeColdLazy));
  CHECK(CounterExpected(kLockedBytes, kKindBatch, kModeWarm));
  CHECK(CounterExpected(kBatchSize, kKindBatch, kModeCold));
  CHECK(CounterExpected(kKeysPerS, kKindBatch, kModeWarm));
  // What the host may not measure is never required.
  for (const Counter& c :
       {kCpuNsPerKey, kStorageReadsPerKey, kIoDepthMax, kIoDepthMean,
        kIoDepthSource, kBatchDeviceReadsPerS, kBatchIoEfficiency}) {
    CAPTURE(c.name);
    CHECK(BatchCounterOptional(c));
    CHECK_FALSE(CounterExpected(c, kKindBatch, kModeCold));
  }
  CHECK_FALSE(BatchCounterOptional(kKeysPerS));
  // The point reads' device figures are not the batch's.
  CHECK_FALSE(CounterExpected(kIoEfficiency, kKindBatch, kModeCold));
  CHECK_FALSE(CounterExpected(kKeysPerS, kKindHit, kModeCold));
  CHECK_FALSE(CounterExpected(kBatchSize, kKindScan, kModeCold));
}

}  // namespace
}  // namespace flatbench::results

namespace flatbench::results {
namespace {

// The rows of every markdown table whose header starts with `first`:
// backticked first cell -> the other cells, trimmed.
std::map<std::string, std::vector<std::string>> DocTable(
    const std::string& text, const std::string& first) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) != 0) {
      inside = false;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
      cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
    }
    if (cells.empty()) continue;
    if (cells[0] == first) {
      inside = true;
      continue;
    }
    if (!inside || cells[0].rfind("`", 0) != 0) continue;
    std::string name = cells[0].substr(1, cells[0].size() - 2);
    cells.erase(cells.begin());
    out[name] = cells;
  }
  return out;
}

std::string WhereText(uint32_t where) {
  std::string out;
  for (auto [bit, word] : {std::pair{kOnRead, "read"},
                           {kOnCold, "cold"},
                           {kOnWarm, "warm"},
                           {kOnColdHit, "cold hit"},
                           {kOnDevice, "device"},
                           {kOnScan, "scan"},
                           {kOnStartup, "startup"},
                           {kOnBatch, "batch"},
                           {kOnWriting, "writing"}}) {
    if (where & bit) out += (out.empty() ? "" : ", ") + std::string(word);
  }
  return out;
}

// Every name of `names` has exactly one meaning in `meanings`, and
// `meanings` names nothing else.
template <typename Item>
void CheckOneMeaningEach(std::span<const Item> names,
                         std::span<const Meaning> meanings) {
  std::map<std::string, int> count;
  for (const Meaning& m : meanings) {
    CAPTURE(m.name);
    CHECK_FALSE(m.text.empty());
    ++count[std::string(m.name)];
  }
  CHECK(count.size() == names.size());
  for (const Item& item : names) {
    CAPTURE(item.name);
    CHECK(count[std::string(item.name)] == 1);
  }
}

TEST_CASE("the contract gives every name exactly one meaning",
          "[report][schema]") {
  CheckOneMeaningEach(AllCounters(), CounterMeanings());
  CheckOneMeaningEach(AllContextKeys(), ContextKeyMeanings());
  CheckOneMeaningEach(AllBackendContextKeys(), BackendKeyMeanings());
  CHECK(MeaningOf(kMeanInflight).find("read-loop span") !=
        std::string_view::npos);
  CHECK(MeaningOf(ContextKey{"flatbench.no_such_key", Type::kText, false})
            .empty());
}

TEST_CASE(
    "RESULTS_FORMAT.md lists exactly the contract's names, types and meanings",
    "[report][schema]") {
  std::ifstream in(FLATBENCH_SOURCE_ROOT "/bench/RESULTS_FORMAT.md");
  REQUIRE(in);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text.find("results format " + std::to_string(kFormatVersion)) !=
        std::string::npos);

  auto counters = DocTable(text, "counter");
  CHECK(counters.size() == AllCounters().size());
  for (const Counter& c : AllCounters()) {
    CAPTURE(c.name);
    auto it = counters.find(std::string(c.name));
    REQUIRE(it != counters.end());
    REQUIRE(it->second.size() == 3);
    CHECK(it->second[0] == TypeName(c.type));
    CHECK(it->second[1] == WhereText(c.where));
    CHECK(it->second[2] == MeaningOf(c));
  }

  auto run = DocTable(text, "key");
  std::map<std::string, std::vector<std::string>> run_keys, backend_keys;
  for (auto& [name, cells] : run) {
    (name.rfind("flatbench.", 0) == 0 ? run_keys : backend_keys)[name] = cells;
  }
  CHECK(run_keys.size() == AllContextKeys().size());
  for (const ContextKey& k : AllContextKeys()) {
    CAPTURE(k.name);
    auto it = run_keys.find(std::string(k.name));
    REQUIRE(it != run_keys.end());
    REQUIRE(it->second.size() == 3);
    CHECK(it->second[0] == TypeName(k.type));
    CHECK(it->second[1] == (k.provenance ? "yes" : "no"));
    CHECK(it->second[2] == MeaningOf(k));
  }
  CHECK(backend_keys.size() == AllBackendContextKeys().size());
  for (const BackendContextKey& k : AllBackendContextKeys()) {
    CAPTURE(k.name);
    auto it = backend_keys.find(std::string(k.name));
    REQUIRE(it != backend_keys.end());
    REQUIRE(it->second.size() == 3);
    CHECK(it->second[0] == TypeName(k.type));
    CHECK(it->second[1] == (k.always ? "yes" : "no"));
    CHECK(it->second[2] == MeaningOf(k));
  }
}

}  // namespace
}  // namespace flatbench::results

namespace flatbench::results {
namespace {

TEST_CASE("backend counter keys: a name, or a level and a per-level name",
          "[report][schema]") {
  auto total = ParseBackendCounterKey("data_blocks_read");
  REQUIRE(total.has_value());
  CHECK(total->level == -1);
  CHECK(total->counter->name == kDataBlocksRead.name);
  auto level = ParseBackendCounterKey(LevelCounterName(6, kFilterProbes));
  REQUIRE(level.has_value());
  CHECK(level->level == 6);
  CHECK(level->counter->name == kFilterProbes.name);
  CHECK(LevelCounterName(0, kFilterFalsePositives) ==
        "L0.filter_false_positives");
  auto bad = GENERATE(as<std::string>{}, "", "L6.", "L.filter_probes",
                      "L-1.filter_probes", "L100.filter_probes",
                      "Lx.filter_probes", "L1.data_blocks_read",
                      "l1.filter_probes", "filter_probe", "L1filter_probes");
  CAPTURE(bad);
  CHECK_FALSE(ParseBackendCounterKey(bad).has_value());
}

TEST_CASE("RESULTS_FORMAT.md lists the backend counters and their meanings",
          "[report][schema]") {
  CheckOneMeaningEach(std::span<const BackendCounter>(kBackendCounters),
                      BackendCounterMeanings());
  std::ifstream in(FLATBENCH_SOURCE_ROOT "/bench/RESULTS_FORMAT.md");
  REQUIRE(in);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  auto rows = DocTable(text, "backend counter");
  CHECK(rows.size() == std::size(kBackendCounters));
  for (const BackendCounter& c : kBackendCounters) {
    CAPTURE(c.name);
    auto it = rows.find(std::string(c.name));
    REQUIRE(it != rows.end());
    REQUIRE(it->second.size() == 2);
    CHECK(it->second[0] == (c.per_level ? "yes" : "no"));
    CHECK(it->second[1] == MeaningOf(c));
  }
}

}  // namespace
}  // namespace flatbench::results
