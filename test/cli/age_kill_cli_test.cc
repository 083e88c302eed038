// A kill -9 of `age` between two merges: the arena's unmerged blocks are in
// its log beside the store, the rerun reads them back and says how many,
// and the store ends byte-identical to gen --blocks N. A damaged log is
// refused with 65 naming it, the store left as it was. Run against
// flatbench_test: its hooks (cli/test_hooks.h) make age checkpoint and
// then hold at known blocks, where the test kills it.
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "arena/backend.h"
#include "arena/delta_backend.h"
#include "test/run_command.h"
#include "test/temp_dir.h"
#include "test/wait_until.h"

using flatbench::testing::ReadAll;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
using flatbench::testing::WaitUntil;

namespace {

// The stream age is killed in, with no merge before its end. The hooks:
// a checkpoint after kCheckpointAt blocks, then a hold after kHoldAt, so
// the log holds blocks past the durable count (unless a checkpoint of
// age's own, every second, came between them).
constexpr char kStream[] = " --changes-per-block 40 --merge-every 100000";
constexpr uint64_t kBlocks = 1200;
constexpr uint64_t kCheckpointAt = 300;
constexpr uint64_t kHoldAt = 600;

uint64_t DurableBlocks(const std::string& aging) {
  try {
    return nlohmann::json::parse(ReadAll(aging))
        .at("durable_blocks")
        .get<uint64_t>();
  } catch (...) {
    return 0;  // Not written yet, or being replaced.
  }
}

// A tiny arena dataset in `dir`, aged by `blocks` blocks.
void GenAged(const std::string& dir, uint64_t blocks) {
  auto r = RunFlatbench("gen --scale tiny --backends arena --quiet --dir " +
                        dir + " --changes-per-block 40 --blocks " +
                        std::to_string(blocks));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

// A tiny arena dataset that age was aging towards kBlocks, killed (-9)
// where it holds, before any merge. Made once per process: each section
// edits a copy of it.
struct KilledAge {
  std::string dir;
  uint64_t at = 0;  // Blocks the checkpoint calls durable.
};

const KilledAge& KilledOnce() {
  // Removed at the process's exit, after every section: a leaked one would
  // stay in /dev/shm after each run.
  static TempDir tmp(TempDir::Where::kMemory);
  static const KilledAge killed = [] {
    KilledAge k;
    k.dir = tmp / "ds";
    GenAged(k.dir, 0);
    const std::string err = tmp / "age.err";
    const pid_t pid = flatbench::testing::SpawnFlatbench(
        {"age", "--dir", k.dir, "--blocks", std::to_string(kBlocks), "--quiet",
         "--changes-per-block", "40", "--merge-every", "100000"},
        {"FLATBENCH_TEST_AGE_CHECKPOINT_AT=" + std::to_string(kCheckpointAt),
         "FLATBENCH_TEST_AGE_HOLD_AT=" + std::to_string(kHoldAt)},
        err);
    REQUIRE(pid > 0);
    const std::string held = "age arena: holding after block " +
                             std::to_string(kHoldAt) + " until a stop signal";
    int status = 0;
    bool exited = false;  // Ended without holding: no hook, or an error.
    const bool holding = WaitUntil(
        [&] {
          if (ReadAll(err).find(held) != std::string::npos) return true;
          exited = ::waitpid(pid, &status, WNOHANG) == pid;
          return exited;
        },
        std::chrono::seconds(120));
    if (!exited) {
      REQUIRE(::kill(pid, SIGKILL) == 0);
      REQUIRE(::waitpid(pid, &status, 0) == pid);
    }
    INFO(ReadAll(err));
    REQUIRE_FALSE(exited);
    REQUIRE(holding);
    REQUIRE(WIFSIGNALED(status));
    const std::string aging = k.dir + "/arena.aging";
    k.at = DurableBlocks(aging);
    CAPTURE(k.at);
    REQUIRE(k.at >= kCheckpointAt);
    REQUIRE(k.at <= kHoldAt);
    // No merge ran: every block the record calls durable is in the log.
    REQUIRE(std::filesystem::exists(k.dir + "/arena.log"));
    return k;
  }();
  return killed;
}

}  // namespace

TEST_CASE("age killed between merges recovers its blocks from the log") {
  // In memory: kill -9 leaves what was written, wherever it is; the
  // sections read and compare files, nothing cold.
  TempDir tmp(TempDir::Where::kMemory);
  const KilledAge& killed = KilledOnce();
  const std::string dir = tmp / "ds";
  std::filesystem::copy(killed.dir, dir,
                        std::filesystem::copy_options::recursive);
  const std::string aging = dir + "/arena.aging";
  const uint64_t at = killed.at;
  CAPTURE(at);
  REQUIRE(DurableBlocks(aging) == at);

  SECTION("arena+delta reads the killed store as gen's state of its log") {
    // The base holds no block yet; its log holds the first `at` blocks and
    // any appended after the last checkpoint: every whole record is read.
    auto live = flatbench::arena::DeltaBackend::Open(dir + "/arena", {});
    INFO(live.status().message());
    REQUIRE(live.ok());
    const uint64_t logged = live.value()->blocks();
    CHECK(logged >= at);
    CHECK(logged <= kHoldAt);
    const std::string fresh = tmp / "fresh";
    GenAged(fresh, logged);
    auto want = flatbench::arena::ArenaBackend::Open(fresh + "/arena", {});
    REQUIRE(want.ok());
    auto base = flatbench::arena::ArenaBackend::Open(dir + "/arena", {});
    REQUIRE(base.ok());
    auto live_session = live.value()->NewSession();
    REQUIRE(live_session.ok());
    for (flatbench::Table t :
         {flatbench::Table::kAccount, flatbench::Table::kStorage}) {
      // Gen's state of that many blocks, pair for pair.
      auto a = live.value()->OpenScan(t);
      auto b = want.value()->OpenScan(t);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      uint64_t pairs = 0;
      for (;;) {
        bool va = false, vb = false;
        std::string_view ka, xa, kb, xb;
        REQUIRE(a.value()->Next(&va, &ka, &xa).ok());
        REQUIRE(b.value()->Next(&vb, &kb, &xb).ok());
        REQUIRE(va == vb);
        if (!va) break;
        REQUIRE(ka == kb);
        REQUIRE(xa == xb);
        bool found = false;
        std::string_view v;
        REQUIRE(live_session.value()->Get(t, kb, &found, &v).ok());
        REQUIRE(found);
        REQUIRE(v == xb);
        ++pairs;
      }
      CHECK(live.value()->CountPairs(t).value() == pairs);
      // A key the base holds and the log erased reads as absent.
      auto old = base.value()->OpenScan(t);
      REQUIRE(old.ok());
      auto fresh_session = want.value()->NewSession();
      REQUIRE(fresh_session.ok());
      uint64_t erased = 0;
      for (;;) {
        bool valid = false;
        std::string_view k, v;
        REQUIRE(old.value()->Next(&valid, &k, &v).ok());
        if (!valid) break;
        bool in_fresh = false, in_live = true;
        std::string_view x;
        REQUIRE(fresh_session.value()->Get(t, k, &in_fresh, &x).ok());
        REQUIRE(live_session.value()->Get(t, k, &in_live, &x).ok());
        CHECK(in_live == in_fresh);
        erased += in_fresh ? 0 : 1;
      }
      if (t == flatbench::Table::kStorage) CHECK(erased > 0);
    }
  }
  SECTION("a damaged log is refused, naming it") {
    std::string log = ReadAll(dir + "/arena.log");
    REQUIRE(log.size() > 200);
    log[100] = static_cast<char>(log[100] ^ 0x5a);
    std::ofstream(dir + "/arena.log", std::ios::binary) << log;
    auto r = RunFlatbench("age --dir " + dir + " --blocks " +
                          std::to_string(kBlocks) + " --quiet" + kStream);
    CHECK(r.exit_code == 65);
    CHECK(r.err.find(dir + "/arena.log") != std::string::npos);
    CHECK(std::filesystem::exists(aging));
  }
  SECTION("the rerun recovers the unmerged blocks and ends as gen's") {
    auto r = RunFlatbench("age --dir " + dir + " --blocks " +
                          std::to_string(kBlocks) + kStream);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("age arena: recovered ") != std::string::npos);
    CHECK(r.out.find("arena.recovered_blocks " + std::to_string(at)) !=
          std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir + "/arena.log"));
    const std::string fresh = tmp / "fresh";
    GenAged(fresh, kBlocks);
    for (const char* f : {"account.arena", "storage.arena"}) {
      CHECK(ReadAll(dir + "/arena/" + f) == ReadAll(fresh + "/arena/" + f));
    }
    auto v = RunFlatbench("verify --dir " + dir);
    CHECK(v.exit_code == 0);
  }
}
