// Age through the reference stores' writers (SQLite, the file store): each
// store, aged by the stream on its own, holds the state the generator
// enumerates, whether its writer applies blocks again or is stopped at a
// block and resumed. PostgreSQL's writer is aged in postgres_test
// (postgres_age_test.cc), which starts its servers; here only its refusal
// of a folder without a cluster, which starts none.
#include <filesystem>

#include "flatbench_config.h"
#include "test/baselines/age_store_check.h"

using namespace flatbench;
namespace fs = std::filesystem;

namespace {

// An upkeep figure of the store's marker, as a number.
uint64_t EngineNumber(const std::map<std::string, std::string>& engine,
                      const std::string& name) {
  INFO(name);
  REQUIRE(engine.count(name) == 1);
  return std::stoull(engine.at(name));
}

}  // namespace

#if FLATBENCH_HAVE_SQLITE
TEST_CASE("age sqlite: blocks applied again leave the aged state") {
  testing::TempDir tmp;
  const std::string dir = tmp / "ds";
  const auto engine = age_check::AgeRepeating(dir, "sqlite");
  CHECK(engine.at("journal_mode") == "wal");
  CHECK(EngineNumber(engine, "page_size") == 4096);
  CHECK(EngineNumber(engine, "page_count") >
        EngineNumber(engine, "freelist_count"));
  // The WAL was checkpointed into the file: the log the readers of the
  // check found (or made) holds nothing.
  const std::string wal = dir + "/sqlite/data.sqlite-wal";
  CHECK((!fs::exists(wal) || fs::file_size(wal) == 0));
  auto integrity =
      backends::Open("sqlite", dir + "/sqlite", {}).value()->CheckIntegrity();
  INFO(integrity.status().message());
  CHECK(integrity.ok());
}

TEST_CASE("age sqlite: stopped at a block, resumed to the aged state") {
  testing::TempDir tmp;
  age_check::AgeStoppedAndResumed(tmp / "ds", "sqlite", 7);
}
#endif

#if FLATBENCH_HAVE_FS
TEST_CASE("age fs: blocks applied again leave the aged state") {
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
  const std::string dir = tmp / "ds";
  const auto engine = age_check::AgeRepeating(dir, "fs");
  // One file per live key, each taking at least one block of disk.
  auto ds = datagen::Dataset::Open(dir);
  REQUIRE(ds.ok());
  auto build = ds->Build("fs");
  REQUIRE(build.ok());
  for (int t = 0; t < kNumTables; ++t) {
    const std::string p = TableName(static_cast<Table>(t));
    CHECK(EngineNumber(engine, p + ".files") == build->pairs[t]);
    CHECK(EngineNumber(engine, p + ".disk_bytes") >= build->pairs[t] * 512);
    CHECK(EngineNumber(engine, p + ".folders") > 0);
  }
  CHECK_FALSE(fs::exists(dir + "/fs/put.tmp"));
}

TEST_CASE("age fs: stopped at a block, resumed to the aged state") {
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
  age_check::AgeStoppedAndResumed(tmp / "ds", "fs", 7);
  CHECK_FALSE(fs::exists(tmp / "ds/fs/put.tmp"));
}
#endif

TEST_CASE("age: a reference store's writer refuses a folder without it") {
  testing::TempDir tmp;
  const std::string empty = tmp / "empty";
  fs::create_directory(empty);
  for (const char* store : {"sqlite", "fs", "postgres"}) {
    if (!backends::Find(store)->built) continue;
    INFO(store);
    auto w = backends::NewWriter(store, empty, WriterOptions{});
    CHECK(w.status().code() == Code::kMissingInput);
    CHECK(w.status().message().find(empty) != std::string::npos);
  }
}
