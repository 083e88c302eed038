// Age: every store that has a write path, aged by the stream, holds the
// state the generator enumerates; the arena's merged files are those gen
// writes for that state; an interrupted age resumes to the same result.
#include "datagen/age.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "arena/backend.h"
#include "arena/delta_backend.h"
#include "arena/delta_log.h"
#include "backends/table.h"
#include "datagen/check.h"
#include "datagen/dataset_dir.h"
#include "test/baselines/age_store_check.h"
#include "test/temp_dir.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
namespace fs = std::filesystem;

namespace {

// The gated stores of this build, each with a writer. The reference
// stores' writers are tested on their own (age_reference_test.cc,
// postgres_age_test.cc): a server's start and 12,000 files per fs store in
// every case here would make this test minutes long.
std::vector<std::string> WritableStores() {
  std::vector<std::string> out;
  for (const std::string& s : backends::Stores()) {
    if (s != "arena" && s != "rocksdb" && s != "lmdb") continue;
    REQUIRE(backends::Find(s)->write != nullptr);
    out.push_back(s);
  }
  return out;
}

Spec Fresh() { return MakeSpec("custom", 3000, 3, 17).value(); }

StreamSpec Stream(uint64_t blocks) {
  StreamSpec s;
  s.blocks = blocks;
  s.changes_per_block = 300;
  return s;
}

void Gen(const std::string& dir, const Spec& spec,
         const std::vector<std::string>& stores, unsigned jobs = 1) {
  GenOptions o;
  o.dir = dir;
  o.spec = spec;
  o.backends = stores;
  o.progress = false;
  o.jobs = jobs;
  auto built = Generate(o, backends::NewLoader);
  INFO(built.status().message());
  REQUIRE(built.ok());
}

AgeOptions AgeTo(const std::string& dir, uint64_t blocks, unsigned jobs = 1) {
  AgeOptions o;
  o.dir = dir;
  o.stream = Stream(blocks);
  o.merge_every = 6;
  o.jobs = jobs;
  o.write_probe_bytes = 1 << 20;
  o.progress = false;
  return o;
}

// Every pair of every aged store against the generator's stream, by walk
// and by lookup, and a sample of hits and misses.
void CheckAged(const std::string& dir) {
  auto ds = Dataset::Open(dir);
  REQUIRE(ds.ok());
  for (const std::string& store : WritableStores()) {
    age_check::CheckAged(dir, store, ds->spec().stream.blocks);
  }
}

std::string Bytes(const std::string& path) {
  return flatbench::testing::ReadAll(path);
}

}  // namespace

TEST_CASE(
    "aged stores hold the aged state; the arena is gen's, byte for byte") {
  const std::vector<std::string> stores = WritableStores();
  REQUIRE(std::find(stores.begin(), stores.end(), "arena") != stores.end());
  flatbench::testing::TempDir tmp;
  Spec aged = Fresh();
  aged.stream = Stream(20);
  Gen(tmp / "fresh", aged, {"arena"}, 2);
  for (unsigned jobs : {1u, 2u}) {
    INFO("jobs " << jobs);
    const std::string dir = tmp / ("aged" + std::to_string(jobs));
    Gen(dir, Fresh(), stores);
    // In two steps: a dataset already aged goes on with the same stream.
    auto first = Age(AgeTo(dir, 8, jobs), backends::NewWriter);
    INFO(first.status().message());
    REQUIRE(first.ok());
    auto second = Age(AgeTo(dir, 20, jobs), backends::NewWriter);
    REQUIRE(second.ok());
    REQUIRE(second->size() == stores.size());
    for (const Upkeep& u : second.value()) {
      CHECK(u.blocks == 12);
      CHECK(u.logical_bytes > 0);
      CHECK(u.disk_bytes > 0);
      CHECK(u.live_bytes > 0);
      if (u.store != "arena") continue;
      // Two merges: at 2 jobs, the second ran at one, and both are timed.
      std::map<std::string, std::string> engine(u.engine.begin(),
                                                u.engine.end());
      CHECK(engine["merges"] == "2");
      CHECK(engine["merge_jobs"] == std::to_string(jobs));
      CHECK(std::stod(engine["merge_pairs_per_s"]) > 0);
      CHECK(engine.contains("one_job_merges") == (jobs == 2));
      if (jobs == 2) CHECK(std::stod(engine["one_job_merge_pairs_per_s"]) > 0);
    }
    CheckAged(dir);
    auto ds = Dataset::Open(dir);
    auto fresh = Dataset::Open(tmp / "fresh");
    CHECK(ds->fingerprint() == fresh->fingerprint());
    for (Table t : {Table::kAccount, Table::kStorage}) {
      CHECK(Bytes(arena::ArenaPath(ds->BackendDir("arena"), t)) ==
            Bytes(arena::ArenaPath(fresh->BackendDir("arena"), t)));
    }
    // Nothing left to do at the same target; none below it.
    auto again = Age(AgeTo(dir, 20, jobs), backends::NewWriter);
    REQUIRE(again.ok());
    CHECK(again->empty());
    CHECK(Age(AgeTo(dir, 10, jobs), backends::NewWriter).status().code() ==
          Code::kUsage);
    AgeOptions other = AgeTo(dir, 30, jobs);
    other.stream.seed += 1;
    CHECK(Age(other, backends::NewWriter).status().code() == Code::kUsage);
  }
}

TEST_CASE("age stopped at any block resumes to the same stores") {
  const std::vector<std::string> stores = WritableStores();
  flatbench::testing::TempDir tmp;
  Spec aged = Fresh();
  aged.stream = Stream(14);
  Gen(tmp / "fresh", aged, {"arena"});
  for (uint64_t at : {0u, 3u, 5u, 11u, 13u}) {
    INFO("stopped before block " << at);
    const std::string dir = tmp / ("ds" + std::to_string(at));
    Gen(dir, Fresh(), stores);
    volatile std::sig_atomic_t stop = 0;
    WriterFactory stopping =
        [&](const std::string& store, const std::string& bdir,
            const WriterOptions& wo) -> Result<std::unique_ptr<StoreWriter>> {
      FLATBENCH_ASSIGN_OR_RETURN(auto w, backends::NewWriter(store, bdir, wo));
      return std::unique_ptr<StoreWriter>(
          std::make_unique<age_check::StoppingWriter>(std::move(w), at, &stop));
    };
    AgeOptions o = AgeTo(dir, 14);
    o.stop = &stop;
    auto stopped = Age(o, stopping);
    REQUIRE(stopped.status().code() == Code::kIOError);
    // The store being aged is refused until age finishes; gen leaves it.
    auto ds = Dataset::Open(dir);
    REQUIRE(ds.ok());
    CHECK(ds->Build(stores.front()).status().code() == Code::kMissingInput);
    GenOptions g;
    g.dir = dir;
    g.spec = ds->spec();
    g.backends = stores;
    g.progress = false;
    CHECK(Generate(g, backends::NewLoader).status().code() ==
          Code::kRefuseOverwrite);
    // The arena's durable blocks, if it was stopped: those after its last
    // merge (every 6 blocks) are in its log.
    uint64_t arena_durable = 0;
    if (fs::exists(dir + "/arena.aging")) {
      arena_durable = nlohmann::json::parse(Bytes(dir + "/arena.aging"))
                          .at("durable_blocks")
                          .get<uint64_t>();
      CHECK(fs::exists(dir + "/arena.log"));
    }
    // Resumed, without a stop.
    auto resumed = Age(AgeTo(dir, 14), backends::NewWriter);
    INFO(resumed.status().message());
    REQUIRE(resumed.ok());
    // The arena's blocks since its last merge came back from its log, not
    // from the stream.
    for (const Upkeep& u : resumed.value()) {
      if (u.store != "arena") continue;
      std::map<std::string, std::string> engine(u.engine.begin(),
                                                u.engine.end());
      CHECK(engine.at("recovered_blocks") == std::to_string(arena_durable % 6));
      CHECK(std::stoull(engine.at("log_bytes")) > 0);
    }
    CHECK_FALSE(fs::exists(dir + "/arena.log"));
    CheckAged(dir);
    for (Table t : {Table::kAccount, Table::kStorage}) {
      CHECK(Bytes(arena::ArenaPath(dir + "/arena", t)) ==
            Bytes(arena::ArenaPath(tmp / "fresh/arena", t)));
    }
    CHECK_FALSE(fs::exists(dir + "/arena.merge"));
    CHECK_FALSE(fs::exists(dir + "/arena.aging"));
  }
}

TEST_CASE(
    "RocksDB ages from a node's shape with the production write options; "
    "LMDB says when its leaf fill settled") {
  const std::vector<std::string> stores = WritableStores();
  const bool rocks =
      std::find(stores.begin(), stores.end(), "rocksdb") != stores.end();
  const bool lmdb =
      std::find(stores.begin(), stores.end(), "lmdb") != stores.end();
  if (!rocks && !lmdb) {
    WARN("neither RocksDB nor LMDB in this build: nothing to age");
    return;
  }
  flatbench::testing::TempDir tmp;
  const std::string dir = tmp / "ds";
  std::vector<std::string> these;
  if (rocks) these.push_back("rocksdb");
  if (lmdb) these.push_back("lmdb");
  Gen(dir, Fresh(), these);
  if (rocks) {
    // The bulk load is one run in the last level.
    auto ds = Dataset::Open(dir);
    REQUIRE(ds.ok());
    const auto backend =
        backends::Open("rocksdb", ds->BackendDir("rocksdb"), {});
    REQUIRE(backend.ok());
    bool last_level_only = true;
    for (const auto& [k, v] : backend.value()->OpenShape()) {
      if (k.ends_with(".levels")) last_level_only &= v.rfind("L6:", 0) == 0;
    }
    CHECK(last_level_only);
  }
  // 70 blocks of 300 changes take the storage table's leaf fill through its
  // trough (from 100% to about 55%) and back within 5 points of 68% (at
  // block 49; 68.9% at block 70).
  auto aged = Age(AgeTo(dir, 70), backends::NewWriter);
  INFO(aged.status().message());
  REQUIRE(aged.ok());
  for (const Upkeep& u : aged.value()) {
    INFO(u.store);
    std::map<std::string, std::string> engine(u.engine.begin(), u.engine.end());
    if (u.store == "lmdb") {
      CHECK(u.steady_at > 0);
      CHECK(u.steady_at <= 70);
      CHECK(u.steady_what.find("storage leaf fill") != std::string::npos);
      const double fill = std::stod(engine.at("storage.leaf_fill"));
      CHECK(fill > 0.63);
      CHECK(fill < 0.73);
    }
    if (u.store == "rocksdb") {
      // Relevelled through the write path: nothing left in L6, and its
      // compactions have far to go before they write the store's size.
      CHECK(engine.at("relevelled") == "true");
      CHECK(engine.at("account.levels").find("L6:") == std::string::npos);
      CHECK(engine.at("storage.levels").find("L6:") == std::string::npos);
      CHECK(u.steady_at == 0);
    }
  }
  if (rocks) {
    // The store's own OPTIONS file holds the production write options.
    std::string options;
    for (const auto& e : fs::directory_iterator(dir + "/rocksdb")) {
      if (e.path().filename().string().rfind("OPTIONS-", 0) == 0) {
        options = Bytes(e.path().string());
      }
    }
    REQUIRE_FALSE(options.empty());
    for (const char* want :
         {"write_buffer_size=16000000", "write_buffer_size=32000000",
          "max_write_buffer_number=4", "min_write_buffer_number_to_merge=2",
          "max_bytes_for_level_base=128000000",
          "max_bytes_for_level_multiplier=15", "target_file_size_base=32000000",
          "target_file_size_base=64000000", "target_file_size_multiplier=3",
          "level_compaction_dynamic_level_bytes=false", "manual_wal_flush=true",
          "max_write_batch_group_size_bytes=4000000"}) {
      CHECK(options.find(want) != std::string::npos);
    }
    // No family keeps a time-driven compaction.
    CHECK(options.find("ttl=2592000") == std::string::npos);
    CHECK(options.find("periodic_compaction_seconds=0") != std::string::npos);
    CHECK_FALSE(fs::exists(dir + "/rocksdb.relevel"));
  }
  for (const std::string& s : these) age_check::CheckAged(dir, s, 70);
}

TEST_CASE("age --delta-tail leaves the last blocks in the arena's log") {
  flatbench::testing::TempDir tmp;
  const std::string dir = tmp / "ds";
  Gen(dir, Fresh(), {"arena"});
  AgeOptions o = AgeTo(dir, 20);
  o.log_tail = 5;
  auto aged = Age(o, backends::NewWriter);
  INFO(aged.status().message());
  REQUIRE(aged.ok());
  // Blocks 15..19, which the base holds too.
  uint64_t first = 0, count = 0;
  auto log =
      arena::ReadLog(arena::LogPath(dir + "/arena"), [&](uint64_t block, auto) {
        if (count++ == 0) first = block;
        return true;
      });
  REQUIRE(log.ok());
  CHECK(log->base == 15);
  CHECK(log->records == 5);
  CHECK(first == 15);
  CHECK_FALSE(log->torn);
  // Read through it, the store holds the aged state.
  age_check::CheckAged(dir, "arena", 20);
  auto live = arena::DeltaBackend::Open(dir + "/arena", {});
  REQUIRE(live.ok());
  CHECK(live.value()->blocks() == 5);
  CHECK(live.value()->delta().size() > 0);
  auto base = backends::Open("arena", dir + "/arena", {});
  REQUIRE(base.ok());
  for (Table t : {Table::kAccount, Table::kStorage}) {
    CHECK(live.value()->CountPairs(t).value() ==
          base.value()->CountPairs(t).value());
  }
  // The registry opens it by name.
  auto ds = Dataset::Open(dir);
  REQUIRE(ds.ok());
  auto checked = backends::Open("arena+delta", dir + "/arena", {});
  INFO(checked.status().message());
  REQUIRE(checked.ok());
  CHECK(checked.value()->Name() == "arena+delta");
}
