// The gen estimate: one-writer stores at their writer's rate whatever the
// jobs (dataset/estimate.h), and its calibration from this host's dataset
// markers (datagen/gen_calibration.h), on crafted markers.
#include "datagen/gen_calibration.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "datagen/dataset_dir.h"
#include "dataset/estimate.h"
#include "test/temp_dir.h"

namespace flatbench::datagen {
namespace {

dataset::Spec Spec(const std::string& scale, uint64_t accounts = 0) {
  return dataset::MakeSpec(scale, accounts, 4, dataset::kDefaultSeed).value();
}

TEST_CASE(
    "a one-writer store is priced at its writer's rate whatever the "
    "jobs",
    "[datagen][estimate]") {
  const dataset::Spec medium = Spec("medium");
  const double pairs = 10e6 * 5;
  bool one_writer_seen = false, parallel_seen = false;
  for (const dataset::BackendFacts* b : dataset::kStoreFacts) {
    const dataset::StoreFigures& f = b->figures;
    const std::string s(b->name);
    CAPTURE(s);
    const double two = dataset::EstimateBuildSeconds(medium, s, 2);
    if (f.one_writer) {
      one_writer_seen = true;
      // Its two-job rate, at 2, 16 or 64 jobs alike.
      CHECK(two == Approx(f.setup_seconds + pairs / dataset::WriterRate(f)));
      CHECK(dataset::EstimateBuildSeconds(medium, s, 16) == Approx(two));
      CHECK(dataset::EstimateBuildSeconds(medium, s, 64) == Approx(two));
      CHECK(dataset::WriterRate(f) == f.pairs_per_second_2);
    } else if (dataset::ParallelShare(f) > 0) {
      parallel_seen = true;
      // A store that writes in parallel gains from more jobs.
      CHECK(dataset::EstimateBuildSeconds(medium, s, 16) < two);
    }
  }
  CHECK(one_writer_seen);
  CHECK(parallel_seen);
  // The gated stores at medium on a 16-core host: LMDB's writer sets the
  // pace, 50M pairs at its two-job rate (RESEARCH.md section 6, "The gen
  // time model", compares this with such a host's build).
  const double lmdb = pairs / 1485e3;
  CHECK(dataset::EstimateBuildSeconds(medium, "lmdb", 16) == Approx(lmdb));
  CHECK(dataset::EstimateGenSeconds(medium, {"arena", "rocksdb", "lmdb"}, 16,
                                    16) == Approx(lmdb));
}

// A dataset of `spec` in `dir` whose store `store` was built in `seconds`
// on host `host` with `jobs` jobs, two builds at once on 2 cores, started
// at `started`.
void CraftedBuild(const std::string& dir, const dataset::Spec& spec,
                  const std::string& store, double seconds,
                  const std::string& host, unsigned jobs, double started) {
  std::filesystem::create_directories(dir);
  REQUIRE(WriteIdentity(dir, spec, "00000000000000ff").ok());
  auto ds = Dataset::Open(dir);
  REQUIRE(ds.ok());
  BackendBuild b;
  b.backend = store;
  b.fingerprint = "00000000000000ff";
  b.build_seconds = seconds;
  b.disk_bytes = 1 << 20;
  b.pairs[0] = spec.accounts;
  b.pairs[1] = spec.storage_slots();
  b.gen.jobs = jobs;
  b.gen.builds_at_once = jobs == 0 ? 0 : 2;
  b.gen.cores = jobs == 0 ? 0 : 2;
  b.gen.host = host;
  b.gen.started = started;
  REQUIRE(WriteMarker(ds.value(), b).ok());
}

TEST_CASE("the gen estimate calibrates from this host's newest builds",
          "[datagen][estimate]") {
  testing::TempDir tmp;
  const dataset::Spec spec = Spec("custom", 1'000'000);
  // Two builds at once with 2 jobs on 2 cores: each had one core, so the
  // model's time is the store's one-job time.
  const double model = dataset::EstimateBuildSeconds(spec, "arena", 1);
  CraftedBuild(tmp / "data/a", spec, "arena", 2 * model, "h1", 2, 100);
  CraftedBuild(tmp / "data/b", spec, "arena", 0.5 * model, "h1", 2, 200);
  CraftedBuild(tmp / "data/c", spec, "arena", 9 * model, "h2", 2, 300);
  CraftedBuild(tmp / "data/b", spec, "rocksdb", 1, "h1", 0, 400);  // Unknown.
  CraftedBuild(tmp / "data/d", Spec("tiny"), "lmdb", 60, "h1", 2, 500);
  const auto dirs = NearbyDatasets(tmp / "data/a");
  CHECK(dirs.size() == 4);
  const auto c = CalibrateGen(dirs, "h1");
  // h1's newest arena build; no rocksdb build that says how it was made;
  // no tiny build (below kMinCalibrationPairs).
  REQUIRE(c.size() == 1);
  REQUIRE(c.count("arena") == 1);
  CHECK(c.at("arena").factor == Approx(0.5));
  CHECK(c.at("arena").measured_s == Approx(0.5 * model));
  CHECK(c.at("arena").marker.find("data/b/arena.complete") !=
        std::string::npos);
  CHECK(CalibrateGen(dirs, "").empty());
  // The factor scales that store's times in a gen's estimate.
  const dataset::Spec medium = Spec("medium");
  CHECK(
      dataset::EstimateGenSeconds(medium, {"arena"}, 1, 2, {{"arena", 0.5}}) ==
      Approx(0.5 * dataset::EstimateGenSeconds(medium, {"arena"}, 1, 2)));
  // A marker records how gen built it; one written before it did reads
  // back as unknown.
  auto b = Dataset::Open(tmp / "data/b");
  REQUIRE(b.ok());
  CHECK(b->Build("arena")->gen.host == "h1");
  CHECK(b->Build("arena")->gen.builds_at_once == 2);
  CHECK(b->Build("rocksdb")->gen.jobs == 0);
}

}  // namespace
}  // namespace flatbench::datagen
