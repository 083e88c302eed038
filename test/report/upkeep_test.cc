// The arena's upkeep as a choice at full scale (report/upkeep.h): the
// report's table of merge intervals, checked against figures worked by
// hand, and the interval where its write amplification meets RocksDB's.
#include "report/upkeep.h"

#include <catch2/catch.hpp>

#include "common/results_schema.h"
#include "dataset/estimate.h"
#include "report/document/document.h"
#include "report/document/markdown.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

using namespace flatbench;
using namespace flatbench::report;
using flatbench::report::testing::ResultsBuilder;
namespace r = flatbench::results;
using nlohmann::json;

namespace {

constexpr char kStream[] =
    " blocks=100 stream_seed=7 changes=2000 shares=250/20/450/230/50 "
    "hot=0/10";

// An aged run: 100 blocks of 2,000 changes that changed 20,000,000 bytes
// (100 bytes a change), the arena merging every 50 blocks at 2M pairs/s
// on a device that writes 500 MB/s; RocksDB and LMDB wrote 21 and 274
// times the bytes changed.
json AgedRun() {
  ResultsBuilder b;
  b.modes = {"cold"};
  b.repetitions = 3;
  b.spec += kStream;
  json doc = b.Build();
  const json common = {{"kind", "aged"},
                       {"blocks", 100},
                       {"from_blocks", 0},
                       {"jobs", 2},
                       {"seconds", 20.0},
                       {"seconds_per_block", 0.2},
                       {"logical_bytes", 20000000},
                       {"disk_bytes", 140000000000},
                       {"live_bytes", 120000000000},
                       {"space_amp", 1.1666},
                       {"device_write_bytes_per_s", 500e6}};
  json arena = common;
  arena["merge_every"] = 50;
  arena["written_bytes"] = 5.4e9;
  arena["write_amp"] = 270.0;
  arena["engine.merges"] = "2";
  arena["engine.merge_pairs_per_s"] = "2000000";
  arena["engine.merge_mb_per_s"] = "180";
  json rocksdb = common;
  rocksdb["written_bytes"] = 4.2e8;
  rocksdb["write_amp"] = 21.0;
  json lmdb = common;
  lmdb["written_bytes"] = 5.48e9;
  lmdb["write_amp"] = 274.0;
  doc["context"][r::BackendKey("arena", r::kShape)] = arena;
  doc["context"][r::BackendKey("rocksdb", r::kShape)] = rocksdb;
  doc["context"][r::BackendKey("lmdb", r::kShape)] = lmdb;
  return doc;
}

std::string Markdown(const json& doc, double drive_tbw) {
  const ResultSet rs = flatbench::report::testing::Parse(doc);
  return RenderMarkdown(BuildDocument(flatbench::report::testing::Judge(doc),
                                      rs, {.drive_tbw = drive_tbw}));
}

}  // namespace

TEST_CASE("the upkeep table prices each merge interval at full scale") {
  // The hand-worked figures take the full scale's arena as the size
  // estimate has it: 300M accounts of 100.625 bytes and 1.2B slots of 84,
  // 130,987,500,000 raw bytes, times the arena's measured 1.056:
  // B = 138,322,800,000 bytes (128.8 GiB).
  REQUIRE(dataset::FiguresOf("arena").disk_factor == 1.056);
  const std::string md = Markdown(AgedRun(), kDefaultDriveTbw);
  INFO(md);
  CHECK_THAT(md, Catch::Contains("## The upkeep as a choice, at full scale "
                                 "(modelled)"));
  CHECK_THAT(md, Catch::Contains("Modelled, not measured"));
  // A merge: 1.5e9 pairs at 2M pairs/s build in 750 s; B at 500 MB/s
  // writes in 277 s; the merge rate binds.
  CHECK_THAT(md, Catch::Contains("builds in 750 s at the merge rate and "
                                 "writes in 277 s"));
  CHECK_THAT(md, Catch::Contains("the merge rate binds"));

  // A week: 50,400 blocks, 100.8M changes (25.2M account updates, 50.4M
  // slot updates and deletions, 25.2M new keys).
  //   delta keys: 300M (1 - e^(-25.2M/300M)) = 24,170,623
  //             + 1.2e9 (1 - e^(-50.4M/1.2e9)) = 49,356,263
  //             + 25,200,000 new = 98,726,886;
  //   memory: 98,726,886 x 100 B = 9.19 GiB; log: 100.8M x 100 B =
  //   10,080,000,000 B = 9.39 GiB;
  //   merge reads B + 9.87e9 = 138 GiB, writes B = 129 GiB, in 750 s;
  //   write amp: (B + 1.008e10) / 1.008e10 = 14.72;
  //   written per second of chain: 148,402,800,000 B / 604,800 s =
  //   245,375 B/s, 0.0491% of 500 MB/s;
  //   drive years: 1.2e15 B / 245,375 B/s / 31,557,600 s = 155.
  CHECK_THAT(md, Catch::Contains(
                     "| arena: merge every 50,400 blocks (7 days) | "
                     "98,726,886 | 9.19 GiB | 9.39 GiB | 138 GiB | 129 GiB | "
                     "750 s | 14.72 | 0.0491% | 155 |"));
  // A day: write amp 1 + B / 1.44e9 = 97.06.
  CHECK_THAT(md,
             Catch::Contains("| arena: merge every 7,200 blocks (1 day) |"));
  CHECK_THAT(md, Catch::Contains("| 97.06 |"));
  // This run's own interval, 50 blocks (10 min): a 750 s merge does not
  // fit in 600 s of chain.
  CHECK_THAT(md, Catch::Contains("| arena: merge every 50 blocks (10 min, "
                                 "this run's interval) |"));
  CHECK_THAT(md, Catch::Contains("750 s, behind the chain"));
  // RocksDB at 21 times 2,000 x 100 B per 12 s: 350,000 B/s, 0.07% of the
  // device, 1.2e15 / 350,000 / 31,557,600 = 109 years.
  CHECK_THAT(md, Catch::Contains("| rocksdb: as aged in this run (measured) "
                                 "| – | – | – | – | – | – | 21.00 | 0.07% | "
                                 "109 |"));

  // Break-even: B / (2,000 x 100 x (21 - 1)) = 34,580.7 blocks, 4.8 days;
  // its delta: 300M (1 - e^(-17,290,350/300M)) + 1.2e9 (1 -
  // e^(-34,580,700/1.2e9)) + 17,290,350 = 68,179,067 keys, 6.35 GiB; its
  // log 6,916,140,000 B = 6.44 GiB.
  CHECK_THAT(md, Catch::Contains(
                     "The arena's write amplification equals rocksdb's 21.00 "
                     "at a merge every 34,581 blocks (4.8 days of chain), "
                     "where its delta holds 68,179,067 keys, 6.35 GiB in "
                     "memory and 6.44 GiB of log."));
  // LMDB: B / (200,000 x 273) = 2,533 blocks, 8.4 h.
  CHECK_THAT(md, Catch::Contains("equals lmdb's 274 at a merge every 2,533 "
                                 "blocks (8.4 h of chain)"));
}

TEST_CASE("the drive's rated endurance sets the drive years") {
  // Half the default's 1,200 TB: half the years, 155 -> 77.5 for a week.
  const std::string md = Markdown(AgedRun(), 600);
  CHECK_THAT(md, Catch::Contains("| 14.72 | 0.0491% | 77.5 |"));
  CHECK_THAT(md, Catch::Contains("how long a drive rated 600 TB written"));
}

TEST_CASE("the break-even interval solves the model") {
  UpkeepInputs in;
  in.full = dataset::MakeSpec("full", 0, 0, 0).value();
  in.base_pairs = 1.5e9;
  in.base_bytes = 1.2e11;
  in.bytes_per_change = 100;
  in.merge_pairs_per_s = 2e6;
  in.device_write_bytes_per_s = 1e9;
  const double m = BreakEvenBlocks(in, 7);
  // 1.2e11 / (2,000 x 100 x 6) = 100,000 blocks, where the model's write
  // amplification is 7 again.
  CHECK(m == Approx(100000));
  CHECK(ArenaUpkeepAt(in, m).write_amp == Approx(7));
  // A store that writes no more than it changes is never met.
  CHECK(std::isnan(BreakEvenBlocks(in, 1.0)));
}

TEST_CASE("distinct keys: repeated draws meet keys again, a hot set more") {
  dataset::Spec at = dataset::MakeSpec("full", 0, 0, 0).value();
  dataset::StreamSpec s;
  // One block: 2,000 changes, next to no repeats.
  CHECK(DistinctKeys(at, s, 1) == Approx(2000).epsilon(1e-4));
  // The stream at 3M x 4 and 825 blocks: 1,595,176 by the model, where the
  // generator's replay counted 1,583,541 (RESEARCH.md section 11).
  at = dataset::MakeSpec("custom", 3000000, 4, 0).value();
  CHECK(DistinctKeys(at, s, 825) == Approx(1595176).epsilon(1e-6));
  // 90% of updates and deletions on 1% of accounts: far fewer keys.
  dataset::StreamSpec hot = s;
  hot.hot_share = 900;
  CHECK(DistinctKeys(at, hot, 825) < 0.8 * DistinctKeys(at, s, 825));
}

TEST_CASE("the stream is read back from the spec text") {
  auto s = StreamOfSpec(std::string("flatbench-dataset v1 accounts=3 "
                                    "slots_per_account=4 seed=42") +
                        kStream);
  REQUIRE(s.has_value());
  CHECK(s->changes_per_block == 2000);
  CHECK(s->slot_deletes == 50);
  CHECK(s->hot_accounts == 10);
  CHECK_FALSE(StreamOfSpec("flatbench-dataset v1 accounts=3").has_value());
  // Shares that do not sum to 1000 are no stream.
  CHECK_FALSE(StreamOfSpec(" changes=2000 shares=1/2/3/4/5 hot=0/10"));
}
