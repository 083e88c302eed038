// The device class (report/device_class.h) and the device latency at which
// a hit check passes (report/verdict/passing_latency.h), every figure
// worked by hand; and that the latency's model is the structural one.
#include "report/device_class.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "report/prediction/structural.h"
#include "report/verdict/passing_latency.h"
#include "test/crafted_profile.h"

namespace flatbench::report {
namespace {

constexpr double kUs = 1e-6;

TEST_CASE("the device class follows its stated bounds", "[report][device]") {
  // The loop device on RAM: 8.7 us at depth 1.
  CHECK(ClassifyDevice(8.7 * kUs, 161000) == DeviceClass::kNvme);
  CHECK(ClassifyDevice(15 * kUs, NAN) == DeviceClass::kNvme);
  // Flash behind NVMe: slow at depth 1, beyond a SATA link at depth 32.
  CHECK(ClassifyDevice(80 * kUs, 320000) == DeviceClass::kNvme);
  CHECK(ClassifyDevice(20 * kUs, 90000) == DeviceClass::kSata);
  CHECK(ClassifyDevice(29.9 * kUs, NAN) == DeviceClass::kSata);
  // This project's virtio disk: 40 us at depth 1, 67,532/s at depth 32.
  CHECK(ClassifyDevice(40 * kUs, 67532) == DeviceClass::kNetwork);
  CHECK(ClassifyDevice(30.5 * kUs, 149999) == DeviceClass::kNetwork);
  CHECK(ClassifyDevice(NAN, 500000) == DeviceClass::kUnknown);
}

TEST_CASE("a profile's class comes from its 4 KiB cells", "[report][device]") {
  auto p = ParseDeviceProfile(flatbench::testing::CraftedNvmeProfile(), "n");
  REQUIRE(p.ok());
  const DeviceClassReading d = DeviceClassOfProfile(p.value());
  CHECK(d.latency_at_1_s == Approx(80 * kUs));
  CHECK(d.reads_per_s_at_32 == Approx(32 / (100 * kUs)));
  CHECK(d.device_class == DeviceClass::kNvme);
  CHECK(DeviceClassText(d) ==
        "NVMe-class (80 µs per 4 KiB read at depth 1, 320,000 reads/s at "
        "depth 32; from n)");
}

LatencyTerms Terms1(double c_a, double c_b, double n_a, double n_b) {
  LatencyTerms t;
  t.bound = 1.8;
  t.threads = 1;
  t.cpus = 32;
  t.depth_scaling = 1;
  t.cpu_candidate = c_a * kUs;
  t.cpu_baseline = c_b * kUs;
  t.reads_candidate = n_a;
  t.reads_baseline = n_b;
  return t;
}

TEST_CASE("a check passes below the latency its CPU advantage carries",
          "[report][device]") {
  // (21 + L) >= 1.8 (5 + L): L <= 12 / 0.8 = 15 us.
  const LatencyTerms t = Terms1(5, 21, 1, 1);
  const auto p = PassingLatencies(t);
  REQUIRE(p.size() == 1);
  CHECK(p[0].low == 0);
  CHECK(p[0].high == Approx(15 * kUs));
  CHECK(ModelRatio(t, 15 * kUs) == Approx(1.8));
  CHECK(ModelRatio(t, 0) == Approx(4.2));
  PassingLatency pl{true, "", t, p};
  CHECK(PassingLatencyText(pl) == "≤ 15 µs");
}

TEST_CASE("a check passes above the latency its fewer reads carry",
          "[report][device]") {
  // (10 + 2L) >= 1.8 (10 + L): L >= 8 / 0.2 = 40 us.
  const auto p = PassingLatencies(Terms1(10, 10, 1, 2));
  REQUIRE(p.size() == 1);
  CHECK(p[0].low == Approx(40 * kUs));
  CHECK(std::isinf(p[0].high));
  PassingLatency pl{true, "", Terms1(10, 10, 1, 2), p};
  CHECK(PassingLatencyText(pl) == "≥ 40 µs");
}

TEST_CASE("every latency, or none, passes", "[report][device]") {
  // CPU alone gives 4, pages alone 2: both above 1.8.
  const auto every = PassingLatencies(Terms1(5, 20, 1, 2));
  REQUIRE(every.size() == 1);
  CHECK(every[0].low == 0);
  CHECK(std::isinf(every[0].high));
  PassingLatency all{true, "", Terms1(5, 20, 1, 2), every};
  CHECK(PassingLatencyText(all) == "every latency");
  // The same CPU and reads: 1 at every latency.
  const LatencyTerms same = Terms1(10, 10, 1, 1);
  CHECK(PassingLatencies(same).empty());
  PassingLatency none{true, "", same, {}};
  CHECK(PassingLatencyText(none) == "none (CPU alone: 1.000)");
}

TEST_CASE("a CPU-bound host shifts the passing latency", "[report][device]") {
  // 32 threads on 2 cpus: by the bounds each backend is CPU-bound (c / 2)
  // until (c + L) / 32 > c / 2, L > 15 c: 75 us for the arena, 300 us for
  // RocksDB; between them 20 / 2 >= 1.8 (5 + L) / 32 while L <= 172.78 us.
  // The readers queue for the cpus near those turns, so the closed model
  // passes a little below that: within 2% of it.
  LatencyTerms t = Terms1(5, 20, 1, 1);
  t.threads = 32;
  t.cpus = 2;
  const auto p = PassingLatencies(t);
  REQUIRE(p.size() == 1);
  CHECK(p[0].low == 0);
  CHECK(p[0].high == Approx((10 * 32 / 1.8 - 5) * kUs).epsilon(0.02));
  CHECK(p[0].high < (10 * 32 / 1.8 - 5) * kUs);
  // At 50 us the arena is CPU-bound, RocksDB too: c_B / c_A = 4 by the
  // bounds, a little under it with the queueing.
  CHECK(ModelRatio(t, 50 * kUs) == Approx(4.0).epsilon(0.01));
  CHECK(ModelRatio(t, p[0].high) == Approx(1.8));
  // Just beyond the edge it fails; a slower device still fails.
  CHECK(ModelRatio(t, p[0].high * 1.01) < 1.8);
  CHECK(ModelRatio(t, 1e-3) < 1.8);
}

TEST_CASE("the passing latency prices reads as the structural model does",
          "[report][device]") {
  // The crafted profile: 4 KiB at depth 8 takes 85 us, at depth 1 15 us,
  // so g(8) = 85 / 15; its host has 2 cpus.
  auto parsed =
      ParseDeviceProfile(flatbench::testing::CraftedDeviceProfile(), "crafted");
  REQUIRE(parsed.ok());
  const DeviceProfile& profile = parsed.value();
  LatencyTerms t = Terms1(30, 200, 1, 2);
  t.threads = 8;
  t.cpus = profile.cpus;
  t.depth_scaling = 85.0 / 15;
  auto rate = [&](double c, double n) {
    CpuCost cpu;
    cpu.mid = cpu.low = cpu.high = c;
    IoShape shape;
    shape.pages = n;
    return PredictRate(shape, cpu, 8, profile).rate;
  };
  const double structural = rate(t.cpu_candidate, t.reads_candidate) /
                            rate(t.cpu_baseline, t.reads_baseline);
  CHECK(ModelRatio(t, 15 * kUs) == Approx(structural));
}

}  // namespace
}  // namespace flatbench::report
