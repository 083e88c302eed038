// `flatbench report` end to end: exit codes, files written, stdout.
#include <catch2/catch.hpp>
#include <filesystem>

#include "test/report/results_builder.h"
#include "test/run_command.h"
#include "test/temp_dir.h"

namespace flatbench::report {
namespace {

using flatbench::testing::ReadAll;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
using flatbench::testing::WriteAll;
using testing::ResultsBuilder;

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

TEST_CASE("report writes md and html and exits with the verdict",
          "[report][cli]") {
  TempDir tmp;
  ResultsBuilder b;
  int want = 0;
  std::string verdict = "GO";
  SECTION("GO") {}
  SECTION("NO-GO") {
    b.hit_reads_per_s["arena"] = 15000;  // 1.5 x RocksDB < 1.8.
    want = 1;
    verdict = "NO-GO";
  }
  SECTION("INCONCLUSIVE") {
    b.scale = "smoke";
    want = 2;
    verdict = "INCONCLUSIVE";
  }
  WriteAll(tmp / "r.json", b.Text());
  auto r =
      RunFlatbench("report " + (tmp / "r.json") + " --out " + (tmp / "out"));
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == want);
  CHECK(r.out.find("verdict: " + verdict + "\n") != std::string::npos);
  CHECK(r.out.find(tmp / "out/report.md") != std::string::npos);
  CHECK(r.out.find(tmp / "out/report.html") != std::string::npos);
  CHECK(r.out.find("XXH3-64") != std::string::npos);
  CHECK(ReadAll(tmp / "out/report.md").find("## Verdict: " + verdict + "\n") !=
        std::string::npos);
  CHECK(Exists(tmp / "out/report.html"));
  CHECK(Exists(tmp / "out/reads_per_s.svg"));
}

TEST_CASE("report links the documents it names, from wherever it is written",
          "[report][cli]") {
  TempDir tmp;
  WriteAll(tmp / "r.json", ResultsBuilder().Text());
  REQUIRE(
      RunFlatbench("report " + (tmp / "r.json") + " --out " + (tmp / "a/b/out"))
          .exit_code == 0);
  const std::string md = ReadAll(tmp / "a/b/out/report.md");
  const std::string html = ReadAll(tmp / "a/b/out/report.html");
  // "RESEARCH.md §7" as a link to that section, relative to the report's
  // folder, reaching this source tree's RESEARCH.md.
  const size_t at = md.find("[RESEARCH.md §7](");
  REQUIRE(at != std::string::npos);
  const size_t from = at + std::string("[RESEARCH.md §7](").size();
  const std::string target = md.substr(from, md.find(')', from) - from);
  CAPTURE(target);
  const std::string file = target.substr(0, target.find('#'));
  CHECK(target.substr(file.size()) == "#7-thresholds-and-validity-gates");
  CHECK(std::filesystem::equivalent(tmp / ("a/b/out/" + file),
                                    FLATBENCH_SOURCE_ROOT "/RESEARCH.md"));
  CHECK(html.find("<a href=\"" + target + "\">RESEARCH.md §7</a>") !=
        std::string::npos);
}

TEST_CASE("report refuses to overwrite without --force", "[report][cli]") {
  TempDir tmp;
  WriteAll(tmp / "r.json", ResultsBuilder().Text());
  std::string args = "report " + (tmp / "r.json") + " --out " + (tmp / "out");
  REQUIRE(RunFlatbench(args).exit_code == 0);
  auto again = RunFlatbench(args);
  CHECK(again.exit_code == 73);
  CHECK(again.err.find("report.md") != std::string::npos);
  CHECK(again.err.find("--force") != std::string::npos);
  CHECK(RunFlatbench(args + " --force").exit_code == 0);
}

// A refused report: exit `want`, one line on stderr naming `named`, and no
// report written.
void CheckRefusedReport(const std::string& args, int want,
                        const std::string& named,
                        const std::string& report_md) {
  auto r = RunFlatbench(args);
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == want);
  CHECK(r.err.find(named) != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(Exists(report_md));
}

TEST_CASE("report exit codes for bad results files", "[report][cli]") {
  TempDir tmp;
  WriteAll(tmp / "r.json", ResultsBuilder().Text());
  const std::string out = " --out " + (tmp / "out");
  std::string args;
  int want = 0;
  std::string named;
  SECTION("missing results file") {
    args = "report " + (tmp / "nope.json") + out;
    want = 66;
    named = "nope.json";
  }
  SECTION("malformed results file") {
    WriteAll(tmp / "bad.json", "{\"context\": ");
    args = "report " + (tmp / "bad.json") + out;
    want = 65;
    named = "bad.json";
  }
  SECTION("two datasets mixed") {
    ResultsBuilder a, b;
    a.backends = {"arena"};
    b.backends = {"rocksdb", "lmdb"};
    b.fingerprint = "ffffffffffffffff";
    WriteAll(tmp / "a.json", a.Text());
    WriteAll(tmp / "b.json", b.Text());
    args = "report " + (tmp / "a.json") + " " + (tmp / "b.json") + out;
    want = 65;
    named = "flatbench.fingerprint";
  }
  SECTION("fields that contradict each other") {
    auto doc = ResultsBuilder().Build();
    doc["context"]["flatbench.spec"] =
        "flatbench-dataset v1 accounts=100000 slots_per_account=5 seed=42";
    WriteAll(tmp / "c.json", doc.dump());
    args = "report " + (tmp / "c.json") + out;
    want = 65;
    named =
        "flatbench.spec says accounts=100000 but "
        "flatbench.dataset.accounts is 300000000";
  }
  SECTION("a pass whose mean in flight is above its peak") {
    auto doc = ResultsBuilder().Build();
    for (auto& e : doc["benchmarks"]) {
      if (e["name"] != "lmdb/storage/miss-live/cold/threads:8/rep:3") continue;
      e["mean_inflight"] = 6.0;
      e["peak_inflight"] = 1;
    }
    WriteAll(tmp / "m.json", doc.dump());
    args = "report " + (tmp / "m.json") + out;
    want = 65;
    named =
        "m.json: benchmark 'lmdb/storage/miss-live/cold/threads:8/rep:3' "
        "counter mean_inflight 6 is above peak_inflight 1";
  }
  SECTION("a spec without counts beside full scale's dataset keys") {
    auto doc = ResultsBuilder().Build();
    doc["context"]["flatbench.spec"] = "flatbench-dataset v1 seed=42";
    WriteAll(tmp / "s.json", doc.dump());
    args = "report " + (tmp / "s.json") + out;
    want = 65;
    named =
        "flatbench.spec 'flatbench-dataset v1 seed=42' states no accounts=N";
  }
  CheckRefusedReport(args, want, named, tmp / "out/report.md");
}

TEST_CASE("report exit codes for bad thresholds and usage", "[report][cli]") {
  TempDir tmp;
  WriteAll(tmp / "r.json", ResultsBuilder().Text());
  const std::string out = " --out " + (tmp / "out");
  std::string args;
  int want = 0;
  std::string named;
  SECTION("missing thresholds file") {
    args = "report " + (tmp / "r.json") + out + " --thresholds " +
           (tmp / "t.json");
    want = 66;
    named = "t.json";
  }
  SECTION("malformed thresholds file") {
    WriteAll(tmp / "t.json", "{\"flatbench_thresholds\": 1}");
    args = "report " + (tmp / "r.json") + out + " --thresholds " +
           (tmp / "t.json");
    want = 65;
    named = "'gate'";
  }
  SECTION("no --out") {
    args = "report " + (tmp / "r.json");
    want = 64;
    named = "--out";
  }
  SECTION("no results") {
    args = "report" + out;
    want = 64;
    named = "results";
  }
  SECTION("a drive rated for no bytes") {
    args = "report " + (tmp / "r.json") + out + " --drive-tbw 0";
    want = 64;
    named = "--drive-tbw";
  }
  CheckRefusedReport(args, want, named, tmp / "out/report.md");
}

TEST_CASE("report prints a line per read path; the mmap reader's sets the exit",
          "[report][cli]") {
  TempDir tmp;
  ResultsBuilder b;
  b.backends = {"arena", "arena+cache", "rocksdb", "lmdb"};
  b.miss_reads_per_s["arena+cache"] = b.miss_reads_per_s["arena"];
  b.device_reads_per_s["arena+cache"] = b.device_reads_per_s["arena"];
  int want = 0;
  SECTION("mmap fails clearly, the cached path passes") {
    b.hit_reads_per_s["arena"] = 15000;  // 1.5 x RocksDB < 1.8.
    b.hit_reads_per_s["arena+cache"] = 30000;
    want = 1;
  }
  SECTION("mmap passes, the cached path fails") {
    b.hit_reads_per_s["arena+cache"] = 15000;
    want = 0;
  }
  WriteAll(tmp / "r.json", b.Text());
  auto r =
      RunFlatbench("report " + (tmp / "r.json") + " --out " + (tmp / "out"));
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == want);
  const std::string mmap = want == 1 ? "NO-GO" : "GO";
  const std::string cache = want == 1 ? "GO" : "NO-GO";
  const size_t first = r.out.find("\n  arena (mmap): " + mmap + ", ");
  const size_t second = r.out.find("\n  arena+cache: " + cache + ", ");
  CHECK(r.out.rfind("verdict: " + mmap + "\n", 0) == 0);
  CHECK(first != std::string::npos);
  CHECK(second != std::string::npos);
  CHECK(first < second);
}

TEST_CASE("--thresholds uses the given file and prints its digest",
          "[report][cli]") {
  TempDir tmp;
  WriteAll(tmp / "r.json", ResultsBuilder().Text());
  auto t =
      nlohmann::json::parse(ReadAll(FLATBENCH_SOURCE_ROOT "/thresholds.json"));
  t["checks"][0]["min_ratio"] = 2.5;  // The builder's arena is 2.0 x RocksDB.
  WriteAll(tmp / "t.json", t.dump(2));
  auto r = RunFlatbench("report " + (tmp / "r.json") + " --out " +
                        (tmp / "out") + " --thresholds " + (tmp / "t.json"));
  CAPTURE(r.out, r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find(tmp / "t.json") != std::string::npos);
  CHECK(ReadAll(tmp / "out/report.md").find(tmp / "t.json") !=
        std::string::npos);
}

}  // namespace
}  // namespace flatbench::report
