// Page-cache control and the cold pass: per-file eviction empties a
// backend's files (tests never drop the whole machine's page cache), a cold
// pass really reads storage, its device cell comes first, and the open
// preloads each backend's read metadata.
#include <catch2/catch.hpp>
#include <cmath>

#include "bench/disk_inflight.h"
#include "bench/io_stats.h"
#include "bench/page_cache.h"
#include "bench/worker.h"
#include "common/results_schema.h"
#include "test/bench/tiny_dataset.h"

namespace flatbench::bench {
namespace {

using testing::TinyDatasetDir;

using testing::CounterValue;

TEST_CASE("per-file eviction empties the page cache of a backend's files",
          "[bench][cold]") {
  auto ds = datagen::Dataset::Open(TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    auto files = ListFiles(ds->BackendDir(b));
    REQUIRE(files.ok());
    REQUIRE(MakeResident(files.value()).ok());
    auto warm = MeasureResidency(files.value());
    REQUIRE(warm.ok());
    CHECK(warm->total_pages > 0);
    CHECK(warm->fraction() >= 0.99);
    EvictMethod method;
    REQUIRE(Evict(files.value(), &method, /*allow_drop_caches=*/false).ok());
    CHECK(method == EvictMethod::kFadvise);
    auto cold = MeasureResidency(files.value());
    REQUIRE(cold.ok());
    CHECK(cold->fraction() <= 0.01);
  }
}

TEST_CASE("a held file stays resident and the hold is released",
          "[bench][warm]") {
  auto ds = datagen::Dataset::Open(TinyDatasetDir());
  REQUIRE(ds.ok());
  auto files = ListFiles(ds->BackendDir("arena"));
  REQUIRE(files.ok());
  {
    auto hold = ResidentHold::Acquire(files.value());
    REQUIRE(hold.ok());
    CAPTURE(hold.value()->method());
    // fadvise cannot drop pages that a mapping holds.
    EvictMethod method;
    REQUIRE(Evict(files.value(), &method, false).ok());
    auto r = MeasureResidency(files.value());
    REQUIRE(r.ok());
    CHECK(r->fraction() >= 0.99);
  }
  EvictMethod method;
  REQUIRE(Evict(files.value(), &method, false).ok());
  auto r = MeasureResidency(files.value());
  REQUIRE(r.ok());
  CHECK(r->fraction() <= 0.01);
}

// A store of more files than the hold may map (the fs store: 60,000 files
// at tiny, against half of vm.max_map_count): those beyond the budget are
// not mapped, and Refresh reads them back after an eviction. The budget is
// set small here, so the test does not depend on the host's limit.
TEST_CASE("a hold re-reads the files it cannot map", "[bench][warm]") {
  auto ds = datagen::Dataset::Open(TinyDatasetDir());
  REQUIRE(ds.ok());
  // The arena's two files, one of them mapped.
  auto listed = ListFiles(ds->BackendDir("arena"));
  REQUIRE(listed.ok());
  const std::vector<std::string>& files = listed.value();
  REQUIRE(files.size() == 2);
  auto hold = ResidentHold::Acquire(files, /*map_budget=*/1);
  REQUIRE(hold.ok());
  const ResidentHold& h = *hold.value();
  CAPTURE(h.method());
  REQUIRE(h.unmapped() ==
          std::vector<std::string>(files.begin() + 1, files.end()));
  CHECK(h.method().find("; 1 of 2 files re-read into the page cache") !=
        std::string::npos);
  auto resident = MeasureResidency(files);
  REQUIRE(resident.ok());
  CHECK(resident->fraction() >= 0.99);
  // fadvise drops the unmapped files' pages only.
  EvictMethod method;
  REQUIRE(Evict(files, &method, false).ok());
  auto mapped = MeasureResidency({files[0]});
  REQUIRE(mapped.ok());
  CHECK(mapped->fraction() >= 0.99);
  auto evicted = MeasureResidency(h.unmapped());
  REQUIRE(evicted.ok());
  CHECK(evicted->fraction() <= 0.01);
  REQUIRE(h.Refresh().ok());
  resident = MeasureResidency(files);
  REQUIRE(resident.ok());
  CHECK(resident->fraction() >= 0.99);
}

// Every backend: a cold hit pass after a verified eviction reads storage,
// and is preceded by its device cell on the same table's files.
TEST_CASE("a cold pass reads storage and follows its device cell",
          "[bench][cold]") {
  auto ds = datagen::Dataset::Open(TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    WorkerOptions o;
    o.allow_drop_caches = false;
    o.check.samples = 100;
    Worker w(ds.value(), b, testing::TinyOpener(ds.value()), o);
    auto hello = w.Hello();
    REQUIRE(hello.ok());
    REQUIRE(hello.value()[results::BackendKey(b, results::kSanityPassed)] ==
            true);
    // A store whose files hold no whole 4 KiB block (fs) has no device
    // cell, and says so in its context.
    const std::string device =
        hello.value()[results::BackendKey(b, results::kDeviceStatus)];
    const bool has_device = device.rfind("measured", 0) == 0;
    if (!has_device) CHECK(device.rfind("skipped: ", 0) == 0);
    for (Table table : {Table::kAccount, Table::kStorage}) {
      CAPTURE(TableName(table));
      Step step;
      step.backend = b;
      step.mode = Mode::kCold;
      step.cell = {table, datagen::KeyKind::kHit, 1};
      step.reads_per_thread = 500;
      step.device_reads_per_thread = 200;
      auto entries = w.RunStep(step);
      REQUIRE(entries.ok());
      REQUIRE(entries->size() == (has_device ? 2u : 1u));
      const auto& e = entries.value().back();
      CHECK(CounterValue(e, results::kEvictionVerified) == 1);
      CHECK(CounterValue(e, results::kResidentFractionAfterEviction) <= 0.01);
      const double faults = CounterValue(e, results::kMajorFaultsPerRead);
      const double bytes = CounterValue(e, results::kBytesReadPerRead);
      CHECK((faults > 0 || bytes > 0));
      if (b == "postgres") {
        // Its reads happen in its server processes (pread into shared
        // buffers), whose I/O the pass sums; its memory adds their Pss to
        // the worker's (this process's) RSS.
        CHECK(bytes > 0);
        CHECK(CounterValue(e, results::kRssAfterPassBytes) >
              static_cast<double>(RssBytes() + (4 << 20)));
      }
      CHECK(CounterValue(e, results::kFoundFraction) == 1.0);
      CHECK(CounterValue(e, results::kDistinctKeys) == 500);
      // The worker's CPU time per read over the pass (a server backend's
      // server processes' too): positive and finite.
      const double cpu = CounterValue(e, results::kCpuNsPerRead);
      CHECK(std::isfinite(cpu));
      CHECK(cpu > 0);
      if (!has_device) {
        CHECK_FALSE(e.contains(std::string(results::kDeviceReadsPerS.name)));
        CHECK_FALSE(e.contains(std::string(results::kIoEfficiency.name)));
        continue;
      }
      const auto& dev = entries.value()[0];
      CHECK(dev["name"] ==
            b + "/" + TableName(table) + "/device/cold/" + "threads:1/rep:0");
      CHECK(CounterValue(dev, results::kStorageBound) == 1);
      CHECK(CounterValue(dev, results::kFoundFraction) == 1);
      CHECK(CounterValue(dev, results::kReadsPerS) > 0);
      CHECK(std::isfinite(CounterValue(dev, results::kCpuNsPerRead)));
      CHECK(CounterValue(dev, results::kCpuNsPerRead) > 0);
      CHECK(CounterValue(e, results::kDeviceReadsPerS) ==
            CounterValue(dev, results::kReadsPerS));
      CHECK(CounterValue(e, results::kIoEfficiency) ==
            Approx(CounterValue(e, results::kReadsPerS) /
                   CounterValue(dev, results::kReadsPerS)));
    }
  }
}

// Opening an arena reads its index and filter from their own pages and no
// data page (format 2), so at tiny scale a cold pass over distinct blocks
// faults about once per read instead of finding data pages the open
// brought in.
TEST_CASE("a cold tiny arena pass faults once per read on storage",
          "[bench][cold]") {
  auto ds = datagen::Dataset::Open(TinyDatasetDir());
  REQUIRE(ds.ok());
  WorkerOptions o;
  o.allow_drop_caches = false;
  o.check.samples = 20;
  Worker w(ds.value(), "arena", testing::TinyOpener(ds.value()), o);
  REQUIRE(w.Hello().ok());
  Step step;
  step.backend = "arena";
  step.mode = Mode::kCold;
  step.cell = {Table::kStorage, datagen::KeyKind::kHit, 1};
  step.reads_per_thread = 40;  // Of about 1,000 data blocks: few repeats.
  auto entries = w.RunStep(step);
  REQUIRE(entries.ok());
  REQUIRE(entries->size() == 1);
  const auto& e = entries.value()[0];
  REQUIRE(CounterValue(e, results::kEvictionVerified) == 1);
  CHECK(CounterValue(e, results::kMajorFaultsPerRead) >= 0.9);
  // Each fault is a read request the device completed (other processes'
  // reads on the device can only add to the count).
  const std::string requests(results::kDeviceRequestsPerRead.name);
  if (DeviceReadCounter(TinyDatasetDir()).known()) {
    REQUIRE(e.contains(requests));
    CHECK(e[requests].get<double>() >= 0.9);
  } else {
    CHECK_FALSE(e.contains(requests));
  }
}

// cold means every backend's read metadata is resident after the open, and
// cold-lazy that none is: the open preloads more than the lazy open.
TEST_CASE("the cold open preloads metadata, the lazy open does not",
          "[bench][cold]") {
  auto ds = datagen::Dataset::Open(TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    WorkerOptions o;
    o.allow_drop_caches = false;
    o.check.samples = 20;
    Worker w(ds.value(), b, testing::TinyOpener(ds.value()), o);
    auto hello = w.Hello();
    REQUIRE(hello.ok());
    // A store with no metadata of its own (fs) says it preloads nothing.
    const std::string preload =
        hello.value()[results::BackendKey(b, results::kPreload)];
    const bool preloads = preload.rfind("nothing", 0) != 0;
    double preloaded[2];
    for (Mode mode : {Mode::kCold, Mode::kColdLazy}) {
      Step step;
      step.backend = b;
      step.mode = mode;
      step.cell = {Table::kStorage, datagen::KeyKind::kMissAbsent, 1};
      step.reads_per_thread = 1;
      auto entries = w.RunStep(step);
      REQUIRE(entries.ok());
      REQUIRE(entries->size() == 1);
      preloaded[mode == Mode::kCold] =
          CounterValue(entries.value()[0], results::kPreloadedBytes);
    }
    if (preloads) {
      CHECK(preloaded[1] > preloaded[0]);
    } else {
      CHECK(preloaded[1] == preloaded[0]);
    }
  }
}

}  // namespace
}  // namespace flatbench::bench
