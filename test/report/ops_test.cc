// Scan and startup entries and reference backends in the report: read,
// refused when malformed, rendered side by side, never gated.
#include <catch2/catch.hpp>

#include "common/results_ops.h"
#include "report/document/report.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using testing::ParseStatus;
using testing::ResultsBuilder;

ResultsBuilder WithOps() {
  ResultsBuilder b;
  b.scan_cells = true;
  b.startup_cells = true;
  return b;
}

// The builder's backends plus a reference backend no threshold names.
ResultsBuilder WithReference(double hit, double miss) {
  ResultsBuilder b = WithOps();
  b.backends.push_back("sqlite");
  b.hit_reads_per_s["sqlite"] = hit;
  b.miss_reads_per_s["sqlite"] = miss;
  b.device_reads_per_s["sqlite"] = 25000;
  return b;
}

TEST_CASE("scan and startup entries are read", "[report][ops]") {
  ResultSet rs = testing::Parse(WithOps().Build());
  size_t scans = 0, startups = 0;
  for (const auto& p : rs.passes) {
    scans += p.cell.kind == r::kKindScan;
    startups += p.cell.kind == r::kKindStartup;
  }
  // 3 backends x 3 modes x 2 tables x 3 thread counts x 5 reps; startup
  // 3 x 3 x 5.
  CHECK(scans == 270);
  CHECK(startups == 45);
}

TEST_CASE("scan and startup cells do not change the verdict or its gates",
          "[report][ops]") {
  Verdict plain = testing::Judge(ResultsBuilder().Build());
  auto doc = WithOps().Build();
  // Scans that wait on storage with little overlap, and a cold startup
  // whose eviction was not verified: neither is gated.
  testing::SetCounter(doc, "arena/account/scan/cold/threads:32",
                      std::string(r::kMeanInflight.name), 2);
  testing::SetCounter(doc, "rocksdb/account/startup/cold",
                      std::string(r::kEvictionVerified.name), 0);
  Verdict v = testing::Judge(doc);
  for (const Gate* g : v.FailedGates()) {
    for (const auto& d : g->details) UNSCOPED_INFO(g->name << ": " << d);
  }
  CHECK(v.outcome == plain.outcome);
  CHECK(testing::FailedGateNames(v) == testing::FailedGateNames(plain));
  CHECK(v.checks.size() == plain.checks.size());
}

TEST_CASE("a reference backend never changes the verdict", "[report][ops]") {
  Verdict plain = testing::Judge(WithOps().Build());
  REQUIRE(plain.outcome == Outcome::kGo);
  SECTION("fast or slow") {
    for (double hit : {1.0, 1e6}) {
      CAPTURE(hit);
      Verdict v = testing::Judge(WithReference(hit, hit * 5).Build());
      CHECK(v.outcome == plain.outcome);
      CHECK(v.checks.size() == plain.checks.size());
      CHECK(testing::FailedGateNames(v).empty());
    }
  }
  SECTION("failing its sanity check, missing cells and erroring") {
    auto doc = WithReference(100, 500).Build();
    doc["context"][r::BackendKey("sqlite", r::kSanityPassed)] = false;
    doc["context"][r::BackendKey("sqlite", r::kSanityError)] = "bad";
    doc["context"][r::BackendKey("sqlite", r::kDiskBytes)] = 1;
    testing::SetCounter(doc, "sqlite/", "file_pages", 0);
    testing::SetCounter(doc, "sqlite/", "device_file_bytes", 0);
    CHECK(testing::RemoveEntries(doc, "sqlite/storage/") > 0);
    auto& e = testing::Entry(doc, "sqlite/account/hit/cold/threads:8/rep:0");
    e[std::string(r::kEvictionVerified.name)] = 0;
    testing::SetCounter(doc, "sqlite/account/hit/cold/threads:32",
                        std::string(r::kMeanInflight.name), 1);
    testing::SetRate(doc, "sqlite/account/device/cold/threads:1", 1);
    Verdict v = testing::Judge(doc);
    CHECK(v.outcome == plain.outcome);
    CHECK(testing::FailedGateNames(v).empty());
  }
}

TEST_CASE("the report shows every backend's scans and startup",
          "[report][ops]") {
  ResultSet rs = testing::Parse(WithReference(5000, 20000).Build());
  RenderedReport out =
      RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
  const std::string& md = out.markdown;
  const size_t section = md.find("## Scans and startup");
  REQUIRE(section != std::string::npos);
  const std::string ops = md.substr(section);
  CHECK(ops.find("scans/s (median)") != std::string::npos);
  CHECK(ops.find("startup (median)") != std::string::npos);
  for (const char* b :
       {"| arena |", "| rocksdb |", "| lmdb |", "| sqlite (reference) |"}) {
    CAPTURE(b);
    CHECK(ops.find(b) != std::string::npos);
  }
  // The per-cell table marks the reference backend too.
  CHECK(md.substr(0, section).find("sqlite (reference)") != std::string::npos);
  CHECK(ops.find("NO:") == std::string::npos);  // The checksums agree.
  CHECK(out.charts.count("startup.svg") == 1);
  CHECK(out.charts.count("scans_per_s_cold.svg") == 1);
}

TEST_CASE("the report flags backends whose scans returned other pairs",
          "[report][ops]") {
  auto doc = WithOps().Build();
  testing::SetCounter(doc, "lmdb/storage/scan/warm/threads:8/rep:3",
                      std::string(r::kScanChecksum.name), 7);
  ResultSet rs = testing::Parse(doc);
  RenderedReport out =
      RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
  CHECK(out.markdown.find("NO: 1 passes differ") != std::string::npos);
}

TEST_CASE("results without scan or startup cells still render",
          "[report][ops]") {
  ResultSet rs = testing::Parse(ResultsBuilder().Build());
  RenderedReport out =
      RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
  CHECK(out.markdown.find("measured no scan or startup cells") !=
        std::string::npos);
}

TEST_CASE("malformed scan and startup entries are refused", "[report][ops]") {
  const std::string scan = "arena/account/scan/cold/threads:8/rep:2";
  const std::string startup = "lmdb/account/startup/warm/threads:1/rep:1";
  auto doc = WithOps().Build();
  REQUIRE(ParseStatus(doc).ok());
  std::string counter;
  SECTION("a missing scan counter") {
    counter = std::string(r::kScanChecksum.name);
    testing::Entry(doc, scan).erase(counter);
  }
  SECTION("more pairs per scan than asked for") {
    counter = std::string(r::kEntriesPerScan.name);
    testing::Entry(doc, scan)[counter] = 101;
  }
  SECTION("entries/s that is not scans/s x pairs per scan") {
    counter = std::string(r::kEntriesPerS.name);
    testing::Entry(doc, scan)[counter] = 1;
  }
  SECTION("full pages that are short") {
    counter = std::string(r::kFoundFraction.name);
    testing::Entry(doc, scan)[std::string(r::kEntriesPerScan.name)] = 99;
    testing::Entry(doc, scan)[std::string(r::kEntriesPerS.name)] =
        testing::Entry(doc, scan)["reads_per_s"].get<double>() * 99;
  }
  SECTION("an open longer than the startup") {
    counter = std::string(r::kOpenSeconds.name);
    testing::Entry(doc, startup)[counter] = 5.0;
  }
  SECTION("a median startup outside its probes") {
    counter = std::string(r::kStartupS.name);
    testing::Entry(doc, startup)[counter] = 9.0;
  }
  SECTION("a startup that is not positive") {
    counter = std::string(r::kStartupMinS.name);
    testing::Entry(doc, startup)[counter] = 0;
  }
  SECTION("a startup cell with eight threads") {
    counter = "lmdb/account/startup/warm/threads:8/rep:1";
    testing::Entry(doc, startup)["name"] = counter;
  }
  Status st = ParseStatus(doc);
  CAPTURE(st.message());
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message().find(counter) != std::string::npos);
}

}  // namespace
}  // namespace flatbench::report
