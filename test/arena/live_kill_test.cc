// A live store killed at any point leaves a store that opens and, with the
// blocks after its last checkpoint applied again, holds the generator's
// state: stopped at each step of a merge (the process ends there, as a
// kill -9 would end it), and killed by SIGKILL while blocks and merges run.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "arena/block_log.h"
#include "arena/delta_backend.h"
#include "arena/live_store.h"
#include "common/files.h"
#include "test/arena/live_util.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

namespace fs = std::filesystem;
using testing::BlockChanges;

constexpr uint64_t kKillBlocks = 24;
constexpr uint64_t kKillMergeEvery = 4;

struct Stores {
  testing::TempDir tmp;
  std::string base = tmp / "base";
  std::vector<BlockChanges> blocks;
  Stores() {
    testing::BuildState(base, testing::LiveSpec(0));
    blocks = testing::StreamBlocks(testing::LiveSpec(0), kKillBlocks);
    testing::BuildState(tmp / "want", testing::LiveSpec(kKillBlocks));
  }
  // A copy of the base to age.
  std::string Copy(const std::string& name) const {
    const std::string dir = tmp / name;
    fs::copy(base, dir, fs::copy_options::recursive);
    return dir;
  }
  std::string Durable(const std::string& dir) const { return dir + ".durable"; }
};

WriterOptions Writer(uint64_t from) {
  WriterOptions w;
  w.merge_every = kKillMergeEvery;
  w.from_block = from;
  return w;
}

// The child's life: every block applied and checkpointed, the durable
// count written after each checkpoint, as age records it.
[[noreturn]] void AgeInChild(const Stores& s, const std::string& dir,
                             std::function<void(LivePoint)> hook) {
  auto store = LiveStore::Open(dir, {}, testing::LiveBuildOptions(), Writer(0));
  if (!store.ok()) std::_Exit(2);
  store.value()->SetPointHookForTesting(std::move(hook));
  for (uint64_t b = 0; b < kKillBlocks; ++b) {
    if (!store.value()->ApplyBlock(s.blocks[b].changes).ok()) std::_Exit(3);
    auto durable = store.value()->Checkpoint();
    if (!durable.ok()) std::_Exit(4);
    if (!WriteFileAtomic(s.Durable(dir), std::to_string(durable.value()))
             .ok()) {
      std::_Exit(5);
    }
  }
  std::_Exit(store.value()->Finish().ok() ? 0 : 6);
}

uint64_t DurableOf(const std::string& path) {
  auto text = ReadSmallFile(path);
  return text.ok() ? std::stoull(text.value()) : 0;
}

// Reopens the killed store from its last checkpoint, applies the rest,
// and checks it against the generator's state.
void RecoverAndCheck(const Stores& s, const std::string& dir) {
  // A read-only reader opens it as the kill left it, frozen segment and
  // all.
  auto reader = DeltaBackend::Open(dir, {});
  INFO(reader.status().message());
  REQUIRE(reader.ok());
  reader.value().reset();
  const uint64_t from = DurableOf(s.Durable(dir));
  CAPTURE(from);
  auto store =
      LiveStore::Open(dir, {}, testing::LiveBuildOptions(), Writer(from));
  INFO(store.status().message());
  REQUIRE(store.ok());
  CHECK_FALSE(fs::exists(FrozenLogPath(dir)));
  for (uint64_t b = from; b < kKillBlocks; ++b) {
    REQUIRE(store.value()->ApplyBlock(s.blocks[b].changes).ok());
  }
  REQUIRE(store.value()->Finish().ok());
  auto want = ArenaBackend::Open(s.tmp / "want", {});
  REQUIRE(want.ok());
  testing::CheckSameState(*store.value(), *want.value());
  auto check = store.value()->CheckIntegrity();
  INFO(check.status().message());
  CHECK(check.ok());
  // Reopened afresh, the files alone are that state.
  store.value().reset();
  auto base = ArenaBackend::Open(dir, {});
  REQUIRE(base.ok());
  testing::CheckSameState(*base.value(), *want.value());
}

int WaitChild(pid_t pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

TEST_CASE("a live store stopped at any step of a merge recovers", "[live]") {
  Stores s;
  const LivePoint points[] = {LivePoint::kFrozen, LivePoint::kBaseExchanged,
                              LivePoint::kVersionPublished,
                              LivePoint::kFrozenDropped};
  int n = 0;
  for (LivePoint point : points) {
    // The first merge, and one with merged blocks in the base already.
    for (int nth : {1, 3}) {
      CAPTURE(static_cast<int>(point), nth);
      const std::string dir = s.Copy("at" + std::to_string(n++));
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        int seen = 0;
        AgeInChild(s, dir, [&seen, point, nth](LivePoint p) {
          if (p == point && ++seen == nth) std::_Exit(42);
        });
      }
      const int status = WaitChild(pid);
      REQUIRE(WIFEXITED(status));
      REQUIRE(WEXITSTATUS(status) == 42);
      if (point == LivePoint::kFrozen && nth == 1) {
        // As a kill between the frozen segment's rename and the new log's
        // start leaves it: no DIR.log (the new one held no block yet).
        REQUIRE(fs::exists(FrozenLogPath(dir)));
        fs::remove(LogPath(dir));
      }
      RecoverAndCheck(s, dir);
    }
  }
}

TEST_CASE("a live store killed while it writes and merges recovers", "[live]") {
  Stores s;
  for (uint64_t at : {2u, 7u, 13u, 21u}) {
    CAPTURE(at);
    const std::string dir = s.Copy("kill" + std::to_string(at));
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) AgeInChild(s, dir, nullptr);
    // Killed once `at` blocks are durable: anywhere in the blocks and
    // merges after them.
    while (DurableOf(s.Durable(dir)) < at) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        FAIL("the child ended before block " << at);
      }
      ::usleep(200);
    }
    REQUIRE(::kill(pid, SIGKILL) == 0);
    WaitChild(pid);
    RecoverAndCheck(s, dir);
  }
}

}  // namespace
}  // namespace flatbench::arena
