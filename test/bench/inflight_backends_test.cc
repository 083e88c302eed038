// A 32-thread pass of every backend of this build: within one pass the
// mean reads in flight cannot exceed the peak (RESULTS_FORMAT.md), and
// neither exceeds the thread count. Cold hit passes wait on storage, so
// their threads overlap however the host schedules them.
#include <catch2/catch.hpp>

#include "backends/table.h"
#include "bench/worker.h"
#include "common/results_schema.h"
#include "datagen/dataset_dir.h"
#include "test/bench/tiny_dataset.h"
#include "test/temp_dir.h"

namespace flatbench::bench {
namespace {

namespace r = flatbench::results;
using testing::CounterValue;

constexpr int kThreads = 32;
constexpr uint64_t kReadsPerThread = 64;

// 4,000 accounts of one slot in every store of this build, the file store
// included (the shared tiny dataset of this executable leaves it out).
const datagen::Dataset& EveryStore() {
  static testing::TempDir* tmp = new testing::TempDir();  // Outlives cases.
  static const datagen::Dataset ds = [] {
    datagen::GenOptions o;
    o.dir = *tmp / "every";
    auto spec = dataset::MakeSpec("custom", 4000, 1, dataset::kDefaultSeed);
    REQUIRE(spec.ok());
    o.spec = spec.value();
    o.backends = backends::Stores();
    o.progress = false;
    auto built = datagen::Generate(o, backends::NewLoader);
    INFO(built.status().message());
    REQUIRE(built.ok());
    auto opened = datagen::Dataset::Open(o.dir);
    REQUIRE(opened.ok());
    return opened.value();
  }();
  return ds;
}

TEST_CASE("a 32-thread pass of every backend peaks at or above its mean",
          "[bench][inflight]") {
  const datagen::Dataset& ds = EveryStore();
  for (const std::string& b : backends::Names()) {
    CAPTURE(b);
    WorkerOptions o;
    o.allow_drop_caches = false;
    o.lazy_needed = false;
    o.check.samples = 20;
    Worker w(ds, b, testing::TinyOpener(ds), o);
    auto hello = w.Hello();
    REQUIRE(hello.ok());
    REQUIRE(hello.value()[r::BackendKey(b, r::kSanityPassed)] == true);
    Step step;
    step.backend = b;
    step.mode = Mode::kCold;
    step.cell = {Table::kAccount, datagen::KeyKind::kHit, kThreads};
    step.reads_per_thread = kReadsPerThread;
    auto entries = w.RunStep(step);
    INFO(entries.status().message());
    REQUIRE(entries.ok());
    REQUIRE(entries->size() == 1);
    const auto& e = entries.value().back();
    const double mean = CounterValue(e, r::kMeanInflight);
    const double peak = CounterValue(e, r::kPeakInflight);
    CAPTURE(mean, peak);
    CHECK(mean > 0);
    CHECK(peak >= mean);
    CHECK(peak <= kThreads);
  }
}

}  // namespace
}  // namespace flatbench::bench
