// The sanity check runs before any pass and fails loudly on a wrong answer;
// a backend that fails it is never measured.
#include <catch2/catch.hpp>

#include "bench/run.h"
#include "common/results_schema.h"
#include "test/bench/local_channel.h"
#include "test/bench/tiny_dataset.h"

namespace flatbench::bench {
namespace {

std::unique_ptr<Worker> TinyWorker(const datagen::Dataset& ds,
                                   const std::string& b, bool corrupt) {
  WorkerOptions o;
  o.allow_drop_caches = false;
  o.check.samples = 50;
  o.check.corrupt_expectations = corrupt;
  return std::make_unique<Worker>(ds, b, testing::TinyOpener(ds), o);
}

TEST_CASE("a deliberately wrong expected value fails validation",
          "[bench][sanity]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    auto hello = TinyWorker(ds.value(), b, true)->Hello();
    REQUIRE(hello.ok());
    CHECK(hello.value()[results::BackendKey(b, results::kSanityPassed)] ==
          false);
    CHECK_THAT(hello.value()[results::BackendKey(b, results::kSanityError)]
                   .get<std::string>(),
               Catch::Contains("expected"));

    // The driver measures nothing on a backend whose check failed.
    LocalChannel ch(TinyWorker(ds.value(), b, true));
    RunOptions ro;
    ro.schedule.backends = {b};
    ro.schedule.modes = {Mode::kCold};
    ro.schedule.tables = {Table::kAccount};
    ro.schedule.kinds = {datagen::KeyKind::kHit};
    ro.schedule.threads = {1};
    ro.schedule.reads_per_pass = 10;
    ro.progress = false;
    auto out = RunMatrix(ds.value(), ro, {{b, &ch}}, nlohmann::json::object());
    REQUIRE(out.ok());
    CHECK(out->sanity_failed);
    CHECK(out->document["benchmarks"].empty());
  }
}

TEST_CASE("a correct backend passes validation", "[bench][sanity]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    auto hello = TinyWorker(ds.value(), b, false)->Hello();
    REQUIRE(hello.ok());
    CHECK(hello.value()[results::BackendKey(b, results::kSanityPassed)] ==
          true);
    // Both tables, hits and every miss kind, eager and lazy opens.
    CHECK(hello.value()[results::BackendKey(b, results::kSanityKeys)]
              .get<uint64_t>() >= 2 * 5 * 50);
  }
}

}  // namespace
}  // namespace flatbench::bench
