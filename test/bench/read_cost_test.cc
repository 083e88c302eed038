// RocksDB's cold point reads record what they cost in its own counts (its
// perf context, summed over the pass's threads, per read): a hit reads one
// data block (or finds it in the block cache the pass filled) after one
// filter probe, a miss probes a filter and reads a data block only when
// the filter is wrong; the cold open preloads index and filter blocks, the
// lazy one reads them. A warm pass counts nothing.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "common/results_schema.h"
#include "test/bench/tiny_dataset.h"

namespace flatbench::bench {
namespace {

namespace r = flatbench::results;
using nlohmann::json;

// The entry's backend counters; fails the test when it has none.
std::map<std::string, double> Costs(const json& e) {
  const std::string field(r::kEntryBackendCounters);
  REQUIRE(e.contains(field));
  std::map<std::string, double> out;
  for (const auto& [k, v] : e[field].items()) out[k] = v.get<double>();
  return out;
}

// Sum over the levels of per-level counter `c`.
double LevelSum(const std::map<std::string, double>& costs,
                const r::BackendCounter& c) {
  double sum = 0;
  for (const auto& [key, v] : costs) {
    auto parsed = r::ParseBackendCounterKey(key);
    REQUIRE(parsed.has_value());
    if (parsed->level >= 0 && parsed->counter->name == c.name) sum += v;
  }
  return sum;
}

double TotalOf(const std::map<std::string, double>& costs,
               const r::BackendCounter& c) {
  auto it = costs.find(std::string(c.name));
  REQUIRE(it != costs.end());
  return it->second;
}

json RunOne(Worker& w, Mode mode, datagen::KeyKind kind, uint64_t reads) {
  Step step;
  step.backend = "rocksdb";
  step.mode = mode;
  step.cell = {Table::kStorage, kind, 2};
  step.reads_per_thread = reads;
  auto entries = w.RunStep(step);
  REQUIRE(entries.ok());
  REQUIRE(!entries->empty());
  return entries.value().back();
}

TEST_CASE("a cold RocksDB pass records its blocks read and filter probes",
          "[bench][cold][read_cost]") {
  if (!testing::TinyHolds("rocksdb")) {
    WARN("built without RocksDB");
    return;
  }
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  WorkerOptions o;
  o.allow_drop_caches = false;
  o.check.samples = 20;
  Worker w(ds.value(), "rocksdb", testing::TinyOpener(ds.value()), o);
  auto hello = w.Hello();
  REQUIRE(hello.ok());
  // The bulk load's levels at open: ingested into one level, none in L0.
  const json& shape = hello.value()[r::BackendKey("rocksdb", r::kOpenShape)];
  CAPTURE(shape.dump());
  CHECK(shape["storage.l0_files"] == "0");
  const std::string levels = shape["storage.levels"];
  CHECK(levels.rfind("L", 0) == 0);
  CHECK(levels.find(' ') == std::string::npos);  // One level.
  CHECK(std::stod(shape["storage.sst_bytes"].get<std::string>()) > 0);

  SECTION("hits") {
    // 2 x 20 reads of about 1,000 storage data blocks: few repeats.
    const json e = RunOne(w, Mode::kCold, datagen::KeyKind::kHit, 20);
    const auto c = Costs(e);
    CAPTURE(e[std::string(r::kEntryBackendCounters)].dump());
    // One file of one level holds each key: one probe, never wrong.
    CHECK(TotalOf(c, r::kFilterProbes) == Approx(1.0));
    CHECK(TotalOf(c, r::kFilterFalsePositives) == 0);
    CHECK(LevelSum(c, r::kFilterProbes) == Approx(1.0));
    // Each hit reads its data block, or finds it in the block cache when
    // an earlier read of the pass brought it: one block per hit.
    const double data = TotalOf(c, r::kDataBlocksRead);
    CHECK(data >= 0.9);
    CHECK(data + TotalOf(c, r::kBlockCacheHits) == Approx(1.0));
    CHECK(TotalOf(c, r::kBlockCacheMisses) == Approx(data));
    CHECK(LevelSum(c, r::kBlockCacheMisses) == Approx(data));
    // The cold open brought the index and filter blocks.
    CHECK(TotalOf(c, r::kIndexBlocksRead) == 0);
    CHECK(TotalOf(c, r::kFilterBlocksRead) == 0);
  }
  SECTION("misses") {
    const json e = RunOne(w, Mode::kCold, datagen::KeyKind::kMissAbsent, 100);
    const auto c = Costs(e);
    CAPTURE(e[std::string(r::kEntryBackendCounters)].dump());
    // An absent key inside the file's key range is probed; the filter
    // (about 1% false positives) spares almost every data block, and a
    // block is read only where it was wrong.
    CHECK(TotalOf(c, r::kFilterProbes) >= 0.9);
    CHECK(TotalOf(c, r::kFilterProbes) <= 1.0);
    const double fp = TotalOf(c, r::kFilterFalsePositives);
    CHECK(fp <= 0.05);
    CHECK(TotalOf(c, r::kDataBlocksRead) <= fp);
  }
  SECTION("the lazy open reads index and filter blocks on first use") {
    const json e = RunOne(w, Mode::kColdLazy, datagen::KeyKind::kHit, 20);
    const auto c = Costs(e);
    CAPTURE(e[std::string(r::kEntryBackendCounters)].dump());
    const double index = TotalOf(c, r::kIndexBlocksRead);
    const double filter = TotalOf(c, r::kFilterBlocksRead);
    CHECK(index > 0);
    CHECK(filter > 0);
    // Every block read went through the block cache and missed it: the
    // data blocks are those reads less the metadata's.
    CHECK(TotalOf(c, r::kDataBlocksRead) + index + filter ==
          Approx(TotalOf(c, r::kBlockCacheMisses)));
    CHECK(TotalOf(c, r::kDataBlocksRead) >= 0.9);
    CHECK(TotalOf(c, r::kFilterProbes) == Approx(1.0));
  }
  SECTION("a warm pass counts nothing") {
    REQUIRE(w.BeginWarm().ok());
    const json e = RunOne(w, Mode::kWarm, datagen::KeyKind::kHit, 20);
    CHECK_FALSE(e.contains(std::string(r::kEntryBackendCounters)));
    w.EndWarm();
  }
}

}  // namespace
}  // namespace flatbench::bench
