// flatbench sweep end to end at two tiny sizes, with an interruption and a
// resume; the read geometry each backend reports for the tiny dataset, and
// the model's figures on it.
#include "bench/sweep.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backends/table.h"
#include "report/prediction/model.h"
#include "test/bench/tiny_dataset.h"
#include "test/run_command.h"
#include "test/skip.h"

namespace flatbench::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str(), nullptr, false);
}

// The second tiny size's geometry (2,000 accounts x 2 slots): the gated
// stores report theirs, the reference stores none.
void CheckGeometry(const json& geometry) {
  for (const auto& b : backends::Stores()) {
    CAPTURE(b);
    if (!geometry.contains(b)) {
      CHECK((b != "arena" && b != "rocksdb" && b != "lmdb"));
      continue;
    }
    const json& g = geometry[b]["storage"];
    CHECK(g["pairs"] == 4000);
    CHECK(g["data_units"].get<uint64_t>() > 0);
  }
}

// By default a sweep measures the arena's cached read path beside the
// arena, at every size.
void CheckCachedReadPath(const json& state) {
  const std::string measured = state["backends"].get<std::string>();
  CHECK(measured.find("arena,") != std::string::npos);
  CHECK(measured.find("arena+cache") != std::string::npos);
  for (const auto& size : state["sizes"]) {
    bool cached_passes = false;
    for (const auto& e : size["results"]["benchmarks"]) {
      const std::string name = e["name"].get<std::string>();
      cached_passes = cached_passes || name.rfind("arena+cache/", 0) == 0;
    }
    CHECK(cached_passes);
  }
}

const std::string kSmall =
    " --accounts 1000,2000 --slots-per-account 2 --threads 1 --reads 200 "
    "--repetitions 1 --no-device --evict fadvise";

TEST_CASE(
    "a sweep of two tiny sizes runs, resumes, and removes only its own "
    "datasets",
    "[bench][sweep]") {
  TempDir tmp;
  const std::string dir = tmp / "sweep";
  // The user's own dataset for the first size: the sweep measures it and
  // leaves it in place.
  auto gen = RunFlatbench(
      "gen --scale custom --accounts 1000 "
      "--slots-per-account 2 --dir " +
      dir + "/data-1000");
  REQUIRE(gen.exit_code == 0);

  // Interrupted right after building the second size.
  // A test hook of flatbench_test.
  auto first = RunFlatbench("sweep --dir " + dir + kSmall,
                            {"FLATBENCH_TEST_STOP_AFTER_GEN=2000"});
  CAPTURE(first.err);
  REQUIRE(first.exit_code == 74);
  json state = ReadJson(dir + "/sweep.json");
  REQUIRE(state.is_object());
  CHECK(state["finished"] == false);
  REQUIRE(state["sizes"].size() == 1);
  CHECK(state["sizes"][0]["accounts"] == 1000);
  CHECK(state["sizes"][0]["dataset_removed"] == false);
  CHECK(fs::exists(dir + "/data-1000"));
  CHECK(fs::exists(dir + "/data-2000"));
  CHECK(state["created_datasets"] == json::array({dir + "/data-2000"}));

  // The rerun skips the measured size and finishes the interrupted one.
  auto second = RunFlatbench("sweep --dir " + dir + kSmall);
  CAPTURE(second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(second.err.find("1000 accounts: done earlier") != std::string::npos);
  state = ReadJson(dir + "/sweep.json");
  CHECK(state["finished"] == true);
  REQUIRE(state["sizes"].size() == 2);
  CHECK(state["sizes"][1]["accounts"] == 2000);
  CHECK(state["sizes"][1]["pairs"] == 6000);
  CHECK(state["sizes"][1]["dataset_removed"] == true);
  CHECK(state["created_datasets"].empty());
  CHECK(fs::exists(dir + "/data-1000"));
  CHECK_FALSE(fs::exists(dir + "/data-2000"));
  CheckGeometry(state["sizes"][1]["geometry"]);
  CHECK(state["sizes"][1]["results"]["benchmarks"].size() > 0);
  CheckCachedReadPath(state);

  // Another plan in the same directory is refused, naming what differs.
  auto other = RunFlatbench("sweep --dir " + dir +
                            " --accounts 1000,2000 --slots-per-account 3 "
                            "--no-device --evict fadvise");
  CHECK(other.exit_code == 73);
  CHECK(other.err.find("slots_per_account") != std::string::npos);

  // The prediction report: labelled, never a verdict (exit 2).
  auto rep =
      RunFlatbench("report " + dir + "/sweep.json --out " + (tmp / "report"));
  CAPTURE(rep.err);
  CHECK(rep.exit_code == 2);
  std::ifstream md(tmp / "report/report.md");
  std::stringstream ss;
  ss << md.rdbuf();
  CHECK(ss.str().find("predicted, not a verdict") != std::string::npos);
  CHECK(ss.str().find("arena/rocksdb cold hit reads/s") != std::string::npos);
  // And the report predicts it, in rows of its own.
  CHECK(ss.str().find("| arena+cache/rocksdb cold hit reads/s |") !=
        std::string::npos);
  CHECK(fs::exists(tmp / "report/report.html"));
  // Without a profile the report says how to give one (the next test gives
  // one).
  CHECK(ss.str().find("--device-profile P.json") != std::string::npos);
}

// Its own Meson test: it exits 77 (skipped) where the temporary
// directory's file system refuses direct I/O (tmpfs), so no profile can be
// measured.
TEST_CASE("the prediction report prices every size with a device profile",
          "[bench][sweep][device]") {
  TempDir tmp;
  // A short profile of the temporary directory, before anything else.
  auto prof = RunFlatbench("device --quiet --dir " + tmp.path() +
                           " --file-mib 1 --seconds 0.3 --rounds 1 --out " +
                           (tmp / "p.json"));
  if (prof.exit_code == 74) {
    SkipTest("no direct I/O here: " + prof.err, tmp.path());
  }
  REQUIRE(prof.exit_code == 0);
  // The arena alone: the rows checked below are the arena's, and each
  // other backend would add its build and passes to this test's time.
  const std::string dir = tmp / "sweep";
  auto sweep =
      RunFlatbench("sweep --dir " + dir + kSmall + " --backends arena");
  CAPTURE(sweep.err);
  REQUIRE(sweep.exit_code == 0);
  auto rep =
      RunFlatbench("report " + dir + "/sweep.json --out " + (tmp / "report2") +
                   " --device-profile " + (tmp / "p.json"));
  CAPTURE(rep.err);
  CHECK(rep.exit_code == 2);
  std::ifstream md2(tmp / "report2/report.md");
  std::stringstream ss2;
  ss2 << md2.rdbuf();
  const std::string text = ss2.str();
  CHECK(text.find("Structural prediction: geometry, CPU and the device") !=
        std::string::npos);
  CHECK(text.find("| 2,000 | arena | account hit, 1 thread |") !=
        std::string::npos);
  // A profile that is not one is refused naming the file.
  std::ofstream(tmp / "bad.json") << R"({"flatbench_device_profile": 1})";
  rep =
      RunFlatbench("report " + dir + "/sweep.json --out " + (tmp / "report3") +
                   " --device-profile " + (tmp / "bad.json"));
  CHECK(rep.exit_code == 65);
  CHECK(rep.err.find("bad.json") != std::string::npos);
}

TEST_CASE("the sweep measures its device profile once, before any size",
          "[bench][sweep]") {
  TempDir tmp;
  bench::SweepPlan plan;
  plan.dir = tmp / "sweep";
  plan.accounts = {1000, 2000};
  plan.backends = {"arena"};
  plan.progress = false;
  int profiles = 0, generated = 0;
  bench::SweepSteps steps;
  steps.profile = [&]() -> Result<json> {
    ++profiles;
    CHECK(generated == 0);  // Before the first size is built.
    return json{{"marker", profiles}};
  };
  steps.generate = [&](const dataset::Spec&, const std::string&) {
    ++generated;
    return Status::Ok();
  };
  steps.after_generate = [](uint64_t) { return false; };  // Stop there.
  CHECK_FALSE(bench::RunSweep(plan, steps).ok());
  CHECK(profiles == 1);
  json state = ReadJson(plan.dir + "/sweep.json");
  CHECK(state["device_profile"] == json{{"marker", 1}});
  // A resume keeps the profile it has.
  CHECK_FALSE(bench::RunSweep(plan, steps).ok());
  CHECK(profiles == 1);
  CHECK(generated == 2);
  // Without a profile (--no-device), none is measured.
  plan.dir = tmp / "other";
  plan.device_profile = false;
  CHECK_FALSE(bench::RunSweep(plan, steps).ok());
  CHECK(profiles == 1);
  CHECK_FALSE(ReadJson(plan.dir + "/sweep.json").contains("device_profile"));
  // A profile that fails stops the sweep before any size, naming it.
  plan.dir = tmp / "failing";
  plan.device_profile = true;
  steps.profile = []() -> Result<json> {
    return Status::IOError("no direct I/O");
  };
  Status st = bench::RunSweep(plan, steps);
  CHECK(st.code() == Code::kIOError);
  CHECK(st.message().find("device profile") != std::string::npos);
  CHECK(generated == 3);
}

TEST_CASE("a sweep that cannot fit is refused up front with the figures",
          "[bench][sweep]") {
  TempDir tmp;
  // Sizes whose datasets need little disk (about 1.5 GiB at most), so that
  // the hours, not the free disk of the machine, are what refuses them.
  auto r = RunFlatbench("sweep --dir " + (tmp / "s") +
                        " --accounts 1000,20000 --max-hours 0.001 "
                        "--evict fadvise");
  CHECK(r.exit_code == 73);
  CHECK(r.err.find("--max-hours") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp / "s/sweep.json"));
  auto bad = RunFlatbench("sweep --dir " + (tmp / "s") +
                          " --accounts 2000,1000 --evict fadvise");
  CHECK(bad.exit_code == 64);
  CHECK(bad.err.find("--accounts") != std::string::npos);
}

TEST_CASE("the model on the tiny dataset's own geometry",
          "[bench][sweep][model]") {
  auto ds = datagen::Dataset::Open(TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& name : TinyBackends()) {
    CAPTURE(name);
    auto b = backends::Open(name, ds->BackendDir(name), {});
    REQUIRE(b.ok());
    report::BackendGeometry g;
    for (Table t : {Table::kAccount, Table::kStorage}) {
      auto geo = b.value()->Geometry(t);
      if (!geo.ok()) {
        // Reference stores report none; the gated three must.
        REQUIRE((name != "arena" && name != "rocksdb" && name != "lmdb"));
        break;
      }
      // The pairs of the dataset definition: 10k accounts x 5 slots.
      CHECK(geo->pairs == (t == Table::kAccount ? 10'000u : 50'000u));
      CHECK(geo->data_units > 0);
      g.tables[static_cast<int>(t)] = geo.value();
    }
    if (g.Pairs() == 0) continue;
    const report::ModelPrediction m =
        report::Predict(g, report::kRequiredRamBytes, 0);
    CHECK(m.resident_fraction == 1.0);
    for (Table t : {Table::kAccount, Table::kStorage}) {
      const ReadGeometry& tg = g.at(t);
      if (name == "arena" || name == "lmdb") {
        // Page-aligned units of at most 4 KiB (an arena shard's last block
        // may be shorter): exactly one page per hit.
        CHECK(tg.data_bytes <= tg.data_units * 4096);
        if (name == "lmdb") CHECK(tg.data_bytes == tg.data_units * 4096);
        CHECK(m.at(t).hit_reads == 1.0);
      }
      if (name == "lmdb") {
        CHECK(m.at(t).miss_reads == 1.0);  // No filter: the leaf is read.
        CHECK(tg.filter_bytes == 0);
      }
      if (name == "rocksdb") {
        // 1 + (mean block + 5 - 1) / 4096, from its own table properties.
        const double unit = static_cast<double>(tg.data_bytes) /
                            static_cast<double>(tg.data_units);
        CHECK(m.at(t).hit_reads ==
              Catch::Detail::Approx(1 + (unit + 4) / 4096));
        CHECK(tg.filter_fp_rate > 0.001);
        CHECK(tg.filter_fp_rate < 0.05);  // Ribbon at 10 bits/key: ~1%.
      }
    }
  }
}

}  // namespace
}  // namespace flatbench::testing
