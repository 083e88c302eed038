// Age through PostgreSQL's writer against a real server: the cluster, aged
// by the stream on its own, holds the state the generator enumerates,
// whether the writer applies blocks again or is stopped at a block and
// resumed; each age leaves its server stopped.
#include <filesystem>

#include "test/baselines/age_store_check.h"

using namespace flatbench;
namespace fs = std::filesystem;

TEST_CASE("age postgres: blocks applied again leave the aged state") {
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
  const std::string dir = tmp / "ds";
  const auto engine = age_check::AgeRepeating(dir, "postgres");
  for (const char* name :
       {"wal_bytes", "account.heap_bytes", "account.index_bytes",
        "account.total_bytes", "storage.heap_bytes", "storage.index_bytes",
        "storage.total_bytes", "storage.dead_tuples_this_run"}) {
    INFO(name);
    REQUIRE(engine.count(name) == 1);
    CHECK(std::stoull(engine.at(name)) > 0);
  }
  CHECK(engine.count("account.dead_tuples_this_run") == 1);
  // The writer's server and the check's are stopped.
  CHECK_FALSE(fs::exists(dir + "/postgres/postmaster.pid"));
}

TEST_CASE("age postgres: stopped at a block, resumed to the aged state") {
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
  const std::string dir = tmp / "ds";
  age_check::AgeStoppedAndResumed(dir, "postgres", 7);
  CHECK_FALSE(fs::exists(dir + "/postgres/postmaster.pid"));
}
