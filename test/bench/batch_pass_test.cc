// The batch kind: scheduled only when asked, with a device cell at depth B
// in cold modes unless a hit pass measures one; its steps survive the trip
// to a worker; /proc/diskstats' in-flight field; and batch passes over the
// tiny dataset, in-process: every key counted, found and answered through
// MultiGet, the depth reached, and the device rate at depth B.
#include "bench/batch_pass.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "backends/table.h"
#include "bench/disk_inflight.h"
#include "bench/run.h"
#include "common/results_ops.h"
#include "test/bench/local_channel.h"
#include "test/bench/tiny_dataset.h"

namespace flatbench::bench {
namespace {

namespace r = flatbench::results;
using datagen::KeyKind;

ScheduleOptions BatchOptions() {
  ScheduleOptions o;
  o.backends = {"arena", "lmdb"};
  o.modes = {Mode::kCold, Mode::kWarm};
  o.tables = {Table::kAccount, Table::kStorage};
  o.kinds = {KeyKind::kHit};
  o.threads = {1, 8};
  o.repetitions = 2;
  o.reads_per_pass = 640;
  o.device_reads = 320;
  o.draw_seed = kDefaultDrawSeed;
  return o;
}

dataset::Spec TinySpec() {
  return dataset::MakeSpec("tiny", 0, 0, dataset::kDefaultSeed).value();
}

std::vector<Step> Steps(const std::vector<Phase>& phases) {
  std::vector<Step> out;
  for (const auto& p : phases)
    out.insert(out.end(), p.steps.begin(), p.steps.end());
  return out;
}

TEST_CASE("batch cells are scheduled only when asked", "[bench][batch]") {
  ScheduleOptions o = BatchOptions();
  auto plain = MakeSchedule(TinySpec(), o);
  REQUIRE(plain.ok());
  for (const Step& s : Steps(plain.value())) CHECK(s.cell.op != Op::kBatch);

  REQUIRE(ParseKinds({"hit", "batch"}, &o).ok());
  CHECK(o.batch);
  o.batch_size = 8;
  auto with = MakeSchedule(TinySpec(), o);
  REQUIRE(with.ok());
  std::map<std::string, int> batch_steps;
  std::set<uint64_t> firsts;
  for (const Step& s : Steps(with.value())) {
    if (s.cell.op != Op::kBatch) continue;
    CAPTURE(s.backend, s.cell.threads, ModeName(s.mode), s.repetition);
    ++batch_steps[s.backend];
    CHECK(s.batch_size == 8);
    CHECK(s.cell.kind == KeyKind::kHit);
    // The default batch threads, not the read cells' 1 and 8.
    CHECK((s.cell.threads == 1 || s.cell.threads == 2));
    // 640 keys a pass: 80 calls of 8 over the threads.
    CHECK(s.reads_per_thread * s.cell.threads * s.batch_size == 640);
    // The hit pass at 8 threads (o.threads) measures the device at depth 8
    // in cold modes, so no batch step adds a device cell of its own.
    CHECK(s.device_reads_per_thread == 0);
    CHECK(s.DeviceThreads() == 8);
    if (s.backend == "arena" && s.cell.table == Table::kAccount &&
        s.cell.threads == 1) {
      firsts.insert(s.first_index);
    }
  }
  // 2 modes x 2 tables x 2 thread counts x 2 repetitions each.
  CHECK(batch_steps["arena"] == 16);
  CHECK(batch_steps["lmdb"] == 16);
  // Successive passes of a cell read further keys, never the same ones.
  CHECK(firsts.size() == 4);

  SECTION("a device cell at depth B when no hit pass measures one") {
    o.batch_size = 4;  // No read cell at 4 threads.
    o.batch_threads = {3};
    auto s = MakeSchedule(TinySpec(), o);
    REQUIRE(s.ok());
    int cold = 0;
    for (const Step& st : Steps(s.value())) {
      if (st.cell.op != Op::kBatch) continue;
      CHECK(st.cell.threads == 3);
      if (st.mode == Mode::kCold) {
        ++cold;
        CHECK(st.device_reads_per_thread == 320 / 4);
        CHECK(st.DeviceThreads() == 4);
        CHECK(BatchDevicePassName(st).find("/device/cold/threads:4/") !=
              std::string::npos);
      } else {
        CHECK(st.device_reads_per_thread == 0);
      }
    }
    CHECK(cold == 2 * 2 * 2);  // backends x tables x repetitions.
  }
  SECTION("a batch too large for the key space is a usage error") {
    o.batch_size = 4096;
    o.batch_threads = {8};
    auto s = MakeSchedule(TinySpec(), o);
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == Code::kUsage);
    CHECK(s.status().message().find("--batch-size") != std::string::npos);
  }
}

TEST_CASE("a batch step survives its trip to a worker", "[bench][batch]") {
  Step s;
  s.backend = "arena+cache";
  s.mode = Mode::kColdLazy;
  s.cell = {Table::kStorage, KeyKind::kHit, 2, Op::kBatch};
  s.repetition = 3;
  s.first_index = 77;
  s.reads_per_thread = 5;
  s.device_reads_per_thread = 9;
  s.batch_size = 16;
  auto back = StepFromJson(StepToJson(s));
  REQUIRE(back.ok());
  CHECK(StepToJson(back.value()) == StepToJson(s));
  CHECK(back->cell.op == Op::kBatch);
  CHECK(back->batch_size == 16);
  auto j = StepToJson(s);
  j["batch_size"] = 0;
  CHECK(StepFromJson(j).status().code() == Code::kCorruption);
}

TEST_CASE("one device cell at depth B however many batch thread counts",
          "[bench][batch]") {
  ScheduleOptions o = BatchOptions();
  REQUIRE(ParseKinds({"hit", "batch"}, &o).ok());
  o.batch_size = 4;  // No read cell at 4 threads.
  o.batch_threads = {1, 2};
  auto s = MakeSchedule(TinySpec(), o);
  REQUIRE(s.ok());
  // Each device pass's name once: the first batch cell of its table
  // carries it, the second reads against it.
  std::map<std::string, int> device_passes;
  for (const Step& st : Steps(s.value())) {
    if (st.cell.op != Op::kBatch || st.device_reads_per_thread == 0) {
      continue;
    }
    CHECK(st.cell.threads == 1);
    ++device_passes[BatchDevicePassName(st)];
  }
  CHECK(device_passes.size() == 2 * 2 * 2);  // backends x tables x reps.
  for (const auto& [name, n] : device_passes) {
    CAPTURE(name);
    CHECK(n == 1);
  }
}

TEST_CASE("the in-flight count is read from /proc/diskstats",
          "[bench][batch]") {
  const std::string text =
      "   7       0 loop0 10 0 20 1 0 0 0 0 0 2 1 0 0 0 0\n"
      " 253       0 vda 5 6 7 8 9 10 11 12 13 14 15 0 0 0 0\n"
      " 253       1 vda1 1 2 3 4 5 6 7 8 4 9 10\n"
      " 253       2 vda2 1 2\n";
  CHECK(DiskstatsInFlight(text, 253, 0) == uint64_t{13});
  CHECK(DiskstatsInFlight(text, 253, 1) == uint64_t{4});
  CHECK(DiskstatsInFlight(text, 7, 0) == uint64_t{0});
  CHECK_FALSE(DiskstatsInFlight(text, 253, 2).has_value());  // Too short.
  CHECK_FALSE(DiskstatsInFlight(text, 8, 0).has_value());
  CHECK_FALSE(DiskstatsInFlight("", 253, 0).has_value());
  // The reads completed: the 4th column.
  CHECK(DiskstatsOf(text, 253, 0)->reads_completed == 5);
  CHECK(DiskstatsOf(text, 253, 1)->reads_completed == 1);
  CHECK(DiskstatsOf(text, 7, 0)->reads_completed == 10);
  CHECK_FALSE(DiskstatsOf(text, 253, 2).has_value());
  // A sampler over a real path starts and stops (or knows it cannot).
  DiskInflightSampler sampler(testing::TinyDatasetDir());
  if (sampler.known()) {
    sampler.Start();
    const DiskInflight seen = sampler.Stop();
    CHECK(seen.samples >= 1);
    CHECK(seen.mean <= static_cast<double>(seen.max));
  }
}

// The batch-capable backends of this build among those the test runs.
std::vector<std::string> BatchBackendsBuilt() {
  const std::vector<std::string> names = backends::Names();
  std::vector<std::string> run;
  for (const char* b :
       {"arena", "arena+cache", "arena+pread", "lmdb", "rocksdb"}) {
    if (std::find(names.begin(), names.end(), b) != names.end()) {
      run.push_back(b);
    }
  }
  return run;
}

// Cold and warm batches of 8 at 1 and 2 threads, both tables, one
// repetition, through in-process workers.
Result<RunOutcome> RunBatchMatrix(const datagen::Dataset& ds,
                                  const std::vector<std::string>& run,
                                  const LocalWorkers& workers) {
  RunOptions ro;
  ro.schedule.backends = run;
  ro.schedule.modes = {Mode::kCold, Mode::kWarm};
  ro.schedule.tables = {Table::kAccount, Table::kStorage};
  REQUIRE(ParseKinds({"batch"}, &ro.schedule).ok());
  ro.schedule.batch_size = 8;
  ro.schedule.batch_threads = {1, 2};
  ro.schedule.repetitions = 1;
  ro.schedule.reads_per_pass = 64;
  ro.schedule.device_reads = 32;
  ro.schedule.draw_seed = kDefaultDrawSeed;
  ro.progress = false;
  return RunMatrix(ds, ro, workers.channels, nlohmann::json::object());
}

bool DeviceMeasured(const nlohmann::json& ctx, const std::string& backend) {
  return ctx[r::BackendKey(backend, r::kDeviceStatus)].get<std::string>().rfind(
             "measured", 0) == 0;
}

// A batch pass's counters: every expected one present, every key counted
// and found, 8 keys a call.
void CheckBatchCounters(const nlohmann::json& e, const r::CellName& cell) {
  for (const auto& c : r::AllCounters()) {
    if (!r::CounterExpected(c, cell.kind, cell.mode)) continue;
    CAPTURE(c.name);
    CHECK(e.contains(std::string(c.name)));
  }
  const double calls = e["iterations"].get<double>();
  CHECK(calls == 8);  // 64 keys in calls of 8, over the threads.
  CHECK(testing::CounterValue(e, r::kDistinctKeys) == calls * 8);
  CHECK(testing::CounterValue(e, r::kBatchSize) == 8);
  CHECK(testing::CounterValue(e, r::kFoundFraction) == 1.0);
  CHECK(testing::CounterValue(e, r::kKeysPerS) ==
        Approx(testing::CounterValue(e, r::kReadsPerS) * 8));
  CHECK(testing::CounterValue(e, r::kPeakInflight) <= cell.threads);
}

// The I/O depth a batch pass reached, from the backend's own submissions
// where it counts them, and its rate against the device at depth B where
// that was measured.
void CheckBatchDepthAndDevice(const nlohmann::json& e, const r::CellName& cell,
                              const nlohmann::json& ctx) {
  const bool cold = r::IsColdMode(cell.mode);
  const std::string settings =
      ctx[r::BackendKey(cell.backend, r::kSettings)].dump();
  const bool uring =
      settings.find("\"batch_reads\":\"io_uring") != std::string::npos;
  if (cold && uring) {
    // The arena's read paths submit a cold batch's blocks together.
    REQUIRE(e.contains(std::string(r::kIoDepthSource.name)));
    CHECK(testing::CounterValue(e, r::kIoDepthSource) == 1);
    CHECK(testing::CounterValue(e, r::kIoDepthMax) >= 1);
    CHECK(testing::CounterValue(e, r::kIoDepthMax) <= 8);
    CHECK(testing::CounterValue(e, r::kIoDepthMean) >= 1);
  }
  if (e.contains(std::string(r::kIoDepthMean.name))) {
    CHECK(testing::CounterValue(e, r::kIoDepthMean) <=
          testing::CounterValue(e, r::kIoDepthMax));
  }
  if (cold && DeviceMeasured(ctx, cell.backend)) {
    CHECK(testing::CounterValue(e, r::kBatchIoEfficiency) ==
          Approx(testing::CounterValue(e, r::kKeysPerS) /
                 testing::CounterValue(e, r::kBatchDeviceReadsPerS)));
  } else {
    CHECK_FALSE(e.contains(std::string(r::kBatchDeviceReadsPerS.name)));
  }
}

// Batch and device passes per backend.
struct BatchPassCounts {
  std::map<std::string, int> batches, devices;
};

// Every entry is a batch pass or a device cell at depth B; each batch pass
// checked.
BatchPassCounts CheckBatchEntries(const nlohmann::json& document) {
  const auto& ctx = document["context"];
  BatchPassCounts n;
  for (const auto& e : document["benchmarks"]) {
    const std::string name = e["name"];
    CAPTURE(name);
    auto cell = r::ParseCellName(name);
    REQUIRE(cell.has_value());
    if (cell->kind == r::kKindDevice) {
      CHECK(cell->threads == 8);  // Depth B.
      ++n.devices[cell->backend];
      continue;
    }
    REQUIRE(cell->kind == r::kKindBatch);
    ++n.batches[cell->backend];
    CheckBatchCounters(e, *cell);
    CheckBatchDepthAndDevice(e, *cell, ctx);
  }
  return n;
}

TEST_CASE("batch passes answer every key through MultiGet", "[bench][batch]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  const std::vector<std::string> run = BatchBackendsBuilt();
  const LocalWorkers workers =
      StartLocalWorkers(ds.value(), run, testing::TinyOpener(ds.value()), 20);
  auto out = RunBatchMatrix(ds.value(), run, workers);
  REQUIRE(out.ok());
  INFO(out->first_error.message());
  REQUIRE(out->first_error.ok());
  const auto& ctx = out->document["context"];
  BatchPassCounts n = CheckBatchEntries(out->document);
  for (const auto& b : run) {
    CAPTURE(b);
    // 2 modes x 2 tables x 2 thread counts; a device cell at depth B
    // before the first cold one of each table, where O_DIRECT reads the
    // backend's files (the second reads against the same cell).
    CHECK(n.batches[b] == 8);
    CHECK(n.devices[b] == (DeviceMeasured(ctx, b) ? 2 : 0));
  }
}

}  // namespace
}  // namespace flatbench::bench
