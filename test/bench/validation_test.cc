// The sanity check runs before any pass and fails loudly on a wrong answer.
#include <catch2/catch.hpp>

#include "bench/harness.h"
#include "test/bench/tiny_dataset.h"

namespace flatbench::bench {
namespace {

TEST_CASE("a deliberately wrong expected value fails validation",
          "[bench][sanity]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    BenchOptions o;
    o.modes = {Mode::kWarm};
    o.threads = {1};
    o.repetitions = 1;
    o.reads_per_pass = 10;
    o.check.samples = 50;
    o.check.corrupt_expectations = true;
    o.progress = false;
    auto run = RunBackend(ds.value(), b, testing::TinyOpener(ds.value()), o);
    REQUIRE(run.ok());
    REQUIRE_FALSE(run->sanity.ok());
    CHECK(run->sanity.code() == Code::kCorruption);
    CHECK_THAT(run->sanity.message(), Catch::Contains("expected"));
    CHECK(run->benchmarks.empty());  // Nothing measured on a bad backend.
    std::string verdict = run->context["flatbench.backend." + b + ".sanity"];
    CHECK_THAT(verdict, Catch::StartsWith("failed: "));
  }
}

TEST_CASE("a correct backend passes validation", "[bench][sanity]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& b : testing::TinyBackends()) {
    CAPTURE(b);
    BenchOptions o;
    o.modes = {Mode::kWarm};
    o.tables = {Table::kAccount};
    o.kinds = {datagen::KeyKind::kHit};
    o.threads = {1};
    o.repetitions = 1;
    o.reads_per_pass = 10;
    o.check.samples = 50;
    o.progress = false;
    auto run = RunBackend(ds.value(), b, testing::TinyOpener(ds.value()), o);
    REQUIRE(run.ok());
    CHECK(run->sanity.ok());
    std::string verdict = run->context["flatbench.backend." + b + ".sanity"];
    CHECK_THAT(verdict, Catch::StartsWith("passed ("));
  }
}

}  // namespace
}  // namespace flatbench::bench
