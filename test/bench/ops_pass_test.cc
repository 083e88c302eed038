// The scan and startup passes at tiny scale, driven in-process through the
// schedule: valid entries, the same pages from every backend, and startup
// timings that are positive and ordered (first read after the open).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>

#include "bench/run.h"
#include "bench/startup.h"
#include "common/hex.h"
#include "common/results_ops.h"
#include "datagen/sampler.h"
#include "test/bench/local_channel.h"
#include "test/bench/tiny_dataset.h"

namespace flatbench::bench {
namespace {

namespace r = flatbench::results;

using testing::CounterValue;

// Runs `schedule` over every tiny backend, each in its own in-process
// worker whose startup probes are the flatbench binary.
nlohmann::json RunTiny(ScheduleOptions schedule) {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  const char* bin = std::getenv("FLATBENCH_BIN");
  REQUIRE(bin != nullptr);
  std::vector<std::unique_ptr<LocalChannel>> owned;
  std::map<std::string, WorkerChannel*> channels;
  for (const auto& b : testing::TinyBackends()) {
    WorkerOptions o;
    o.allow_drop_caches = false;
    o.check.samples = 50;
    o.probe_command = {bin, "bench-probe"};
    owned.push_back(std::make_unique<LocalChannel>(std::make_unique<Worker>(
        ds.value(), b, testing::TinyOpener(ds.value()), o)));
    channels[b] = owned.back().get();
  }
  schedule.backends = testing::TinyBackends();
  schedule.draw_seed = kDefaultDrawSeed;
  RunOptions ro;
  ro.schedule = schedule;
  ro.progress = false;
  auto out = RunMatrix(ds.value(), ro, channels, nlohmann::json::object());
  INFO(out.status().message());
  REQUIRE(out.ok());
  INFO(out->first_error.message());
  REQUIRE(out->first_error.ok());
  return out->document["benchmarks"];
}

void CheckCounters(const nlohmann::json& e, const r::CellName& cell) {
  for (const auto& c : r::AllCounters()) {
    if (!r::CounterExpected(c, cell.kind, cell.mode)) continue;
    CAPTURE(c.name);
    CHECK(e.contains(std::string(c.name)));
  }
}

TEST_CASE("a scan pass returns full, equal pages from every backend",
          "[bench][scan]") {
  ScheduleOptions s;
  s.modes = {Mode::kCold, Mode::kWarm};
  s.tables = {Table::kAccount, Table::kStorage};
  s.threads = {2};  // Two threads split each pass's scans.
  s.repetitions = 2;
  s.reads_per_pass = 400;  // 40 scans per pass.
  s.scan = true;
  const auto entries = RunTiny(s);
  // Per backend: 2 modes x 2 tables x 1 thread count x 2 repetitions.
  std::map<std::string, int> per_backend;
  // (table, mode, threads, rep) -> checksum of the first backend.
  std::map<std::string, double> checksum;
  for (const auto& e : entries) {
    const std::string name = e["name"];
    CAPTURE(name);
    auto cell = r::ParseCellName(name);
    REQUIRE(cell.has_value());
    REQUIRE(cell->kind == r::kKindScan);
    CheckCounters(e, *cell);
    ++per_backend[cell->backend];
    CHECK(e["iterations"].get<double>() == 40);
    CHECK(CounterValue(e, r::kDistinctKeys) == 40);
    CHECK(CounterValue(e, r::kScanLength) == kDefaultScanLength);
    // Seek keys uniform over 10k accounts (50k slots) rarely land in the
    // last 100 pairs: nearly every page is full.
    CHECK(CounterValue(e, r::kEntriesPerScan) > 95);
    CHECK(CounterValue(e, r::kEntriesPerScan) <= kDefaultScanLength);
    CHECK(CounterValue(e, r::kEntriesPerS) ==
          Approx(CounterValue(e, r::kReadsPerS) *
                 CounterValue(e, r::kEntriesPerScan)));
    CHECK(CounterValue(e, r::kLatP50Ns) > 0);
    const std::string key = cell->table + "/" + cell->mode + "/" +
                            std::to_string(cell->threads) + "/" +
                            std::to_string(cell->rep);
    auto [it, fresh] = checksum.emplace(key, CounterValue(e, r::kScanChecksum));
    if (!fresh) CHECK(CounterValue(e, r::kScanChecksum) == it->second);
  }
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    CHECK(per_backend[b] == 2 * 2 * 1 * 2);
  }
  // Different repetitions scan from different keys.
  CHECK(checksum["account/cold/2/0"] != checksum["account/cold/2/1"]);
}

TEST_CASE("startup probes time a fresh process to its first read",
          "[bench][startup]") {
  ScheduleOptions s;
  s.modes = {Mode::kCold, Mode::kWarm};
  s.tables = {Table::kAccount};
  s.threads = {1};
  s.repetitions = 1;
  s.reads_per_pass = 100;
  s.startup = true;
  s.startup_probes = 2;
  const auto entries = RunTiny(s);
  std::map<std::string, int> per_backend;
  for (const auto& e : entries) {
    const std::string name = e["name"];
    CAPTURE(name);
    auto cell = r::ParseCellName(name);
    REQUIRE(cell.has_value());
    REQUIRE(cell->kind == r::kKindStartup);
    CheckCounters(e, *cell);
    ++per_backend[cell->backend];
    CHECK(CounterValue(e, r::kStartupProbes) == 2);
    CHECK(CounterValue(e, r::kOpenSeconds) > 0);
    CHECK(CounterValue(e, r::kStartupMinS) > 0);
    CHECK(CounterValue(e, r::kStartupMinS) <= CounterValue(e, r::kStartupS));
    CHECK(CounterValue(e, r::kStartupS) <= CounterValue(e, r::kStartupMaxS));
    // The open is part of the startup, probe by probe.
    CHECK(CounterValue(e, r::kOpenSeconds) < CounterValue(e, r::kStartupS));
    CHECK(CounterValue(e, r::kRssAfterOpenBytes) > 0);
    if (cell->mode == r::kModeCold) {
      CHECK(CounterValue(e, r::kResidentFractionAfterEviction) <= 0.01);
    }
    CHECK(CounterValue(e, r::kEvictionVerified) == 1);
  }
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    CHECK(per_backend[b] == 2);
  }
}

TEST_CASE("a startup probe is told what to read by its message",
          "[bench][startup]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  const char* bin = std::getenv("FLATBENCH_BIN");
  REQUIRE(bin != nullptr);
  ProbeRequest probe{.dir = ds->dir(),
                     .backend = testing::TinyBackends().front(),
                     .table = Table::kAccount,
                     .key = std::string(kAccountKeySize, '\0')};
  datagen::Sampler hits(ds->spec(), Table::kAccount, datagen::KeyKind::kHit, 7);
  hits.DrawKey(0, reinterpret_cast<uint8_t*>(probe.key.data()));
  const nlohmann::json message = ProbeMessage(probe);
  auto back = ParseProbeMessage(message);
  REQUIRE(back.ok());
  CHECK(back.value() == probe);
  SECTION("a field the probe cannot use is refused, naming it") {
    for (const char* field : {"dir", "backend", "table", "key"}) {
      CAPTURE(field);
      nlohmann::json bad = message;
      bad.erase(field);
      const Status st = ParseProbeMessage(bad).status();
      CHECK(st.code() == Code::kUsage);
      CHECK(st.message().find(field) != std::string::npos);
    }
    nlohmann::json bad = message;
    bad["key"] = "abcd";  // Two bytes, not an account key's 20.
    CHECK(ParseProbeMessage(bad).status().message().find("20-byte") !=
          std::string::npos);
    bad = message;
    bad["table"] = "slots";
    CHECK(ParseProbeMessage(bad).status().code() == Code::kUsage);
    bad = message;
    bad["lazy_metadata"] = "yes";
    CHECK(ParseProbeMessage(bad).status().code() == Code::kUsage);
  }
  const std::vector<std::string> command = {bin, "bench-probe"};
  SECTION("the probe reads the key it is sent") {
    auto t = SpawnProbe(command, message);
    INFO(t.status().message());
    REQUIRE(t.ok());
    CHECK(t->open_s > 0);
    CHECK(t->startup_s > t->open_s);
    CHECK(t->rss_after_open > 0);
  }
  SECTION("a key the dataset lacks is the probe's corruption error") {
    ProbeRequest absent = probe;
    datagen::Sampler misses(ds->spec(), Table::kAccount,
                            datagen::KeyKind::kMissAbsent, 7);
    misses.DrawKey(0, reinterpret_cast<uint8_t*>(absent.key.data()));
    const Status st = SpawnProbe(command, ProbeMessage(absent)).status();
    CHECK(st.code() == Code::kCorruption);
    CHECK(st.message().find(ToHex(absent.key)) != std::string::npos);
  }
  SECTION("a message it cannot read ends it with the usage code") {
    nlohmann::json bad = message;
    bad["op"] = "start";
    CHECK(SpawnProbe(command, bad).status().code() == Code::kUsage);
  }
}

TEST_CASE("--kinds takes key kinds and the scan and startup operations",
          "[bench][scan]") {
  ScheduleOptions o;
  REQUIRE(ParseKinds({"hit", "scan", "startup"}, &o).ok());
  CHECK(o.kinds == std::vector<datagen::KeyKind>{datagen::KeyKind::kHit});
  CHECK(o.scan);
  CHECK(o.startup);
  REQUIRE(ParseKinds({"scan"}, &o).ok());
  CHECK(o.kinds.empty());
  CHECK_FALSE(o.startup);
  CHECK(ParseKinds({"scan", "scan"}, &o).code() == Code::kUsage);
  CHECK(ParseKinds({"scans"}, &o).code() == Code::kUsage);
  CHECK(ParseKinds({}, &o).code() == Code::kUsage);
}

}  // namespace
}  // namespace flatbench::bench
