// A cold pass on a tiny dataset really reads from storage: after eviction,
// an mmap backend takes major faults or reads bytes from the device.
#include <catch2/catch.hpp>

#include "bench/eviction.h"
#include "bench/harness.h"
#include "test/bench/tiny_dataset.h"

namespace flatbench::bench {
namespace {

using testing::TinyDatasetDir;

TEST_CASE("eviction empties the page cache of a backend's files",
          "[bench][cold]") {
  const bool allow_drop_caches = GENERATE(true, false);
  CAPTURE(allow_drop_caches);
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
    REQUIRE(Evict(files.value(), &method, allow_drop_caches).ok());
    if (!allow_drop_caches) CHECK(method == EvictMethod::kFadvise);
    auto cold = MeasureResidency(files.value());
    REQUIRE(cold.ok());
    if (cold->fraction() > 0.01) {
      WARN("eviction is not effective here (" << EvictMethodName(method)
                                              << " left " << cold->fraction()
                                              << " resident); skipping");
      continue;
    }
    CHECK(cold->fraction() <= 0.01);
  }
}

// The mmap backends: a cold read shows up as a major fault and as bytes
// read from storage. The arena is in every build; LMDB is optional.
void CheckColdPassReadsStorage(const std::string& backend) {
  CAPTURE(backend);
  auto ds = datagen::Dataset::Open(TinyDatasetDir());
  REQUIRE(ds.ok());
  BenchOptions o;
  o.modes = {Mode::kCold};
  o.tables = {Table::kAccount, Table::kStorage};
  o.kinds = {datagen::KeyKind::kHit};
  o.threads = {1};
  o.repetitions = 1;
  o.reads_per_pass = 500;
  o.check.samples = 200;
  o.progress = false;
  auto run =
      RunBackend(ds.value(), backend, testing::TinyOpener(ds.value()), o);
  REQUIRE(run.ok());
  REQUIRE(run->sanity.ok());
  REQUIRE(run->benchmarks.size() == 2);
  for (const auto& e : run->benchmarks) {
    CAPTURE(e.dump());
    if (e["eviction_verified"].get<double>() != 1.0) {
      WARN("SKIPPED: eviction not permitted or not effective here ("
           << run->context.value("flatbench.backend." + backend + ".eviction",
                                 "?")
           << "), so a cold pass cannot be shown to read storage");
      return;
    }
    CHECK(e["resident_fraction_after_eviction"].get<double>() <= 0.01);
    const double faults = e["major_faults_per_read"].get<double>();
    const double bytes = e["bytes_read_per_read"].get<double>();
    CHECK((faults > 0 || bytes > 0));
    CHECK(e["found_fraction"].get<double>() == 1.0);
    CHECK(e["distinct_keys"].get<double>() == 500);
  }
}

TEST_CASE("a cold pass takes faults or storage reads per read",
          "[bench][cold]") {
  CheckColdPassReadsStorage("arena");
  const auto backends = testing::TinyBackends();
  if (std::find(backends.begin(), backends.end(), "lmdb") != backends.end()) {
    CheckColdPassReadsStorage("lmdb");
  }
}

}  // namespace
}  // namespace flatbench::bench
