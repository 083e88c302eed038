// The interleaved schedule: a Latin square of backends over repetitions,
// the same keys for every backend in a (cell, repetition), device cells only
// before cold hits, and the end-to-end driver keeping that order.
#include "bench/schedule.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "bench/run.h"
#include "common/results_schema.h"
#include "test/bench/local_channel.h"
#include "test/bench/tiny_dataset.h"

namespace flatbench::bench {
namespace {

using datagen::KeyKind;

ScheduleOptions Options(std::vector<std::string> backends, int reps) {
  ScheduleOptions o;
  o.backends = std::move(backends);
  o.modes = {Mode::kWarm, Mode::kCold, Mode::kColdLazy};
  o.tables = {Table::kAccount, Table::kStorage};
  o.kinds = {KeyKind::kHit, KeyKind::kMissAbsent, KeyKind::kMissLiveAccount};
  o.threads = {1, 8};
  o.repetitions = reps;
  o.reads_per_pass = 800;
  o.device_reads = 400;
  o.draw_seed = kDefaultDrawSeed;
  return o;
}

dataset::Spec Tiny() {
  return dataset::MakeSpec("tiny", 0, 0, dataset::kDefaultSeed).value();
}

TEST_CASE("cells exist only where the dataset has them", "[bench][schedule]") {
  auto cells = EnumerateCells(
      Tiny(), {Table::kAccount, Table::kStorage},
      {KeyKind::kHit, KeyKind::kMissAbsent, KeyKind::kMissLiveAccount},
      {1, 8, 32});
  CHECK(cells.size() == 5 * 3);  // miss-live is a storage kind only.
  for (const auto& c : cells) {
    CHECK_FALSE(
        (c.table == Table::kAccount && c.kind == KeyKind::kMissLiveAccount));
  }
  auto no_slots = dataset::MakeSpec("custom", 100, 0, 1).value();
  CHECK(EnumerateCells(no_slots, {Table::kAccount, Table::kStorage},
                       {KeyKind::kHit}, {1})
            .size() == 1);
}

TEST_CASE("backends rotate through every position: a Latin square",
          "[bench][schedule]") {
  const std::vector<std::string> b = {"a", "b", "c"};
  auto phases = MakeSchedule(Tiny(), Options(b, 3));
  REQUIRE(phases.ok());
  REQUIRE(phases->size() == 3);
  for (const auto& p : phases.value()) {
    CAPTURE(ModeName(p.mode));
    // Group the steps of each (cell, repetition): consecutive runs of 3.
    REQUIRE(p.steps.size() % b.size() == 0);
    // position[(cell, backend)] -> set of positions over the repetitions.
    std::map<std::string, std::set<size_t>> positions;
    std::set<std::pair<std::string, uint64_t>> keys_used;
    for (size_t i = 0; i < p.steps.size(); i += b.size()) {
      std::set<std::string> seen;
      for (size_t k = 0; k < b.size(); ++k) {
        const Step& s = p.steps[i + k];
        const Step& first = p.steps[i];
        // Every backend of a (cell, repetition) reads the same keys.
        CHECK(s.cell.table == first.cell.table);
        CHECK(s.cell.kind == first.cell.kind);
        CHECK(s.cell.threads == first.cell.threads);
        CHECK(s.repetition == first.repetition);
        CHECK(s.first_index == first.first_index);
        seen.insert(s.backend);
        const std::string cell = std::string(TableName(s.cell.table)) + "/" +
                                 datagen::KeyKindName(s.cell.kind) + "/" +
                                 std::to_string(s.cell.threads) + "/" +
                                 s.backend;
        positions[cell].insert(k);
        const bool device = IsCold(p.mode) && s.cell.kind == KeyKind::kHit;
        CHECK((s.device_reads_per_thread > 0) == device);
      }
      CHECK(seen.size() == b.size());
      // Successive passes of a (table, kind) never reuse a start index.
      const Step& s = p.steps[i];
      const std::string tk = std::string(TableName(s.cell.table)) +
                             datagen::KeyKindName(s.cell.kind);
      CHECK(keys_used.insert({tk, s.first_index}).second);
    }
    for (const auto& [cell, pos] : positions) {
      CAPTURE(cell);
      CHECK(pos.size() == b.size());  // Each position once in 3 reps.
    }
  }
}

TEST_CASE("O_DIRECT variants skip warm mode", "[bench][schedule]") {
  auto o = Options({"arena", "arena+direct"}, 1);
  o.no_warm = {"arena+direct"};
  auto phases = MakeSchedule(Tiny(), o);
  REQUIRE(phases.ok());
  for (const auto& p : phases.value()) {
    for (const auto& s : p.steps) {
      CHECK_FALSE((p.mode == Mode::kWarm && s.backend == "arena+direct"));
    }
  }
}

TEST_CASE("too many threads for a key space is a usage error",
          "[bench][schedule]") {
  auto o = Options({"a"}, 1);
  o.threads = {20000};
  auto phases = MakeSchedule(Tiny(), o);
  REQUIRE_FALSE(phases.ok());
  CHECK(phases.status().code() == Code::kUsage);
}

TEST_CASE("steps survive their trip to a worker", "[bench][schedule]") {
  auto phases = MakeSchedule(Tiny(), Options({"a", "b"}, 2));
  REQUIRE(phases.ok());
  for (const auto& p : phases.value()) {
    for (const auto& s : p.steps) {
      auto back = StepFromJson(StepToJson(s));
      REQUIRE(back.ok());
      CHECK(StepToJson(back.value()) == StepToJson(s));
    }
  }
  CHECK_FALSE(StepFromJson({{"backend", "a"}}).ok());
}

// Warm and cold hit passes of the tiny backends at 2 threads, 2
// repetitions, through in-process workers.
Result<RunOutcome> RunWarmAndColdHits(const datagen::Dataset& ds,
                                      const std::vector<std::string>& backends,
                                      const LocalWorkers& workers) {
  RunOptions ro;
  ro.schedule = Options(backends, 2);
  ro.schedule.modes = {Mode::kWarm, Mode::kCold};
  ro.schedule.kinds = {KeyKind::kHit};
  ro.schedule.tables = {Table::kAccount};
  ro.schedule.threads = {2};
  ro.progress = false;
  return RunMatrix(ds, ro, workers.channels, nlohmann::json::object());
}

// The backends whose device cell was measured; the others' (fs: no file
// holds a whole 4 KiB block) say they were skipped.
size_t BackendsWithDeviceCells(const nlohmann::json& ctx,
                               const std::vector<std::string>& backends) {
  size_t with_device = 0;
  for (const auto& b : backends) {
    const std::string device =
        ctx[results::BackendKey(b, results::kDeviceStatus)];
    CAPTURE(b, device);
    if (device.rfind("measured", 0) == 0) {
      ++with_device;
    } else {
      CHECK(device.rfind("skipped: ", 0) == 0);
    }
  }
  return with_device;
}

// A warm pass in steady state: eviction verified, files resident after
// it, no major fault, and no minor fault per read of the mmap backends,
// whose mappings were populated before the pass. (RocksDB reads into its
// heap, whose faults depend on the allocator, not on the harness.)
void CheckWarmPassSteady(const nlohmann::json& e, const std::string& backend) {
  CHECK(e[std::string(results::kEvictionVerified.name)] == 1.0);
  CHECK(e[std::string(results::kResidentFractionAfterPass.name)] >= 0.99);
  if (backend == "arena" || backend == "lmdb") {
    CHECK(e[std::string(results::kMinorFaultsPerRead.name)] <= 0.05);
  }
  CHECK(e[std::string(results::kMajorFaultsPerRead.name)] == 0.0);
}

// Passes numbered in run order, warm ones in steady state; returns the
// hit passes' backends in run order.
std::vector<std::string> CheckPassOrder(const nlohmann::json& entries) {
  std::vector<std::string> hit_backends;
  double order = -1;
  for (const auto& e : entries) {
    auto name = results::ParseCellName(e["name"].get<std::string>());
    REQUIRE(name.has_value());
    CAPTURE(e["name"].get<std::string>());
    const double o = e[std::string(results::kPassOrder.name)].get<double>();
    CHECK(o == order + 1);
    order = o;
    if (name->kind == "hit") hit_backends.push_back(name->backend);
    if (name->mode == "warm") CheckWarmPassSteady(e, name->backend);
  }
  return hit_backends;
}

// Only the backend's own mappings are populated (and counted), never the
// hold's: RocksDB reads with pread and maps nothing.
void CheckPopulatedBytes(const nlohmann::json& ctx, const datagen::Dataset& ds,
                         const std::vector<std::string>& backends) {
  for (const auto& b : backends) {
    CAPTURE(b);
    const auto populated =
        ctx[results::BackendKey(b, results::kPopulatedBytes)].get<uint64_t>();
    // Populated bytes are file bytes; disk_bytes counts allocated blocks,
    // fewer than the size where a file has holes (LMDB's can).
    uint64_t file_bytes = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(ds.BackendDir(b))) {
      if (entry.is_regular_file()) file_bytes += entry.file_size();
    }
    if (b == "rocksdb") CHECK(populated == 0);
    if (b == "arena" || b == "lmdb") {
      CHECK(populated > 0);
      CHECK(populated <= file_bytes);
    }
  }
}

// The phase times the plan calibrates from: the start, and the warm begin
// of every backend (this run has a warm phase).
void CheckPhaseTimes(const nlohmann::json& ctx,
                     const std::vector<std::string>& backends) {
  for (const auto& b : backends) {
    CAPTURE(b);
    CHECK(ctx[results::BackendKey(b, results::kStartSeconds)].get<double>() >
          0);
    CHECK(
        ctx[results::BackendKey(b, results::kWarmBeginSeconds)].get<double>() >
        0);
  }
}

// Each (cell, repetition) runs every backend once before the next.
void CheckBackendsInterleaved(const std::vector<std::string>& hit_backends,
                              size_t backend_count) {
  REQUIRE(hit_backends.size() % backend_count == 0);
  for (size_t i = 0; i < hit_backends.size(); i += backend_count) {
    std::set<std::string> group(hit_backends.begin() + i,
                                hit_backends.begin() + i + backend_count);
    CHECK(group.size() == backend_count);
  }
}

// The driver over in-process workers: passes numbered in run order,
// backends alternating, and warm passes in steady state.
TEST_CASE("the driver interleaves backends and holds warm files",
          "[bench][schedule][warm]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  const auto backends = testing::TinyBackends();
  const LocalWorkers workers = StartLocalWorkers(
      ds.value(), backends, testing::TinyOpener(ds.value()), 50);
  auto out = RunWarmAndColdHits(ds.value(), backends, workers);
  REQUIRE(out.ok());
  REQUIRE(out->first_error.ok());
  const auto& entries = out->document["benchmarks"];
  const auto& ctx = out->document["context"];
  // warm: 1 table x 2 reps x B; cold: the same plus a device cell each,
  // except for a backend whose device cell is skipped.
  const size_t with_device = BackendsWithDeviceCells(ctx, backends);
  REQUIRE(entries.size() == 1 * 2 * (backends.size() * 2 + with_device));
  const std::vector<std::string> hit_backends = CheckPassOrder(entries);
  CheckPopulatedBytes(ctx, ds.value(), backends);
  CheckPhaseTimes(ctx, backends);
  CheckBackendsInterleaved(hit_backends, backends.size());
}

}  // namespace
}  // namespace flatbench::bench
