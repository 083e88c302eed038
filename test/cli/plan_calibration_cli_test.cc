// gonogo --plan calibrated by this host's last results and builds: found
// where gonogo leaves them, matched by this host's identity, and named in
// the plan; and left alone with --calibration none.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/environment.h"
#include "common/host_id.h"
#include "common/results_schema.h"
#include "datagen/dataset_dir.h"
#include "dataset/estimate.h"
#include "test/run_command.h"

namespace {

using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
using nlohmann::json;
namespace r = flatbench::results;
namespace dataset = flatbench::dataset;
namespace datagen = flatbench::datagen;

// A smoke dataset in `dir` whose arena this host built in `seconds`, two
// builds at once with 2 jobs on 2 cores.
void BuiltArena(const std::string& dir, double seconds) {
  const dataset::Spec spec =
      dataset::MakeSpec("smoke", 0, 0, dataset::kDefaultSeed).value();
  std::filesystem::create_directories(dir);
  REQUIRE(datagen::WriteIdentity(dir, spec, "00000000000000ff").ok());
  datagen::BackendBuild b;
  b.backend = "arena";
  b.fingerprint = "00000000000000ff";
  b.build_seconds = seconds;
  b.pairs[0] = spec.accounts;
  b.pairs[1] = spec.storage_slots();
  b.gen.jobs = 2;
  b.gen.builds_at_once = 2;
  b.gen.cores = 2;
  b.gen.host = flatbench::MachineIdHash();
  REQUIRE(datagen::WriteMarker(datagen::Dataset::Open(dir).value(), b).ok());
}

// This host's results of a cold arena run on the device under `dir`:
// device cells at 20,000 reads/s.
json Results(const std::string& dir) {
  json b = json::array();
  double t = 2;
  for (int rep = 0; rep < 3; ++rep) {
    const std::string cell = "/cold/threads:1/rep:" + std::to_string(rep);
    b.push_back({{"name", "arena/account/device" + cell},
                 {"iterations", 5000},
                 {std::string(r::kReadsPerS.name), 20000},
                 {std::string(r::kPassOrder.name), 2 * rep},
                 {std::string(r::kPassStartS.name), t}});
    b.push_back({{"name", "arena/account/hit" + cell},
                 {"iterations", 5000},
                 {std::string(r::kReadsPerS.name), 20000},
                 {std::string(r::kOpenSeconds.name), 0.01},
                 {std::string(r::kPassOrder.name), 2 * rep + 1},
                 {std::string(r::kPassStartS.name), t + 0.3}});
    t += 0.6;
  }
  json ctx = {{std::string(r::kMachineIdHash.name), flatbench::MachineIdHash()},
              {std::string(r::kDevice.name),
               flatbench::bench::DescribeEnvironment(dir).at(
                   std::string(r::kDevice.name))},
              {std::string(r::kEvictMethod.name), "fadvise"},
              {std::string(r::kSpec.name), "another dataset"},
              {std::string(r::kRunStart.name), "2026-01-01T00:00:00Z"}};
  return {{"context", ctx}, {"benchmarks", b}};
}

TEST_CASE("gonogo --plan calibrates from this host's results and builds",
          "[cli][plan]") {
  TempDir tmp;
  const dataset::Spec smoke =
      dataset::MakeSpec("smoke", 0, 0, dataset::kDefaultSeed).value();
  BuiltArena(tmp / "data/smoke",
             0.5 * dataset::EstimateBuildSeconds(smoke, "arena", 1));
  std::filesystem::create_directories(tmp / "results/smoke-1");
  const std::string results = tmp / "results/smoke-1/bench.json";
  std::ofstream(results) << Results(tmp / "data").dump();
  const std::string plan =
      "gonogo --plan --scale custom --accounts 200000 --backends arena "
      "--jobs 2 --dir " +
      (tmp / "data/custom") + " --results " + (tmp / "results");

  auto r = RunFlatbench(plan);
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  // The bench plan, in gonogo's figures and in bench's own.
  const std::string from = "calibrated from " + results +
                           " (this host's run of 2026-01-01T00:00:00Z): "
                           "device rates at depth 1";
  CHECK(r.err.find("measured: the bench's per-step costs: 2-core VM, virtio "
                   "disk; (the estimate: " +
                   from) != std::string::npos);
  CHECK(r.err.find("\n  (the estimate: " + from) != std::string::npos);
  // Another dataset: none of its steps' own times.
  CHECK(r.err.find("; 0 of ") != std::string::npos);
  // The gen, from the smoke build beside the planned dataset.
  CHECK(r.err.find("measured: gen calibrated by this host's last builds: "
                   "arena x 0.50") != std::string::npos);
  CHECK(r.err.find(tmp / "data/smoke/arena.complete") != std::string::npos);

  auto none = RunFlatbench(plan + " --calibration none");
  CAPTURE(none.err);
  REQUIRE(none.exit_code == 0);
  CHECK(none.err.find("calibrated") == std::string::npos);
  CHECK(none.err.find("the estimate is the built-in cost model") !=
        std::string::npos);
  // A file named that is not there is a usage error.
  auto missing = RunFlatbench(plan + " --calibration " + (tmp / "none.json"));
  CHECK(missing.exit_code == 64);
  CHECK(missing.err.find("none.json") != std::string::npos);
}

}  // namespace
