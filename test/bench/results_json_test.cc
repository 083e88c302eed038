// End to end through the flatbench binary: the JSON carries every counter
// and context key of RESULTS_FORMAT.md, and errors map to their exit codes.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "bench/counters.h"
#include "common/results_ops.h"
#include "common/results_schema.h"
#include "common/text.h"
#include "test/bench/tiny_dataset.h"
#include "test/crafted_profile.h"
#include "test/run_command.h"

namespace flatbench::bench {
namespace {

using testing::RunFlatbench;
using testing::TempDir;
using testing::TinyDatasetDir;

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Runs bench over `backends` of the tiny dataset into `path`; returns the
// document.
nlohmann::json RunBench(const std::vector<std::string>& backends,
                        const std::string& path, const std::string& flags) {
  auto r = RunFlatbench("bench --dir " + TinyDatasetDir() + " --backends " +
                        Join(backends) + " --out " + path +
                        " --threads 2 --reads 100 --repetitions 1 "
                        "--check-samples 100 --device-reads 64 --evict "
                        "fadvise --full-reference" +  // Reference rows too.
                        flags);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return ReadJson(path);
}

// Every context key of the run and of each of `backends`; every counter of
// each entry; and per backend `reads` read cells and `devices` device cells
// (none where O_DIRECT cannot read the backend's files, which it says).
void CheckDocument(const nlohmann::json& doc,
                   const std::vector<std::string>& backends, int reads_each,
                   int devices_each) {
  const auto& ctx = doc["context"];
  for (const char* k : {"date", "host_name", "num_cpus"}) {
    CAPTURE(k);
    CHECK(ctx.contains(k));
  }
  for (const auto& k : results::AllContextKeys()) {
    // Only with --device-profile (below).
    if (k.name == results::kRecordedDeviceProfile.name) continue;
    // Only in a run that was interrupted and resumed (interrupt_test).
    if (k.name == results::kInterruptionLog.name) continue;
    CAPTURE(k.name);
    CHECK(ctx.contains(std::string(k.name)));
  }
  // An uninterrupted run says so.
  CHECK(ctx[std::string(results::kInterruptions.name)] == 0);
  CHECK_FALSE(ctx.contains(std::string(results::kInterruptionLog.name)));
  CHECK(ctx[std::string(results::kResultsFormat.name)] ==
        results::kFormatVersion);
  CHECK(ctx[std::string(results::kScale.name)] == "tiny");
  for (const auto& b : backends) {
    for (const auto& k : results::AllBackendContextKeys()) {
      if (!k.always) continue;
      CAPTURE(b, k.name);
      CHECK(ctx.contains(results::BackendKey(b, k)));
    }
    CHECK(ctx[results::BackendKey(b, results::kSettings)].is_object());
    CHECK(ctx[results::BackendKey(b, results::kSanityPassed)] == true);
    CHECK(ctx[results::BackendKey(b, results::kEviction)] == "fadvise");
  }
  std::map<std::string, int> reads, devices;
  for (const auto& e : doc["benchmarks"]) {
    const std::string name = e["name"];
    CAPTURE(name);
    auto cell = results::ParseCellName(name);
    REQUIRE(cell.has_value());
    CHECK(e["run_type"].get<std::string>() == "iteration");
    for (const auto& c : results::AllCounters()) {
      if (!results::CounterExpected(c, cell->kind, cell->mode)) continue;
      CAPTURE(c.name);
      REQUIRE(e.contains(std::string(c.name)));
      CHECK(e[std::string(c.name)].is_number());
    }
    // Every read and device pass measured its CPU time per read.
    const std::string cpu(results::kCpuNsPerRead.name);
    REQUIRE(e.contains(cpu));
    CHECK(std::isfinite(e[cpu].get<double>()));
    CHECK(e[cpu].get<double>() > 0);
    // And the rest of the host's busy CPU per read: /proc/stat is readable
    // here, so it is there, never below 0.
    const std::string host(results::kHostCpuNsPerRead.name);
    REQUIRE(e.contains(host));
    CHECK(std::isfinite(e[host].get<double>()));
    CHECK(e[host].get<double>() >= 0);
    const double threads = e["threads"].get<double>();
    CHECK(e["peak_inflight"].get<double>() <= threads);
    CHECK(e["mean_inflight"].get<double>() <= e["peak_inflight"].get<double>());
    if (cell->kind == "device") {
      ++devices[cell->backend];
    } else {
      ++reads[cell->backend];
      CHECK(e["found_fraction"].get<double>() ==
            (cell->kind == "hit" ? 1.0 : 0.0));
    }
  }
  for (const auto& b : backends) {
    CAPTURE(b);
    CHECK(reads[b] == reads_each);
    const std::string device =
        ctx[results::BackendKey(b, results::kDeviceStatus)];
    CHECK(devices[b] == (device.rfind("measured", 0) == 0 ? devices_each : 0));
  }
}

// The gated backends run the whole matrix; the reference rows (whose cold
// cells each restart a server or walk 60,000 files) run a cold and a warm
// hit cell: the counters are the harness's, the same for every backend.
TEST_CASE(
    "the host's other CPU per read: the host's busy time less the "
    "worker's",
    "[bench][json]") {
  PassResult pass;
  pass.reads = 1000;
  pass.before.cpu_known = pass.after.cpu_known = true;
  pass.before.cpu_ns = 5'000'000;
  pass.after.cpu_ns = 25'000'000;  // 20 us per read.
  pass.before.host_busy_known = pass.after.host_busy_known = true;
  pass.before.host_busy_ns = 1'000'000'000;
  pass.after.host_busy_ns = 1'050'000'000;  // 50 us per read, all of it.
  nlohmann::json e;
  AddCounters(pass, CellFacts{}, &e);
  CHECK(e[std::string(results::kCpuNsPerRead.name)].get<double>() ==
        Approx(20000));
  CHECK(e[std::string(results::kHostCpuNsPerRead.name)].get<double>() ==
        Approx(30000));
  // The host's clock ticks in 10 ms steps: a pass shorter than its own CPU
  // by a tick records 0, never a negative figure.
  pass.after.host_busy_ns = 1'010'000'000;
  e = nlohmann::json::object();
  AddCounters(pass, CellFacts{}, &e);
  CHECK(e[std::string(results::kHostCpuNsPerRead.name)].get<double>() == 0);
  // Unreadable /proc/stat at either end: absent.
  pass.after.host_busy_known = false;
  e = nlohmann::json::object();
  AddCounters(pass, CellFacts{}, &e);
  CHECK(e.contains(std::string(results::kCpuNsPerRead.name)));
  CHECK_FALSE(e.contains(std::string(results::kHostCpuNsPerRead.name)));
}

TEST_CASE("bench JSON carries every counter and context key", "[bench][json]") {
  TempDir out;
  std::vector<std::string> gated, reference;
  for (const auto& b : testing::TinyBackends()) {
    (b == "arena" || b == "rocksdb" || b == "lmdb" ? gated : reference)
        .push_back(b);
  }
  if (!reference.empty()) {
    // 2 modes x 1 (table, kind) read cells, a device cell for the cold one.
    CheckDocument(RunBench(reference, out / "reference.json",
                           " --modes cold,warm --kinds hit --tables account"),
                  reference, 2, 1);
  }
  // Per backend: 3 modes x 5 (table, kind) x 1 thread count x 1 repetition
  // read cells, and a device cell per cold-mode hit cell: 2 modes x 2
  // tables x 1 thread count.
  REQUIRE_FALSE(gated.empty());
  CheckDocument(RunBench(gated, out / "r.json", ""), gated, 3 * 5, 2 * 2);

  // The round trip: what bench wrote, report reads, with the contract
  // header as the only shared definition. Tiny is below the gate scale, so
  // the verdict is INCONCLUSIVE (2), never a refusal (65) of the file.
  auto rep =
      RunFlatbench("report " + (out / "r.json") + " --out " + (out / "report"));
  INFO(rep.err);
  CHECK(rep.exit_code == 2);
  CHECK_THAT(rep.out, Catch::Contains("INCONCLUSIVE"));
}

// Through the binary and the report for the gated backends; every backend's
// scan and startup passes run in-process in ops_pass_test.cc.
TEST_CASE("bench writes scan and startup entries the report shows",
          "[bench][json][scan]") {
  TempDir out;
  std::vector<std::string> backends;
  for (const auto& b : testing::TinyBackends()) {
    if (b == "arena" || b == "rocksdb" || b == "lmdb") backends.push_back(b);
  }
  REQUIRE_FALSE(backends.empty());
  auto r = RunFlatbench(
      "bench --dir " + TinyDatasetDir() + " --backends " + Join(backends) +
      " --out " + (out / "r.json") +
      " --kinds hit,scan,startup --modes cold,warm --tables account "
      "--threads 1 --reads 200 --scan-length 50 --startup-probes 2 "
      "--repetitions 1 --check-samples 50 --no-device --evict fadvise "
      "--full-reference");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json doc = ReadJson(out / "r.json");
  std::map<std::string, int> kinds;
  for (const auto& e : doc["benchmarks"]) {
    auto cell = results::ParseCellName(e["name"].get<std::string>());
    REQUIRE(cell.has_value());
    ++kinds[cell->kind];
    if (cell->kind == results::kKindScan) {
      CHECK(e[std::string(results::kScanLength.name)] == 50);
      CHECK(e["iterations"] == 20);  // A tenth of --reads.
    }
  }
  const int n = static_cast<int>(backends.size()) * 2;  // Two modes.
  CHECK(kinds["hit"] == n);
  CHECK(kinds["scan"] == n);
  CHECK(kinds["startup"] == n);

  auto rep =
      RunFlatbench("report " + (out / "r.json") + " --out " + (out / "report"));
  INFO(rep.err);
  CHECK(rep.exit_code == 2);
  std::ifstream md(out / "report/report.md");
  std::string text((std::istreambuf_iterator<char>(md)), {});
  CHECK_THAT(text, Catch::Contains("## Scans and startup"));
  CHECK_THAT(text, Catch::Contains("startup (median)"));
  CHECK_THAT(text, Catch::Contains("scans/s (median)"));
}

// --draw-seed reaches the workers: another seed scans from other keys, the
// same seed from the same, and the results name the seed.
TEST_CASE("bench --draw-seed draws the keys every backend reads",
          "[bench][cli]") {
  TempDir out;
  auto scan = [&](const std::string& seed) {
    const std::string path = out / ("r" + seed + ".json");
    auto r = RunFlatbench(
        "bench --dir " + TinyDatasetDir() + " --backends arena --out " + path +
        " --kinds scan --modes warm --tables account --threads 1 --reads 100 "
        "--repetitions 1 --check-samples 20 --no-device --quiet" +
        (seed.empty() ? "" : " --draw-seed " + seed));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json doc = ReadJson(path);
    REQUIRE(doc["benchmarks"].size() == 1);
    return std::pair(
        doc["benchmarks"][0][std::string(results::kScanChecksum.name)],
        doc["context"][std::string(results::kKeyDraw.name)].get<std::string>());
  };
  const auto [default_sum, default_draw] = scan("");
  const auto [sum16, draw16] = scan("16");
  const auto [sum_hex, draw_hex] = scan("0x10");
  CHECK(sum16 == sum_hex);
  CHECK(sum16 != default_sum);
  CHECK_THAT(draw16, Catch::Contains("draw seed 0x10)"));
  CHECK_THAT(default_draw, Catch::Contains("draw seed 0x647261772d6b6579)"));
}

// Through the binary and the report: batch entries and their device cell
// at depth B, read back through the contract (a malformed one would exit
// 65) and shown in their own section. In-process checks of every backend's
// batches are in batch_pass_test.cc.
TEST_CASE("bench writes batch entries the report reads and shows",
          "[bench][json][batch]") {
  TempDir out;
  std::vector<std::string> backends;
  for (const auto& b : testing::TinyBackends()) {
    if (b == "arena" || b == "rocksdb" || b == "lmdb") backends.push_back(b);
  }
  REQUIRE_FALSE(backends.empty());
  auto r = RunFlatbench(
      "bench --dir " + TinyDatasetDir() + " --backends " + Join(backends) +
      " --out " + (out / "r.json") +
      " --kinds hit,batch --modes cold,warm --tables account --threads 2 "
      "--batch-size 4 --reads 64 --repetitions 1 --check-samples 50 "
      "--device-reads 32 --evict fadvise --full-reference");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json doc = ReadJson(out / "r.json");
  std::map<std::string, int> kinds;
  for (const auto& e : doc["benchmarks"]) {
    auto cell = results::ParseCellName(e["name"].get<std::string>());
    REQUIRE(cell.has_value());
    ++kinds[cell->kind + "/" + std::to_string(cell->threads)];
    if (cell->kind != results::kKindBatch) continue;
    // --threads given: the batch cells run at it. 64 keys in calls of 4.
    CHECK(cell->threads == 2);
    CHECK(e["iterations"] == 16);
    CHECK(e[std::string(results::kBatchSize.name)] == 4);
    CHECK(e[std::string(results::kDistinctKeys.name)] == 64);
  }
  const int n = static_cast<int>(backends.size());
  CHECK(kinds["hit/2"] == 2 * n);
  CHECK(kinds["batch/2"] == 2 * n);
  // The device at depth 4 for the cold batch, where O_DIRECT works.
  const std::string status =
      doc["context"][results::BackendKey(backends[0], results::kDeviceStatus)];
  if (status.rfind("measured", 0) == 0) CHECK(kinds["device/4"] == n);

  auto rep =
      RunFlatbench("report " + (out / "r.json") + " --out " + (out / "report"));
  INFO(rep.err);
  CHECK(rep.exit_code == 2);
  std::ifstream md(out / "report/report.md");
  std::string text((std::istreambuf_iterator<char>(md)), {});
  CHECK_THAT(text, Catch::Contains("## Batched lookups"));
  CHECK_THAT(text, Catch::Contains("keys/s (median)"));
  CHECK(std::filesystem::exists(out / "report/batch_keys_per_s_cold.svg"));

  // A batch size out of range is a usage error naming the flag.
  auto bad = RunFlatbench("bench --dir " + TinyDatasetDir() + " --out " +
                          (out / "x.json") + " --kinds batch --batch-size 0");
  CHECK(bad.exit_code == 64);
  CHECK_THAT(bad.err, Catch::Contains("--batch-size"));
}

TEST_CASE("bench records a device profile, and refuses one that is not",
          "[bench][cli]") {
  TempDir out;
  const std::string quick =
      "bench --dir " + TinyDatasetDir() +
      " --backends arena --threads 1 --reads 10 --repetitions 1 "
      "--check-samples 20 --modes warm --tables account --kinds hit "
      "--no-device --quiet --evict fadvise --out " +
      (out / "r.json") + " --device-profile ";
  const nlohmann::json profile = flatbench::testing::CraftedDeviceProfile();
  SECTION("a valid profile is recorded whole, and the report shows it") {
    std::ofstream(out / "p.json") << profile.dump(1);
    auto r = RunFlatbench(quick + (out / "p.json"));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json doc = ReadJson(out / "r.json");
    CHECK(doc["context"]["flatbench.device_profile"] == profile);
    CHECK(doc["benchmarks"].size() == 1);
    auto rep = RunFlatbench("report " + (out / "r.json") + " --out " +
                            (out / "report"));
    INFO(rep.err);
    CHECK(rep.exit_code == 2);
    std::ifstream md(out / "report/report.md");
    std::string text((std::istreambuf_iterator<char>(md)), {});
    CHECK_THAT(text, Catch::Contains("Device profile recorded in"));
    CHECK_THAT(text, Catch::Contains("| 1 | 66,667 (15 µs) |"));
  }
  SECTION("a malformed profile exits 65 naming file and key, writes nothing") {
    nlohmann::json bad = profile;
    bad.erase("cpus");
    std::ofstream(out / "bad.json") << bad.dump();
    auto r = RunFlatbench(quick + (out / "bad.json"));
    CHECK(r.exit_code == 65);
    CHECK_THAT(r.err, Catch::Contains(out / "bad.json"));
    CHECK_THAT(r.err, Catch::Contains("\"cpus\""));
    CHECK_FALSE(std::filesystem::exists(out / "r.json"));
    std::ofstream(out / "text.json") << "not json";
    r = RunFlatbench(quick + (out / "text.json"));
    CHECK(r.exit_code == 65);
    CHECK_THAT(r.err, Catch::Contains(out / "text.json"));
    CHECK_FALSE(std::filesystem::exists(out / "r.json"));
  }
  SECTION("a missing profile exits 66 naming it, writes nothing") {
    auto r = RunFlatbench(quick + (out / "none.json"));
    CHECK(r.exit_code == 66);
    CHECK_THAT(r.err, Catch::Contains(out / "none.json"));
    CHECK_FALSE(std::filesystem::exists(out / "r.json"));
  }
}

TEST_CASE("bench exit codes", "[bench][cli]") {
  TempDir out;
  const std::string dir = TinyDatasetDir();
  const std::string quick =
      " --threads 1 --reads 10 --repetitions 1 --check-samples 20 "
      "--modes warm --tables account --kinds hit --no-device --quiet "
      "--evict fadvise";
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
    auto r = RunFlatbench("bench --dir " + dir + " --backends arena --out " +
                          (out / "exists") + quick);
    CHECK(r.exit_code == 73);
    CHECK_THAT(r.err, Catch::Contains("--force"));
    r = RunFlatbench("bench --dir " + dir + " --backends arena --out " +
                     (out / "exists") + quick + " --force");
    CHECK(r.exit_code == 0);
  }
  SECTION("a failed sanity check exits 65 and still writes the JSON") {
    // A test hook of flatbench_test, which the workers inherit.
    auto r = RunFlatbench("bench --dir " + dir + " --backends arena --out " +
                              (out / "bad.json") + quick,
                          {"FLATBENCH_TEST_CORRUPT_EXPECTATIONS=1"});
    CHECK(r.exit_code == 65);
    nlohmann::json doc = ReadJson(out / "bad.json");
    CHECK(
        doc["context"][results::BackendKey("arena", results::kSanityPassed)] ==
        false);
    CHECK(doc["benchmarks"].empty());
  }
  SECTION("a backend not built in the dataset is missing input") {
    // A dataset holding the arena only; every other backend of this build
    // (none in an arena-only build) must be refused by name.
    TempDir other;
    datagen::GenOptions o;
    o.dir = other / "arena-only";
    o.spec = dataset::MakeSpec("custom", 500, 2, dataset::kDefaultSeed).value();
    o.backends = {"arena"};
    o.progress = false;
    REQUIRE(datagen::Generate(o, backends::NewLoader).ok());
    for (const auto& b : testing::TinyBackends()) {
      if (b == "arena") continue;
      CAPTURE(b);
      auto r = RunFlatbench("bench --dir " + o.dir + " --backends " + b +
                            " --out " + (out / "x") + quick);
      CHECK(r.exit_code == 66);
      CHECK_THAT(r.err, Catch::Contains(b));
    }
  }
}

}  // namespace
}  // namespace flatbench::bench
