// bench --write-while-reading over a tiny dataset of the gated stores: the
// writing entries and their figures, a wrong expected state caught (the
// test build's hook), the report's section, and the flags' refusals.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "test/run_command.h"
#include "test/temp_dir.h"

using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;

namespace {

// One tiny dataset of arena, rocksdb and lmdb per process.
const std::string& WritingDataset() {
  static TempDir dir;
  static const std::string path = [] {
    const std::string p = dir / "tiny";
    auto r = RunFlatbench(
        "gen --scale tiny --quiet --backends "
        "arena,rocksdb,lmdb --dir " +
        p);
    if (r.exit_code != 0) throw std::runtime_error("gen: " + r.err);
    return p;
  }();
  return path;
}

std::string WritingBench(const std::string& out, const std::string& extra) {
  return "bench --quiet --no-device --modes cold --kinds hit --tables "
         "account --threads 2 --repetitions 1 --reads 2000 --dir " +
         WritingDataset() + " --out " + out +
         " --write-while-reading --merge-every 5 " + extra;
}

nlohmann::json Load(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("a writing bench records its blocks, merges and checks",
          "[writing]") {
  TempDir out;
  const std::string results = out / "r.json";
  auto r = RunFlatbench(WritingBench(results, "--backends arena,rocksdb,lmdb"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json doc = Load(results);
  int writing = 0;
  for (const auto& e : doc["benchmarks"]) {
    const std::string name = e["name"];
    if (name.find("/writing/") == std::string::npos) continue;
    ++writing;
    CAPTURE(name);
    CHECK(e["blocks_applied"].get<double>() > 0);
    // A writing pass reads at least a read pass's keys (2,000 over the two
    // threads), and checks one read in 16 of them.
    CHECK(e["iterations"].get<double>() >= 1000);
    CHECK(e["checks_done"].get<double>() >= 2 * 1000 / 16);
    CHECK(e["checks_wrong"].get<double>() == 0);
    CHECK(e["reads_per_s"].get<double>() > 0);
    CHECK(e["lat_p99_ns"].get<double>() >= e["lat_p50_ns"].get<double>());
    CHECK(e["block_max_ns"].get<double>() >= e["block_p50_ns"].get<double>());
    CHECK(e["writing_cap_hit"].get<double>() == 0);
    CHECK_FALSE(e["read_p99_series"].empty());
    if (name.rfind("arena/", 0) == 0) {
      CHECK(e["merges"].get<double>() >= 1);
      REQUIRE_FALSE(e["merge_windows"].empty());
      CHECK(e["merge_windows"][0]["end_s"].get<double>() >=
            e["merge_windows"][0]["start_s"].get<double>());
    }
    if (name.rfind("rocksdb/", 0) == 0) CHECK(e.contains("compactions"));
  }
  CHECK(writing == 3);
  // The dataset is as it was: no copy left beside the stores.
  for (const char* store : {"arena", "rocksdb", "lmdb"}) {
    CHECK_FALSE(
        std::filesystem::exists(WritingDataset() + "/" + store + ".live"));
  }
  auto rep =
      RunFlatbench("report " + results + " --out " + std::string(out / "rep"));
  INFO(rep.err);
  REQUIRE((rep.exit_code == 0 || rep.exit_code == 2));
  std::ifstream md(out / "rep/report.md");
  const std::string text((std::istreambuf_iterator<char>(md)), {});
  CHECK(text.find("## Reads during upkeep") != std::string::npos);
  CHECK(text.find("Modelled, not measured") != std::string::npos);
  // No device profile in these results: the device's share is not priced.
  CHECK(text.find("device-bound read load is not modelled") !=
        std::string::npos);
  CHECK(std::filesystem::exists(out / "rep/writing-cold-account-2.svg"));
}

TEST_CASE("a wrong expected state fails the writing pass with 65",
          "[writing]") {
  TempDir out;
  auto r = RunFlatbench(WritingBench(out / "r.json", "--backends lmdb"),
                        {"FLATBENCH_TEST_CORRUPT_WRITING_CHECKS=1"});
  CHECK(r.exit_code == 65);
  CHECK(r.err.find("writing pass") != std::string::npos);
  CHECK(r.err.find("sampled reads were wrong") != std::string::npos);
}

TEST_CASE("the writing flags are checked", "[writing]") {
  TempDir out;
  const std::string dir =
      " --dir " + WritingDataset() + " --out " + std::string(out / "r.json");
  auto r = RunFlatbench("bench --block-rate 5" + dir);
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("--block-rate") != std::string::npos);
  r = RunFlatbench("bench --write-while-reading --merge-every 0" + dir);
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("--merge-every") != std::string::npos);
  r = RunFlatbench("bench --write-while-reading --backends arena+pread" + dir);
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("cannot be read while it is written") != std::string::npos);
}
