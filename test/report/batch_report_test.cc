// Batch entries (bench --kinds batch) in the report: read through the
// contract, refused when a figure is missing or contradicts another,
// rendered beside the same backend's point reads, never gated.
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

ResultsBuilder WithBatches() {
  ResultsBuilder b;
  b.batch_cells = true;
  return b;
}

TEST_CASE("batch entries are read with their per-key figures",
          "[report][batch]") {
  ResultSet rs = testing::Parse(WithBatches().Build());
  size_t batches = 0, with_device = 0;
  for (const auto& p : rs.passes) {
    if (p.cell.kind != r::kKindBatch) continue;
    ++batches;
    CHECK(p.Get(r::kKeysPerS) == Approx(p.Get(r::kReadsPerS) * 32));
    if (std::isfinite(p.Get(r::kBatchIoEfficiency))) ++with_device;
  }
  // 3 backends x 3 modes x 2 tables x 2 thread counts x 5 reps; the device
  // rate in the two cold modes.
  CHECK(batches == 180);
  CHECK(with_device == 120);
}

TEST_CASE("batch cells do not change the verdict or its gates",
          "[report][batch]") {
  Verdict plain = testing::Judge(ResultsBuilder().Build());
  auto doc = WithBatches().Build();
  // A batch far below its device, with an unverified eviction: not gated.
  testing::SetCounter(doc, "rocksdb/account/batch/cold",
                      std::string(r::kEvictionVerified.name), 0);
  Verdict v = testing::Judge(doc);
  CHECK(v.outcome == plain.outcome);
  CHECK(testing::FailedGateNames(v) == testing::FailedGateNames(plain));
  CHECK(v.checks.size() == plain.checks.size());
}

TEST_CASE("the report shows batches beside the 32-thread point reads",
          "[report][batch]") {
  ResultSet rs = testing::Parse(WithBatches().Build());
  RenderedReport out =
      RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
  const std::string& md = out.markdown;
  const size_t section = md.find("## Batched lookups");
  REQUIRE(section != std::string::npos);
  const std::string batch = md.substr(section);
  CHECK(batch.find("keys/s (median)") != std::string::npos);
  CHECK(batch.find("point reads/s") != std::string::npos);
  CHECK(batch.find("Batches, cold:") != std::string::npos);
  CHECK(batch.find("Batches, warm:") != std::string::npos);
  // arena, account, one thread, cold: keys/s 4 x 20000 = 80,000 beside its
  // 32-thread hits at 640,000 reads/s; depth 28.8 of 32 from its own
  // submissions; device 25000 x 32 = 800,000 at depth 32.
  CHECK(batch.find("| account | 1 | arena | 32 | 80,000 |") !=
        std::string::npos);
  CHECK(batch.find("28.8 / 32 (own submissions)") != std::string::npos);
  CHECK(batch.find("800,000") != std::string::npos);
  CHECK(batch.find("640,000") != std::string::npos);
  CHECK(out.charts.count("batch_keys_per_s_cold.svg") == 1);
  CHECK(out.charts.count("batch_keys_per_s_warm.svg") == 1);
  CHECK(out.html.find("Batched lookups") != std::string::npos);
  CHECK(out.html.find("Batched keys/s beside point reads/s (cold") !=
        std::string::npos);
}

TEST_CASE("results without batch cells say so", "[report][batch]") {
  ResultSet rs = testing::Parse(ResultsBuilder().Build());
  RenderedReport out =
      RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
  CHECK(out.markdown.find("measured no batch cells") != std::string::npos);
}

TEST_CASE("malformed batch entries are refused with exit 65",
          "[report][batch]") {
  const std::string cold = "arena/storage/batch/cold/threads:2/rep:2";
  const std::string warm = "lmdb/account/batch/warm/threads:1/rep:0";
  auto doc = WithBatches().Build();
  REQUIRE(ParseStatus(doc).ok());
  std::string counter;
  SECTION("a missing batch size") {
    counter = std::string(r::kBatchSize.name);
    testing::Entry(doc, cold).erase(counter);
  }
  SECTION("a missing keys/s") {
    counter = std::string(r::kKeysPerS.name);
    testing::Entry(doc, warm).erase(counter);
  }
  SECTION("keys/s that is not calls/s x batch size") {
    counter = std::string(r::kKeysPerS.name);
    testing::Entry(doc, cold)[counter] = 1;
  }
  SECTION("a batch size that is not a whole number") {
    counter = std::string(r::kBatchSize.name);
    testing::Entry(doc, cold)[counter] = 0.5;
  }
  SECTION("hit keys that were not all found") {
    counter = std::string(r::kFoundFraction.name);
    testing::Entry(doc, cold)[counter] = 0.5;
  }
  SECTION("keys that are not calls x batch size") {
    counter = std::string(r::kDistinctKeys.name);
    testing::Entry(doc, cold)[counter] = 20000;
  }
  SECTION("CPU per key above CPU per call / batch size") {
    counter = std::string(r::kCpuNsPerKey.name);
    testing::Entry(doc, cold)[counter] = 4000;
  }
  SECTION("a mean depth above the deepest") {
    counter = std::string(r::kIoDepthMean.name);
    testing::Entry(doc, cold)[counter] = 40;
  }
  SECTION("a depth without its source") {
    counter = std::string(r::kIoDepthSource.name);
    testing::Entry(doc, cold).erase(counter);
  }
  SECTION("an efficiency that is not keys/s over the device rate") {
    counter = std::string(r::kBatchIoEfficiency.name);
    testing::Entry(doc, cold)[counter] = 3;
  }
  SECTION("an efficiency without its device rate") {
    counter = std::string(r::kBatchIoEfficiency.name);
    testing::Entry(doc, cold).erase(std::string(r::kBatchDeviceReadsPerS.name));
  }
  SECTION("a device rate in warm mode") {
    counter = std::string(r::kBatchDeviceReadsPerS.name);
    auto& e = testing::Entry(doc, warm);
    e[counter] = 800000;
    e[std::string(r::kBatchIoEfficiency.name)] =
        e[std::string(r::kKeysPerS.name)].get<double>() / 800000;
  }
  SECTION("a device rate other than the device cell's at depth B") {
    counter = std::string(r::kBatchDeviceReadsPerS.name);
    auto& e = testing::Entry(doc, cold);
    e[counter] = 500000;
    e[std::string(r::kBatchIoEfficiency.name)] =
        e[std::string(r::kKeysPerS.name)].get<double>() / 500000;
  }
  SECTION("a negative storage reads per key") {
    counter = std::string(r::kStorageReadsPerKey.name);
    testing::Entry(doc, cold)[counter] = -1;
  }
  Status st = ParseStatus(doc);
  CAPTURE(st.message());
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.ExitCode() == 65);
  CHECK(st.message().find(counter) != std::string::npos);
}

}  // namespace
}  // namespace flatbench::report
