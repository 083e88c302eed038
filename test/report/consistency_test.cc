// Results files whose fields contradict each other are refused with 65 and
// a message naming both fields, never given a verdict.
#include "report/consistency.h"

#include <catch2/catch.hpp>

#include "report/run_data.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using nlohmann::json;
using testing::Entry;
using testing::ParseStatus;
using testing::ResultsBuilder;

// A consistent document, to contradict one field of.
json ConsistentDoc() {
  json doc = ResultsBuilder().Build();
  REQUIRE(ParseStatus(doc, "crafted.json").ok());
  return doc;
}

// The refusal every contradiction gets: 65, naming the file and each of
// `named`.
void CheckContradictionRefused(const json& doc,
                               const std::vector<std::string>& named) {
  Status st = ParseStatus(doc, "crafted.json");
  CAPTURE(st.message());
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.ExitCode() == 65);
  CHECK(st.message().find("crafted.json") != std::string::npos);
  for (const auto& part : named) {
    CAPTURE(part);
    CHECK(st.message().find(part) != std::string::npos);
  }
}

TEST_CASE("a spec that contradicts the dataset's counts is refused with 65",
          "[report][consistency]") {
  json doc = ConsistentDoc();
  std::vector<std::string> named;
  SECTION("the spec says smoke's counts, the dataset keys full's") {
    doc["context"]["flatbench.spec"] =
        "flatbench-dataset v1 accounts=100000 slots_per_account=5 seed=42";
    named = {"flatbench.spec", "accounts=100000", "flatbench.dataset.accounts",
             "300000000"};
  }
  SECTION("a spec without counts, the dataset keys full scale's") {
    doc["context"]["flatbench.spec"] = "hand-made";
    named = {"flatbench.spec 'hand-made' states no accounts=N",
             "flatbench.dataset.accounts"};
  }
  SECTION("a spec with accounts but no slots") {
    doc["context"]["flatbench.spec"] =
        "flatbench-dataset v1 accounts=300000000 seed=42";
    named = {"flatbench.spec", "states no slots_per_account=N",
             "flatbench.dataset.slots_per_account"};
  }
  SECTION("the spec's slots disagree") {
    doc["context"]["flatbench.dataset.slots_per_account"] = 5;
    named = {"flatbench.spec", "slots_per_account=4",
             "flatbench.dataset.slots_per_account"};
  }
  CheckContradictionRefused(doc, named);
}

TEST_CASE("page counts that contradict the bytes on disk are refused with 65",
          "[report][consistency]") {
  json doc = ConsistentDoc();
  std::vector<std::string> named;
  SECTION("an 8 MB dataset's page counts against 138 GB on disk") {
    testing::SetCounter(doc, "rocksdb/storage/hit/", "file_pages", 2048);
    doc["context"]["flatbench.backend.rocksdb.disk_bytes"] = 138000000000;
    named = {"rocksdb/storage/hit/", "file_pages",
             "flatbench.backend.rocksdb.disk_bytes", "8 MiB", "129 GiB"};
  }
  SECTION("138 GB of pages against 8 MB on disk") {
    doc["context"]["flatbench.backend.lmdb.disk_bytes"] = 8000000;
    // The first of LMDB's passes named: its first device pass.
    named = {"'lmdb/", "device_file_bytes 65.2 GiB",
             "flatbench.backend.lmdb.disk_bytes 7.63 MiB"};
    SECTION("without device cells: its first read pass") {
      testing::RemoveEntries(doc, "lmdb/account/device/");
      testing::RemoveEntries(doc, "lmdb/storage/device/");
      named = {"'lmdb/", "file_pages 34,179,688",
               "flatbench.backend.lmdb.disk_bytes 7.63 MiB"};
    }
  }
  SECTION("a device pass over more bytes than its backend has") {
    Entry(doc,
          "arena/account/device/cold/threads:8/rep:3")["device_file_bytes"] =
        1e12;
    named = {"arena/account/device/cold/threads:8/rep:3", "device_file_bytes",
             "flatbench.backend.arena.disk_bytes"};
  }
  CheckContradictionRefused(doc, named);
}

TEST_CASE(
    "a storage bound or device rate that contradicts its pass is refused "
    "with 65",
    "[report][consistency]") {
  json doc = ConsistentDoc();
  std::vector<std::string> named;
  SECTION("a pass marked not storage-bound that read 4,700 bytes per read") {
    auto& e = Entry(doc, "lmdb/storage/hit/cold/threads:8/rep:1");
    e["storage_bound"] = 0;
    e["bytes_read_per_read"] = 4700;
    e["major_faults_per_read"] = 0;
    named = {"lmdb/storage/hit/cold/threads:8/rep:1", "storage_bound is 0",
             "bytes_read_per_read 4700"};
  }
  SECTION("a pass marked not storage-bound with a fault per read") {
    auto& e = Entry(doc, "arena/account/miss-absent/cold/threads:1/rep:0");
    e["storage_bound"] = 0;
    e["bytes_read_per_read"] = 0;
    e["major_faults_per_read"] = 1;
    named = {"storage_bound is 0", "major_faults_per_read 1"};
  }
  SECTION("a warm pass marked storage-bound that read nothing") {
    Entry(doc, "arena/account/hit/warm/threads:8/rep:0")["storage_bound"] = 1;
    named = {"arena/account/hit/warm/threads:8/rep:0", "storage_bound is 1",
             "bytes_read_per_read 0", "major_faults_per_read 0"};
  }
  SECTION("a device pass marked not storage-bound") {
    Entry(doc, "rocksdb/account/device/cold/threads:1/rep:0")["storage_bound"] =
        0;
    named = {"rocksdb/account/device/cold/threads:1/rep:0",
             "storage_bound is 0 on a device pass"};
  }
  SECTION("a hit's device rate 1.5 x its adjacent device cell's") {
    auto& e = Entry(doc, "arena/storage/hit/cold/threads:32/rep:2");
    const double device = e["device_reads_per_s"].get<double>() * 1.5;
    e["device_reads_per_s"] = device;
    e["io_efficiency"] = e["reads_per_s"].get<double>() / device;
    named = {"arena/storage/hit/cold/threads:32/rep:2", "device_reads_per_s",
             "reads_per_s", "arena/storage/device/cold/threads:32/rep:2",
             "1.500x"};
  }
  CheckContradictionRefused(doc, named);
}

TEST_CASE("what the consistency checks allow", "[report][consistency]") {
  json doc = ResultsBuilder().Build();
  SECTION("pages and allocated bytes within the factor") {
    doc["context"]["flatbench.backend.arena.disk_bytes"] =
        static_cast<int64_t>(140000000000 * 3.9);
  }
  SECTION("a small store's logs and preallocation within the slack") {
    ResultsBuilder b;
    b.disk_bytes = 1000000;
    doc = b.Build();
    doc["context"]["flatbench.backend.rocksdb.disk_bytes"] = 60000000;
  }
  SECTION("bytes read per read absent and no faults: not storage-bound") {
    auto& e = Entry(doc, "arena/account/hit/warm/threads:1/rep:0");
    e.erase("bytes_read_per_read");
    CHECK(e["storage_bound"] == 0);
  }
  SECTION("a hit whose device cell is absent") {
    CHECK(testing::RemoveEntries(
              doc, "lmdb/account/device/cold/threads:8/rep:2") == 1);
  }
  Status st = ParseStatus(doc, "crafted.json");
  CAPTURE(st.message());
  CHECK(st.ok());
}

}  // namespace
}  // namespace flatbench::report
