// Threads of a pass really run concurrently, and the peak and mean of reads
// in flight are observed. The threads meet at gates, not on a schedule: the
// figures checked do not depend on how busy the machine is.
#include "bench/inflight.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "bench/pass.h"
#include "common/rng.h"

namespace flatbench::bench {
namespace {

TEST_CASE("peak in flight of crafted loops", "[bench][inflight]") {
  CHECK(PeakInFlight({}) == 0);
  // At t=24: [20,30], [5,25] and [24,26] overlap.
  CHECK(PeakInFlight({{20, 30}, {5, 25}, {24, 26}}) == 3);
  CHECK(PeakInFlight({{0, 10}, {10, 20}}) == 1);  // Touching: no overlap.
  CHECK(PeakInFlight({{0, 100}, {0, 100}, {0, 100}, {0, 100}}) == 4);
  CHECK(PeakInFlight({{0, 400}, {0, 20}, {30, 50}, {60, 80}}) == 2);
}

// The mean is the time average of the count whose maximum is the peak, so
// no set of loops can put it above the peak; the seed and each case are
// printed.
TEST_CASE("the peak in flight is never below the mean", "[bench][inflight]") {
  constexpr uint64_t kSeed = 0x696e666c69676874ULL;
  SplitMix64 rng(kSeed);
  CAPTURE(kSeed);
  for (int c = 0; c < 2000; ++c) {
    CAPTURE(c);
    std::vector<LoopSpan> loops(1 + rng.Below(32));
    for (auto& l : loops) {
      l.start_ns = rng.Below(1000);
      l.end_ns = l.start_ns + rng.Below(c % 2 == 0 ? 50 : 1000);
    }
    const uint64_t peak = PeakInFlight(loops);
    const double mean = MeanInFlight(loops);
    CAPTURE(peak, mean);
    CHECK(static_cast<double>(peak) >= mean);
    CHECK(peak <= loops.size());
  }
}

TEST_CASE("mean in flight of crafted loops", "[bench][inflight]") {
  CHECK(MeanInFlight({}) == 0);
  CHECK(MeanInFlight({{5, 5}}) == 0);  // No time passed.
  // Loops that overlap the whole pass: the thread count.
  CHECK(MeanInFlight({{0, 100}, {0, 100}, {0, 100}, {0, 100}}) == 4);
  // One thread reading alone for most of the pass: near one, whatever the
  // thread count (the seed benchmark's 32-thread row ran about 16 readers
  // this way), though all four were reading at the start.
  CHECK(MeanInFlight({{0, 400}, {0, 20}, {0, 20}, {0, 20}}) ==
        Approx(460.0 / 400));
  // Staggered: the wall runs from the first start to the last end.
  CHECK(MeanInFlight({{0, 100}, {50, 150}}) == Approx(200.0 / 150));
}

// Holds every reader of a pass at its first read until all of the pass's
// threads are there, so all of them are in flight at once however the
// threads are scheduled. A pass whose threads did not run concurrently
// would never fill it: after a generous deadline the read fails instead.
class Gate {
 public:
  explicit Gate(int threads) : left_(threads) {}
  Status Arrive() {
    std::unique_lock<std::mutex> lock(mu_);
    if (--left_ == 0) cv_.notify_all();
    if (!cv_.wait_for(lock, std::chrono::seconds(60),
                      [&] { return left_ == 0; })) {
      return Status::IOError("the pass's threads never all read at once");
    }
    return Status::Ok();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int left_;
};

// A reader that blocks for a while, as a cold read waiting on the disk does,
// after meeting the others at the gate on its first read.
class GatedReader : public PassReader {
 public:
  explicit GatedReader(Gate* gate) : gate_(gate) {}
  Status Read(uint64_t i, bool* found) override {
    if (i == 0) FLATBENCH_RETURN_IF_ERROR(gate_->Arrive());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    *found = true;
    return Status::Ok();
  }

 private:
  Gate* gate_;
};

// Every thread's first read is in flight at the gate at once: the peak is
// exactly the thread count. Every loop spans the gate, so together they
// cover the pass: the mean is at least one and at most the peak.
TEST_CASE("8 threads reach 8 reads in flight", "[bench][inflight]") {
  const int threads = GENERATE(1, 8);
  CAPTURE(threads);
  Gate gate(threads);
  PassSpec spec;
  spec.name =
      "fake/account/hit/cold/threads:" + std::to_string(threads) + "/rep:0";
  spec.threads = threads;
  spec.reads_per_thread = 20;
  spec.make_reader = [&gate](int) -> Result<std::unique_ptr<PassReader>> {
    return std::unique_ptr<PassReader>(std::make_unique<GatedReader>(&gate));
  };
  auto r = RunPass(spec);
  INFO(r.status().message());
  REQUIRE(r.ok());
  CHECK(r->reads == static_cast<uint64_t>(threads) * 20);
  CHECK(r->found == r->reads);
  CHECK(r->peak_inflight == static_cast<uint64_t>(threads));
  // One read in kLatencySampleEvery is timed: reads 0 and 16 of 20.
  CHECK(r->latency.count() == static_cast<uint64_t>(threads) * 2);
  CHECK(r->mean_inflight >= 1.0);
  CHECK(r->mean_inflight <= static_cast<double>(r->peak_inflight));
  // 20 reads of at least 2 ms each.
  CHECK(r->wall_seconds >= 0.040);
  CHECK(r->latency.Percentile(0.5) >= 2e6);
  CHECK(r->entry["name"].get<std::string>() == spec.name);
  // google-benchmark counts iterations over all threads.
  CHECK(r->entry["iterations"].get<int>() == threads * 20);
  CHECK(r->entry["threads"].get<int>() == threads);
}

// Threads that finish early stop counting towards the mean: a pass's loop
// spans are each thread's own, not google-benchmark's, whose loop ends with
// a barrier across the threads. Three fast threads read without waiting;
// the slow one, once they have all made their last read, reads on alone for
// a second. Their spans may stretch only by the time a thread returning
// from its read takes to read the clock, far below that second.
TEST_CASE("a pass whose threads finish early shows a low mean in flight",
          "[bench][inflight]") {
  constexpr int kThreads = 4;
  constexpr uint64_t kReads = 20;
  struct Shared {
    Gate start{kThreads};
    Gate fast_done{kThreads};
  } shared;
  class Uneven : public PassReader {
   public:
    Uneven(int thread, Shared* sh) : slow_(thread == 0), sh_(sh) {}
    Status Read(uint64_t i, bool* found) override {
      *found = true;
      if (i == 0) return sh_->start.Arrive();
      if (slow_ && i == 1) {
        FLATBENCH_RETURN_IF_ERROR(sh_->fast_done.Arrive());
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      if (!slow_ && i == kReads - 1) return sh_->fast_done.Arrive();
      return Status::Ok();
    }

   private:
    bool slow_;
    Shared* sh_;
  };
  PassSpec spec;
  spec.name = "fake/account/hit/cold/threads:4/rep:0";
  spec.threads = kThreads;
  spec.reads_per_thread = kReads;
  spec.make_reader = [&shared](int t) -> Result<std::unique_ptr<PassReader>> {
    return std::unique_ptr<PassReader>(std::make_unique<Uneven>(t, &shared));
  };
  auto r = RunPass(spec);
  INFO(r.status().message());
  REQUIRE(r.ok());
  CHECK(r->peak_inflight == kThreads);
  CHECK(r->wall_seconds >= 1.0);
  CHECK(r->mean_inflight >= 1.0);
  CHECK(r->mean_inflight < 2.0);
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
