// End to end through the flatbench binary: the JSON carries every counter
// and context key of RESULTS_FORMAT.md, and errors map to their exit codes.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "bench/counters.h"
#include "test/bench/tiny_dataset.h"
#include "test/run_command.h"

namespace flatbench::bench {
namespace {

using testing::RunFlatbench;
using testing::TempDir;
using testing::TinyDatasetDir;

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s.push_back(',');
    s.append(x);
  }
  return s;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST_CASE("bench JSON carries every counter and context key", "[bench][json]") {
  TempDir out;
  const std::string backends = Join(testing::TinyBackends());
  auto r = RunFlatbench("bench --dir " + TinyDatasetDir() + " --backends " +
                        backends + " --out " + (out / "r.json") +
                        " --threads 1,2 --reads 100 --repetitions 1 "
                        "--check-samples 100 --device-bytes 1048576");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json doc = ReadJson(out / "r.json");
  const auto& ctx = doc["context"];
  for (const char* k : {"date",
                        "host_name",
                        "num_cpus",
                        "flatbench.version",
                        "flatbench.build_type",
                        "flatbench.asserts",
                        "flatbench.scale",
                        "flatbench.spec",
                        "flatbench.fingerprint",
                        "flatbench.dataset_dir",
                        "flatbench.reads_per_pass",
                        "flatbench.repetitions",
                        "flatbench.key_draw",
                        "flatbench.env.kernel",
                        "flatbench.env.cpu",
                        "flatbench.env.cores",
                        "flatbench.env.ram_bytes",
                        "flatbench.env.filesystem",
                        "flatbench.env.device",
                        "flatbench.env.read_ahead_kb",
                        "flatbench.env.scheduler",
                        "flatbench.env.drop_caches",
                        "flatbench.lib.rocksdb",
                        "flatbench.lib.lmdb",
                        "flatbench.lib.compiler",
                        "flatbench.eviction_bound",
                        "flatbench.device"}) {
    CAPTURE(k);
    CHECK(ctx.contains(k));
  }
  CHECK(ctx["flatbench.scale"].get<std::string>() == "tiny");
  for (const auto& b : testing::TinyBackends()) {
    for (const char* k : {".settings", ".build_seconds", ".disk_bytes",
                          ".sanity", ".eviction"}) {
      std::string key = "flatbench.backend." + b + k;
      CAPTURE(key);
      REQUIRE(ctx.contains(key));
      CHECK(ctx[key].is_string());
    }
    CHECK(nlohmann::json::parse(
              ctx["flatbench.backend." + b + ".settings"].get<std::string>())
              .is_object());
    CHECK_THAT(ctx["flatbench.backend." + b + ".sanity"].get<std::string>(),
               Catch::StartsWith("passed"));
  }

  // 3 modes x 5 (table, kind) x 2 thread counts x 1 repetition per backend.
  const size_t per_backend = 3 * 5 * 2;
  size_t device_rows = 0, backend_rows = 0;
  const std::regex name_re(
      R"((arena|rocksdb|lmdb|device)/(account|storage|raw)/)"
      R"((hit|miss-absent|miss-live)/(warm|cold|cold-lazy)/threads:\d+/rep:\d+)");
  int n = 0;
  const char* const* names = CounterNames(&n);
  for (const auto& e : doc["benchmarks"]) {
    const std::string name = e["name"];
    CAPTURE(name);
    CHECK(std::regex_match(name, name_re));
    CHECK(e["run_type"].get<std::string>() == "iteration");
    for (int i = 0; i < n; ++i) {
      CAPTURE(names[i]);
      REQUIRE(e.contains(names[i]));
      CHECK(e[names[i]].is_number());
    }
    const bool cold = name.find("/cold") != std::string::npos;
    CHECK(e.contains("resident_fraction_after_eviction") == cold);
    const bool warm = name.find("/warm/") != std::string::npos;
    CHECK(e.contains("resident_fraction_after_pass") == warm);
    const double threads = e["threads"].get<double>();
    const double peak = e["peak_inflight"].get<double>();
    CHECK(peak <= threads);
    CHECK(e["concurrency_short"].get<double>() == (peak < threads ? 1.0 : 0.0));
    const bool hit = name.find("/hit/") != std::string::npos;
    if (name.rfind("device/", 0) == 0) {
      ++device_rows;
    } else {
      ++backend_rows;
      CHECK(e["found_fraction"].get<double>() == (hit ? 1.0 : 0.0));
    }
  }
  CHECK(backend_rows == per_backend * testing::TinyBackends().size());
  if (ctx["flatbench.device"].get<std::string>().rfind("measured", 0) == 0) {
    CHECK(device_rows == 2);
  } else {
    WARN("device rows not measured: " << ctx["flatbench.device"]);
  }
}

TEST_CASE("bench exit codes", "[bench][cli]") {
  TempDir out;
  const std::string dir = TinyDatasetDir();
  const std::string quick =
      " --threads 1 --reads 10 --repetitions 1 --check-samples 20 "
      "--modes warm --tables account --kinds hit --no-device --quiet";
  SECTION("a bad flag is a usage error naming it") {
    for (const char* bad : {"--threads 0", "--modes hot", "--kinds miss",
                            "--tables code", "--reads 0", "--backends nope"}) {
      CAPTURE(bad);
      auto r = RunFlatbench("bench --dir " + dir + " --out " + (out / "x") +
                            " " + bad);
      CHECK(r.exit_code == 64);
      std::string flag = std::string(bad).substr(0, std::string(bad).find(' '));
      CHECK_THAT(r.err, Catch::Contains(flag));
    }
  }
  SECTION("a missing dataset is missing input") {
    auto r = RunFlatbench("bench --dir " + (out / "none") + " --out " +
                          (out / "x") + quick);
    CHECK(r.exit_code == 66);
  }
  SECTION("an existing output is not overwritten without --force") {
    std::ofstream(out / "exists") << "{}";
    auto r = RunFlatbench("bench --dir " + dir + " --backends lmdb --out " +
                          (out / "exists") + quick);
    CHECK(r.exit_code == 73);
    CHECK_THAT(r.err, Catch::Contains("--force"));
    r = RunFlatbench("bench --dir " + dir + " --backends lmdb --out " +
                     (out / "exists") + quick + " --force");
    CHECK(r.exit_code == 0);
  }
  SECTION("a failed sanity check exits 65 and still writes the JSON") {
    auto r =
        RunFlatbench("bench --dir " + dir + " --backends lmdb --out " +
                     (out / "bad.json") + quick + " --corrupt-expectations");
    CHECK(r.exit_code == 65);
    nlohmann::json doc = ReadJson(out / "bad.json");
    CHECK_THAT(
        doc["context"]["flatbench.backend.lmdb.sanity"].get<std::string>(),
        Catch::StartsWith("failed: "));
    CHECK(doc["benchmarks"].empty());
  }
  SECTION("a backend not built in the dataset is missing input") {
    TempDir other;
    datagen::GenOptions o;
    o.dir = other / "lmdb-only";
    o.spec = datagen::MakeSpec("custom", 500, 2, datagen::kDefaultSeed).value();
    o.backends = {"lmdb"};
    o.progress = false;
    REQUIRE(datagen::Generate(o, cli::NewLoader).ok());
    auto r = RunFlatbench("bench --dir " + o.dir +
                          " --backends rocksdb --out " + (out / "x") + quick);
    CHECK(r.exit_code == 66);
    CHECK_THAT(r.err, Catch::Contains("rocksdb"));
  }
}

}  // namespace
}  // namespace flatbench::bench
