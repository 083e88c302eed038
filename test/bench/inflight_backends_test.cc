// A 32-thread pass of every backend of this build: within one pass the
// mean reads in flight cannot exceed the peak (RESULTS_FORMAT.md), and
// neither exceeds the thread count. Cold hit passes wait on storage, so
// their threads overlap however the host schedules them.
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>

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

// The executable's shared tiny dataset (test/tiny_dataset.h) for every
// store it holds; the file store, which it leaves out, from a dataset of
// its own of 4,000 accounts of one slot (12,000 files), built on first use.
// Sharing the tiny dataset spares this case a second build of every other
// store (a PostgreSQL cluster among them).
const datagen::Dataset& FileStoreDataset() {
  static std::unique_ptr<testing::TempDir> tmp;  // Removed at exit.
  static std::optional<datagen::Dataset> ds;
  if (!ds) {
    tmp = std::make_unique<testing::TempDir>();
    datagen::GenOptions o;
    o.dir = *tmp / "fs";
    auto spec = dataset::MakeSpec("custom", 4000, 1, dataset::kDefaultSeed);
    REQUIRE(spec.ok());
    o.spec = spec.value();
    o.backends = {"fs"};
    o.progress = false;
    auto built = datagen::Generate(o, backends::NewLoader);
    INFO(built.status().message());
    REQUIRE(built.ok());
    auto opened = datagen::Dataset::Open(o.dir);
    REQUIRE(opened.ok());
    ds = opened.value();
  }
  return *ds;
}

const datagen::Dataset& TinyDataset() {
  static const datagen::Dataset ds = [] {
    auto opened = datagen::Dataset::Open(testing::TinyDatasetDir());
    REQUIRE(opened.ok());
    return opened.value();
  }();
  return ds;
}

// The dataset holding backend `b`'s store: every store of this build is in
// one of the two.
const datagen::Dataset& DatasetOf(const std::string& b) {
  if (testing::TinyHolds(b)) return TinyDataset();
  const backends::Entry* e = backends::Find(b);
  REQUIRE(e != nullptr);
  REQUIRE(e->store == "fs");
  return FileStoreDataset();
}

TEST_CASE("a 32-thread pass of every backend peaks at or above its mean",
          "[bench][inflight]") {
  for (const std::string& b : backends::Names()) {
    CAPTURE(b);
    const datagen::Dataset& ds = DatasetOf(b);
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
