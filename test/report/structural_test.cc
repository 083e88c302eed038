// The structural prediction (report/prediction/structural.h) on a crafted
// device profile and crafted passes, every expected figure computed by hand.
#include "report/prediction/structural.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/results_schema.h"
#include "report/document/markdown.h"
#include "report/prediction/prediction.h"
#include "test/crafted_profile.h"
#include "test/report/judge.h"

namespace flatbench::report {
namespace {

using nlohmann::json;
namespace r = results;

json Profile() { return flatbench::testing::CraftedDeviceProfile(); }

DeviceProfile Parsed() {
  auto p = ParseDeviceProfile(Profile(), "p.json");
  REQUIRE(p.ok());
  return p.value();
}

Pass MakePass(const std::string& backend, const std::string& table,
              const std::string& kind, int threads, int rep, double rate,
              double bytes, double device_rate) {
  Pass p;
  p.cell = {backend, table, kind, "cold", threads};
  p.rep = rep;
  p.counters[r::kReadsPerS.name] = rate;
  p.counters[r::kBytesReadPerRead.name] = bytes;
  if (device_rate > 0) p.counters[r::kDeviceReadsPerS.name] = device_rate;
  return p;
}

TEST_CASE("the device profile interpolates in size and in log2(depth)",
          "[report][structural]") {
  const DeviceProfile p = Parsed();
  using B = DeviceProfile::Bound;
  CHECK(p.LatencySeconds(1, 4096, B::kMid) == Approx(15e-6));
  CHECK(p.LatencySeconds(32, 16384, B::kMid) == Approx(340e-6));
  // Halfway between 4 and 8 KiB at depth 8: (85 + 90) / 2 us.
  CHECK(p.LatencySeconds(8, 6144, B::kMid) == Approx(87.5e-6));
  // Depth 4 is two thirds of the way from depth 1 to 8 in log2:
  // 15 + (85 - 15) x 2/3 us.
  CHECK(p.LatencySeconds(4, 4096, B::kMid) == Approx(15e-6 + 70e-6 * 2 / 3));
  // Beyond the measured range: clamped.
  CHECK(p.LatencySeconds(64, 65536, B::kMid) == Approx(340e-6));
  // The slowest round ran at half the rate: twice the latency.
  CHECK(p.LatencySeconds(1, 4096, B::kSlow) == Approx(30e-6));
  CHECK(p.LatencySeconds(1, 4096, B::kFast) == Approx(7.5e-6));
  CHECK(p.ReadsPerS(8, 4096) == Approx(8 / 85e-6));
}

TEST_CASE("a malformed device profile is refused naming the field",
          "[report][structural]") {
  auto refused = [](const json& d, const std::string& word) {
    auto r = ParseDeviceProfile(d, "p.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK(r.status().message().find("p.json") != std::string::npos);
    CHECK(r.status().message().find(word) != std::string::npos);
  };
  json d = Profile();
  d.erase("cpus");
  refused(d, "cpus");
  d = Profile();
  d["flatbench_device_profile"] = 7;
  refused(d, "format 7");
  d = Profile();
  d["cells"].erase(d["cells"].begin() + 5);  // Depth 8, 8 KiB.
  refused(d, "queue depth 8 and 8192 bytes");
  d = Profile();
  d["cells"][0]["lat_mean_ns"] = "fast";
  refused(d, "cells[0]: \"lat_mean_ns\"");
  d = Profile();
  d["cells"][0]["reads_per_s_low"] = 1e12;
  refused(d, "reads_per_s_low");
}

TEST_CASE("CPU per read is what the device did not take, per pass",
          "[report][structural]") {
  const DeviceProfile profile = Parsed();
  ResultSet rs;
  // 100 us per read, one 4 KiB page at its own files' 50 us: c = 50 us.
  rs.passes.push_back(
      MakePass("arena", "account", "hit", 1, 0, 10000, 4096, 20000));
  // 80 us per read: c = 30 us.
  rs.passes.push_back(
      MakePass("arena", "account", "hit", 1, 1, 12500, 4096, 20000));
  // Passes of other cells and thread counts do not count.
  rs.passes.push_back(MakePass("arena", "account", "hit", 8, 0, 1, 4096, 1));
  rs.passes.push_back(MakePass("lmdb", "account", "hit", 1, 0, 1, 4096, 1));
  CpuCost c = CalibrateCpu(rs, "arena", "account", "hit", 1, profile);
  CHECK(c.passes == 2);
  CHECK(c.mid == Approx(40e-6));
  CHECK(c.low == Approx(30e-6));
  CHECK(c.high == Approx(50e-6));

  // A miss has no device counter: the same repetition's device cell
  // (25,000 reads/s, 40 us) prices its half page: 20 us - 0.5 x 40 us = 0.
  // Another with a quarter page: 20 - 10 = 10 us.
  rs.passes.push_back(
      MakePass("arena", "account", "device", 1, 0, 25000, 4096, 0));
  rs.passes.push_back(
      MakePass("arena", "account", "device", 1, 1, 25000, 4096, 0));
  rs.passes.push_back(
      MakePass("arena", "account", "miss-absent", 1, 0, 50000, 2048, 0));
  rs.passes.push_back(
      MakePass("arena", "account", "miss-absent", 1, 1, 50000, 1024, 0));
  c = CalibrateCpu(rs, "arena", "account", "miss-absent", 1, profile);
  CHECK(c.passes == 2);
  CHECK(c.low == Approx(0).margin(1e-12));
  CHECK(c.high == Approx(10e-6));

  // A unit of 2.5 pages is one read of 10 KiB: at 1 thread the profile
  // prices it (10 + 12.5) / (10 + 5) times a 4 KiB read, so a pass of 2.5
  // pages per read on a 30 us own-file device: 200 - 30 x 1.5 = 155 us.
  ResultSet rocks;
  rocks.passes.push_back(
      MakePass("rocksdb", "storage", "hit", 1, 0, 5000, 2.5 * 4096, 1 / 30e-6));
  c = CalibrateCpu(rocks, "rocksdb", "storage", "hit", 2.5, profile);
  CHECK(c.mid == Approx(155e-6));
  CHECK(CalibrateCpu(rocks, "rocksdb", "storage", "miss-absent", 2.5, profile)
            .passes == 0);
}

Pass WithCpu(Pass p, double cpu_ns, const std::string& mode = "cold") {
  p.cell.mode = mode;
  p.counters[r::kCpuNsPerRead.name] = cpu_ns;
  return p;
}

TEST_CASE("CPU per read is measured where the passes carry it",
          "[report][structural]") {
  const DeviceProfile profile = Parsed();
  // 100 and 80 us per read on a 50 us own-file device: residual c of 50
  // and 30 us; measured CPU 20 and 30 us per read.
  const Pass cold0 =
      MakePass("arena", "account", "hit", 1, 0, 10000, 4096, 20000);
  const Pass cold1 =
      MakePass("arena", "account", "hit", 1, 1, 12500, 4096, 20000);
  ResultSet rs;
  rs.passes = {WithCpu(cold0, 20000), WithCpu(cold1, 30000)};
  // Other thread counts, tables and backends do not count.
  rs.passes.push_back(
      WithCpu(MakePass("arena", "account", "hit", 8, 0, 1, 4096, 1), 1e6));
  rs.passes.push_back(
      WithCpu(MakePass("arena", "storage", "hit", 1, 0, 1, 4096, 1), 1e6));
  rs.passes.push_back(
      WithCpu(MakePass("lmdb", "account", "hit", 1, 0, 1, 4096, 1), 1e6));

  SECTION("cold only: c measured, no split") {
    const CpuCost c = CpuPerRead(rs, "arena", "account", "hit", 1, profile);
    CHECK(c.source == CpuCost::Source::kMeasured);
    CHECK(c.passes == 2);
    CHECK(c.mid == Approx(25e-6));
    CHECK(c.low == Approx(20e-6));
    CHECK(c.high == Approx(30e-6));
    CHECK(c.warm_passes == 0);
    CHECK(std::isnan(c.warm));
    // The residual stays what the device did not take: 40 us.
    CHECK(CalibrateCpu(rs, "arena", "account", "hit", 1, profile).mid ==
          Approx(40e-6));
  }
  SECTION("with warm cells: split into the warm part and the cold extra") {
    rs.passes.push_back(WithCpu(
        MakePass("arena", "account", "hit", 1, 0, 90000, 0, 0), 8000, "warm"));
    rs.passes.push_back(WithCpu(
        MakePass("arena", "account", "hit", 1, 1, 80000, 0, 0), 12000, "warm"));
    rs.passes.push_back(WithCpu(
        MakePass("arena", "account", "hit", 8, 0, 1, 0, 0), 99000, "warm"));
    rs.passes.push_back(
        WithCpu(MakePass("arena", "account", "miss-absent", 1, 0, 1, 0, 0),
                99000, "warm"));
    const CpuCost c = CpuPerRead(rs, "arena", "account", "hit", 1, profile);
    CHECK(c.source == CpuCost::Source::kMeasured);
    CHECK(c.mid == Approx(25e-6));
    CHECK(c.warm_passes == 2);
    CHECK(c.warm == Approx(10e-6));
    CHECK(c.ColdExtra() == Approx(15e-6));
  }
  SECTION("the host's other CPU: the same cold passes' median") {
    CHECK(
        std::isnan(CpuPerRead(rs, "arena", "account", "hit", 1, profile).host));
    for (auto& p : rs.passes) {
      if (p.cell.threads == 1 && p.cell.table == "account" &&
          p.cell.backend == "arena") {
        p.counters[r::kHostCpuNsPerRead.name] = p.rep == 0 ? 4000 : 6000;
      }
    }
    CHECK(CpuPerRead(rs, "arena", "account", "hit", 1, profile).host ==
          Approx(5e-6));
    // A pass without it: o is not a median over other passes than c's.
    rs.passes.push_back(
        WithCpu(MakePass("arena", "account", "hit", 1, 2, 1, 4096, 1), 1e4));
    CHECK(
        std::isnan(CpuPerRead(rs, "arena", "account", "hit", 1, profile).host));
  }
  SECTION("at a thread count: that count's passes, else one thread's") {
    const CpuCost at8 =
        CpuPerRead(rs, "arena", "account", "hit", 1, profile, 8);
    CHECK(at8.source == CpuCost::Source::kMeasured);
    CHECK(at8.threads == 8);
    CHECK(at8.passes == 1);
    CHECK(at8.mid == Approx(1e-3));
    const CpuCost at32 =
        CpuPerRead(rs, "arena", "account", "hit", 1, profile, 32);
    CHECK(at32.threads == 1);
    CHECK(at32.mid == Approx(25e-6));
  }
  SECTION("without the counter: the residual, as results before it had") {
    ResultSet old;
    old.passes = {cold0, cold1};
    const CpuCost c = CpuPerRead(old, "arena", "account", "hit", 1, profile);
    CHECK(c.source == CpuCost::Source::kResidual);
    CHECK(c.passes == 2);
    CHECK(c.mid == Approx(40e-6));
    CHECK(c.low == Approx(30e-6));
    CHECK(c.high == Approx(50e-6));
    CHECK(MeasuredCpu(old, "arena", "account", "hit").passes == 0);
  }
}

TEST_CASE("the device's CPU per read: its readers' and the host's",
          "[report][structural]") {
  nlohmann::json doc = flatbench::testing::CraftedDeviceProfile();
  for (auto& c : doc["cells"]) {
    c["cpu_ns_per_read"] = 10000;
    c["host_cpu_ns_per_read"] = 5000;
  }
  const auto with = ParseDeviceProfile(doc, "with.json");
  REQUIRE(with.ok());
  CHECK(with.value().CpuSeconds(8, 4096) == Approx(10e-6));
  CHECK(with.value().HostCpuSeconds(1, 12288) == Approx(5e-6));
  const DeviceProfile without = Parsed();
  CHECK(std::isnan(without.CpuSeconds(1, 4096)));
  CHECK(without.HostCpuSeconds(1, 4096) == 0);

  CpuCost cpu;
  cpu.mid = 50e-6;
  cpu.low = 40e-6;
  cpu.high = 60e-6;
  cpu.passes = 3;
  // 8 threads, one page per read: the two cpus shared with the device's
  // 5 us of host work per read, 55 us a read, and the profile's latency less
  // the CPU its own readers and the device spent (DeviceDelay): CPU-bound,
  // just under 2 / 55 us.
  const RatePrediction p = PredictRate(IoShape{1, 1}, cpu, 8, with.value());
  CHECK(p.cpu_bound);
  const double delay = DeviceDelay(
      8, with.value().LatencySeconds(8, 4096, DeviceProfile::Bound::kMid),
      10e-6, 5e-6, 2);
  CHECK(p.rate == Approx(ClosedRate(8, 55e-6, 2, delay)));
  CHECK(p.rate < 2 / 55e-6);
  CHECK(p.rate > 0.95 * 2 / 55e-6);
  // Without the figure the cpus are the readers' alone, 50 us a read, and
  // the delay the whole latency, 85 us: 38,225 by hand (as below).
  CHECK(PredictRate(IoShape{1, 1}, cpu, 8, without).rate == Approx(38225.4));

  // c measured where a read's kernel path took 20 us, priced where it
  // takes 10: half a storage read per read moves c by -5 us.
  nlohmann::json slow_doc = doc;
  for (auto& c : slow_doc["cells"]) c["cpu_ns_per_read"] = 20000;
  const auto slow = ParseDeviceProfile(slow_doc, "slow.json");
  REQUIRE(slow.ok());
  const CpuCost moved =
      OnDevice(cpu, IoShape{0.5, 1}, 1, slow.value(), with.value());
  CHECK(moved.mid == Approx(45e-6));
  CHECK(moved.low == Approx(35e-6));
  CHECK(moved.high == Approx(55e-6));
  // And back; never below 0.
  CHECK(OnDevice(cpu, IoShape{0.5, 1}, 1, with.value(), slow.value()).mid ==
        Approx(55e-6));
  CHECK(OnDevice(cpu, IoShape{20, 1}, 1, slow.value(), with.value()).mid == 0);
  // A profile without the figure moves nothing.
  CHECK(OnDevice(cpu, IoShape{0.5, 1}, 1, without, with.value()).mid ==
        Approx(50e-6));

  // The host's other CPU measured on the passes (o) replaces the profile's
  // device work: 2 / (50 + 30) us.
  CpuCost with_o = cpu;
  with_o.host = 30e-6;
  CHECK(HostCpuPerRead(IoShape{1, 1}, with_o, 8, with.value()) ==
        Approx(30e-6));
  CHECK(PredictRate(IoShape{1, 1}, with_o, 8, with.value()).rate ==
        Approx(ClosedRate(8, 80e-6, 2, delay)));
  CHECK(PredictRate(IoShape{1, 1}, with_o, 8, with.value()).rate ==
        Approx(2 / 80e-6).epsilon(0.01));
  CHECK(HostCpuPerRead(IoShape{1, 1}, cpu, 8, with.value()) == Approx(5e-6));
  // o measured on a device without host work (`slow`'s cells lack none:
  // give it 0), priced on one with 5 us per storage read: half a read per
  // read adds 2.5 us; and back, never below 0.
  nlohmann::json bare_doc = slow_doc;
  for (auto& c : bare_doc["cells"]) c["host_cpu_ns_per_read"] = 0;
  const auto bare = ParseDeviceProfile(bare_doc, "bare.json");
  REQUIRE(bare.ok());
  CHECK(OnDevice(with_o, IoShape{0.5, 1}, 1, bare.value(), with.value()).host ==
        Approx(32.5e-6));
  with_o.host = 1e-6;
  CHECK(OnDevice(with_o, IoShape{0.5, 1}, 1, with.value(), bare.value()).host ==
        0);
  // Not measured: stays unmeasured, whatever the profiles.
  CHECK(std::isnan(
      OnDevice(cpu, IoShape{0.5, 1}, 1, bare.value(), with.value()).host));

  // A negative or mistyped figure is refused, naming the key.
  nlohmann::json bad = doc;
  bad["cells"][0]["host_cpu_ns_per_read"] = -1;
  auto refused = ParseDeviceProfile(bad, "bad.json");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == Code::kCorruption);
  CHECK_THAT(refused.status().message(),
             Catch::Contains("host_cpu_ns_per_read"));
  bad["cells"][0]["host_cpu_ns_per_read"] = "5";
  CHECK_FALSE(ParseDeviceProfile(bad, "bad.json").ok());
}

TEST_CASE("readers queue for the cores: the closed system",
          "[report][structural]") {
  // One reader: CPU then delay, one after the other.
  CHECK(ClosedRate(1, 20e-6, 2, 30e-6) == Approx(1 / 50e-6));
  // Two, by hand: the first sees an empty queue, 10 us at the cpus (20 / 2)
  // + 10 us of the second server's share + 30 us: 20,000/s, 0.2 readers
  // queued; the second waits 10 x 1.2 us: 2 / (12 + 10 + 30) us.
  CHECK(ClosedRate(2, 20e-6, 2, 30e-6) == Approx(2 / 52e-6));
  // Many: the cpus bind, 2 / 20 us, never above it.
  CHECK(ClosedRate(64, 20e-6, 2, 30e-6) == Approx(1e5).epsilon(1e-3));
  CHECK(ClosedRate(64, 20e-6, 2, 30e-6) <= 1e5);
  // No CPU: each reader waits the delay alone.
  CHECK(ClosedRate(8, 0, 2, 40e-6) == Approx(8 / 40e-6));
  // More readers never read slower, and never faster than both bounds.
  double last = 0;
  for (int t = 1; t <= 32; ++t) {
    const double rate = ClosedRate(t, 20e-6, 2, 100e-6);
    CAPTURE(t);
    CHECK(rate >= last);
    CHECK(rate <= std::min(t / 120e-6, 2 / 20e-6) * (1 + 1e-12));
    last = rate;
  }

  // A profile cell's delay: at depth 1, its latency less its readers' and
  // the device's CPU, 40 - 14 - 9 = 17 us.
  CHECK(DeviceDelay(1, 40e-6, 14e-6, 9e-6, 2) == Approx(17e-6));
  // Without the CPU figures: the whole latency.
  CHECK(DeviceDelay(1, 40e-6, NAN, NAN, 2) == Approx(40e-6));
  // At depth 8: the delay at which the closed system reads at 8 / L.
  const double z = DeviceDelay(8, 70e-6, 7e-6, 7e-6, 2);
  CHECK(z > 0);
  CHECK(z < 70e-6);
  CHECK(ClosedRate(8, 14e-6, 2, z) == Approx(8 / 70e-6));
  // A rate the cpus could not give even with no delay: 0.
  CHECK(DeviceDelay(8, 40e-6, 7e-6, 7e-6, 2) == 0);
}

TEST_CASE("reads/s from threads, CPU per read and the device's latency",
          "[report][structural]") {
  const DeviceProfile profile = Parsed();
  const IoShape one_page{1, 1};
  CpuCost cpu;
  cpu.mid = 50e-6;
  cpu.low = 40e-6;
  cpu.high = 60e-6;
  cpu.passes = 3;
  // 1 thread: 1 / (50 + 15) us.
  RatePrediction p = PredictRate(one_page, cpu, 1, profile);
  CHECK(p.rate == Approx(1 / 65e-6));
  CHECK_FALSE(p.cpu_bound);
  // The interval: slowest c and device together, fastest together.
  CHECK(p.interval.low == Approx(1 / (60e-6 + 30e-6)));
  CHECK(p.interval.high == Approx(1 / (40e-6 + 7.5e-6)));
  // 8 threads would give 8 / (50 + 85) us = 59,259/s, but 2 cpus at 50 us
  // per read give 40,000, and where the two meet the readers queue for the
  // cpus: 38,225 (mean value analysis by hand).
  p = PredictRate(one_page, cpu, 8, profile);
  CHECK(p.rate == Approx(38225.4));
  CHECK(p.rate == Approx(ClosedRate(8, 50e-6, 2, 85e-6)));
  CHECK(p.cpu_bound);
  // RocksDB-like: 2.5 pages per read in one 10 KiB read, 1 thread:
  // 1 / (50 + 10 + 12.5) us.
  const IoShape block{2.5, 2.5};
  CHECK(block.Ops() == Approx(1));
  CHECK(block.ReadBytes() == Approx(10240));
  CHECK(PredictRate(block, cpu, 1, profile).rate == Approx(1 / 72.5e-6));
  // A filtered miss reading 1% of a page: 1 / (50 + 0.15) us.
  CHECK(PredictRate(IoShape{0.01, 1}, cpu, 1, profile).rate ==
        Approx(1 / 50.15e-6));
  // On the own files' device: a 4 KiB read at 1 thread in 100 us, so
  // 1 / (50 + 100) us, and its interval holds c's spread only.
  p = PredictRate(one_page, cpu, 1, profile, 100e-6);
  CHECK(p.rate == Approx(1 / 150e-6));
  CHECK(p.interval.low == Approx(1 / 160e-6));
  CHECK(p.interval.high == Approx(1 / 140e-6));
}

TEST_CASE("read-path variants use their backend's geometry",
          "[report][structural]") {
  CHECK(GeometryBackend("arena+cache") == "arena");
  CHECK(GeometryBackend("rocksdb") == "rocksdb");
}

// A sweep of two sizes whose every figure is known: page-aligned 4 KiB
// units, metadata that fits, independent reads (no reads_per_pass), so one
// page per hit; c = 50 us for both backends at both sizes.
SweepInput CraftedSweep() {
  SweepInput in;
  in.file = "sweep.json";
  in.slots_per_account = 4;
  for (uint64_t accounts : {1000000ULL, 10000000ULL}) {
    SweepSize s;
    s.accounts = accounts;
    s.pairs = accounts * 5;
    s.spec = "crafted";
    for (const std::string b : {"arena", "rocksdb"}) {
      BackendGeometry g;
      for (auto t : {flatbench::Table::kAccount, flatbench::Table::kStorage}) {
        ReadGeometry& rg = g.tables[static_cast<int>(t)];
        rg.pairs = t == flatbench::Table::kAccount ? accounts : accounts * 4;
        rg.data_units = rg.pairs / 40;
        rg.data_bytes = rg.data_units * 4096;
        rg.data_page_aligned = true;
        rg.index_bytes = rg.data_units * 8;
        rg.filter_bytes = rg.pairs;
        rg.index_levels = 1;
        rg.filter_fp_rate = 0.01;
      }
      s.geometry[b] = g;
      for (const std::string table : {"account", "storage"}) {
        for (int rep = 0; rep < 2; ++rep) {
          // arena: 100 us per read at 1 thread on a 50 us own-file
          // device; rocksdb: 200 us on a 150 us one.
          const bool arena = b == "arena";
          s.results.passes.push_back(MakePass(b, table, "hit", 1, rep,
                                              arena ? 10000 : 5000, 4096,
                                              arena ? 20000 : 1 / 150e-6));
          s.results.passes.push_back(MakePass(b, table, "hit", 8, rep,
                                              arena ? 30000 : 25000, 4096,
                                              arena ? 80000 : 40000));
        }
      }
    }
    in.sizes.push_back(std::move(s));
  }
  return in;
}

TEST_CASE("the report predicts every size and full scale from structure",
          "[report][structural]") {
  const SweepInput sweep = CraftedSweep();
  const DeviceProfile profile = Parsed();
  const Thresholds th =
      testing::ArenaOverRocksDbHits({1, 8}, {"account", "storage"});
  const std::string md =
      RenderMarkdown(BuildPredictionDocument(sweep, th, &profile));
  // arena at 1 thread: c = 50 us, 1 / 65 us = 15,385/s against 10,000
  // measured; rocksdb: c = 50 us too, the same 15,385/s against 5,000.
  CHECK(md.find("| 1,000,000 | arena | account hit, 1 thread | 15,385 [") !=
        std::string::npos);
  CHECK(md.find("| 10,000 | **+53.8%** |") != std::string::npos);
  CHECK(md.find("| 1,000,000 | rocksdb | account hit, 1 thread | 15,385 [") !=
        std::string::npos);
  // 8 threads: 2 cpus / 50 us = 40,000/s, and below it where the readers
  // queue for the cpus: 38,225 on the profile's 85 us.
  CHECK(md.find("| 1,000,000 | arena | account hit, 8 threads | 38,225 [") !=
        std::string::npos);
  // The predicted ratio is 1 at both sizes, measured 2 at 1 thread.
  CHECK(md.find("| 1,000,000 | arena/rocksdb cold hit reads/s | arena | "
                "account hit, 1 thread | 1.000 [") != std::string::npos);
  CHECK(md.find("| 2.000 | **-50%** |") != std::string::npos);
  // The holdout needs three sizes.
  CHECK(md.find("A holdout needs three measured sizes") != std::string::npos);
  // Without a profile the report says how to give one.
  const std::string none = RenderMarkdown(BuildPredictionDocument(sweep, th));
  CHECK(none.find("--device-profile") != std::string::npos);
  CHECK(none.find("15,385") == std::string::npos);
}

// The crafted sweep with the arena's passes carrying their CPU per read:
// 30 us cold and, in warm cells added for it, 10 us; RocksDB's do not.
TEST_CASE("the structural section uses the measured CPU and says so",
          "[report][structural]") {
  SweepInput sweep = CraftedSweep();
  for (auto& size : sweep.sizes) {
    std::vector<Pass> warm;
    for (auto& p : size.results.passes) {
      if (p.cell.backend != "arena") continue;
      p.counters[r::kCpuNsPerRead.name] = 30000;
      if (p.cell.threads == 1) {
        warm.push_back(WithCpu(p, 10000, "warm"));
        warm.back().counters.erase(r::kDeviceReadsPerS.name);
      }
    }
    size.results.passes.insert(size.results.passes.end(), warm.begin(),
                               warm.end());
  }
  const DeviceProfile profile = Parsed();
  const Thresholds th =
      testing::ArenaOverRocksDbHits({1, 8}, {"account", "storage"});
  const std::string md =
      RenderMarkdown(BuildPredictionDocument(sweep, th, &profile));
  INFO(md);
  // c per backend and cell: the arena's measured and split, RocksDB's the
  // residual (1 / 5,000 less 150 us), at the smallest and largest size.
  for (const std::string acc : {"1,000,000", "10,000,000"}) {
    for (const std::string table : {"account", "storage"}) {
      CAPTURE(acc, table);
      CHECK(md.find("| " + acc + " | arena | " + table +
                    " hit | measured, 2 passes | 30 µs [30 µs, 30 µs] | 10 "
                    "µs | 20 µs | 50 µs |") != std::string::npos);
      CHECK(md.find("| " + acc + " | rocksdb | " + table +
                    " hit | residual, 2 passes | 50 µs [50 µs, 50 µs] | – | "
                    "– | 50 µs |") != std::string::npos);
    }
  }
  // The arena at 1 thread: 1 / (30 + 15) us = 22,222/s; RocksDB keeps its
  // residual 50 us: 1 / 65 us.
  CHECK(md.find("| 1,000,000 | arena | account hit, 1 thread | 22,222 [") !=
        std::string::npos);
  CHECK(md.find("| 1,000,000 | rocksdb | account hit, 1 thread | 15,385 [") !=
        std::string::npos);
  // 8 threads: 8 / (30 + 85) us = 69,565/s by the device, 2 cpus at 30 us
  // per read 66,667 by CPU; where the two meet the readers queue for the
  // cpus: 56,023 (ClosedRate, mean value analysis by hand).
  CHECK(md.find("| 1,000,000 | arena | account hit, 8 threads | 56,023 [") !=
        std::string::npos);
}

}  // namespace
}  // namespace flatbench::report
