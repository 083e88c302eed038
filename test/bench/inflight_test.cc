// Threads of a pass really run concurrently, and the peak of reads in flight
// is observed.
#include "bench/inflight.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "bench/pass.h"

namespace flatbench::bench {
namespace {

TEST_CASE("peak in flight of crafted intervals", "[bench][inflight]") {
  std::vector<std::vector<ReadInterval>> iv = {
      {{0, 10}, {20, 30}},
      {{5, 25}},
      {{10, 20}, {24, 26}},  // Starts exactly when [0,10] ends: no overlap.
  };
  // At t=24: [20,30], [5,25] and [24,26] are in flight.
  CHECK(PeakInFlight(iv, {2, 1, 2}) == 3);
  CHECK(PeakInFlight(iv, {1, 0, 1}) == 1);  // [0,10] then [10,20].
  CHECK(PeakInFlight(iv, {0, 0, 0}) == 0);
}

// Threads whose loops do not overlap leave the pass short of readers: one
// slow thread reading alone for most of the pass gives a mean in flight
// near one, whatever the thread count (the seed benchmark's 32-thread row
// ran about 16 readers this way), while the peak still says 4.
TEST_CASE("a pass whose threads finish early shows a low mean in flight",
          "[bench][inflight]") {
  class Uneven : public PassReader {
   public:
    explicit Uneven(int thread) : slow_(thread == 0) {}
    Status Read(uint64_t, bool* found) override {
      // The fast threads read for 20 ms in all, long enough that all four
      // overlap even when a loaded machine (or ThreadSanitizer) starts the
      // threads milliseconds apart; the slow one reads for 400 ms.
      std::this_thread::sleep_for(std::chrono::milliseconds(slow_ ? 20 : 1));
      *found = true;
      return Status::Ok();
    }

   private:
    bool slow_;
  };
  PassSpec spec;
  spec.name = "fake/account/hit/cold/threads:4/rep:0";
  spec.threads = 4;
  spec.reads_per_thread = 20;
  spec.make_reader = [](int t) -> Result<std::unique_ptr<PassReader>> {
    return std::unique_ptr<PassReader>(std::make_unique<Uneven>(t));
  };
  auto r = RunPass(spec);
  REQUIRE(r.ok());
  CHECK(r->peak_inflight == 4);
  CHECK(r->mean_inflight < 2.0);
  CHECK(r->mean_inflight >= 1.0);
}

// A reader that blocks for a while, as a cold read waiting on the disk does.
class SleepyReader : public PassReader {
 public:
  Status Read(uint64_t, bool* found) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    *found = true;
    return Status::Ok();
  }
};

TEST_CASE("8 threads reach 8 reads in flight", "[bench][inflight]") {
  const int threads = GENERATE(1, 8);
  CAPTURE(threads);
  PassSpec spec;
  spec.name =
      "fake/account/hit/cold/threads:" + std::to_string(threads) + "/rep:0";
  spec.threads = threads;
  spec.reads_per_thread = 20;
  spec.make_reader = [](int) -> Result<std::unique_ptr<PassReader>> {
    return std::unique_ptr<PassReader>(std::make_unique<SleepyReader>());
  };
  auto r = RunPass(spec);
  REQUIRE(r.ok());
  CHECK(r->reads == static_cast<uint64_t>(threads) * 20);
  CHECK(r->found == r->reads);
  CHECK(r->peak_inflight == static_cast<uint64_t>(threads));
  // One read in kLatencySampleEvery is timed: reads 0 and 16 of 20.
  CHECK(r->latency.count() == static_cast<uint64_t>(threads) * 2);
  // The threads' loops overlap for (nearly) the whole pass.
  CHECK(r->mean_inflight >= 0.8 * threads);
  CHECK(r->mean_inflight <= threads + 0.01);
  CHECK(r->latency.Percentile(0.5) >= 2e6);
  CHECK(r->entry["name"].get<std::string>() == spec.name);
  // google-benchmark counts iterations over all threads.
  CHECK(r->entry["iterations"].get<int>() == threads * 20);
  CHECK(r->entry["threads"].get<int>() == threads);
}

TEST_CASE("a failing read fails the pass loudly", "[bench][inflight]") {
  class Failing : public PassReader {
   public:
    Status Read(uint64_t i, bool* found) override {
      *found = false;
      return i == 3 ? Status::IOError("disk on fire") : Status::Ok();
    }
  };
  PassSpec spec;
  spec.name = "fake/account/hit/warm/threads:2/rep:0";
  spec.threads = 2;
  spec.reads_per_thread = 10;
  spec.make_reader = [](int) -> Result<std::unique_ptr<PassReader>> {
    return std::unique_ptr<PassReader>(std::make_unique<Failing>());
  };
  auto r = RunPass(spec);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("disk on fire"));
}

}  // namespace
}  // namespace flatbench::bench
