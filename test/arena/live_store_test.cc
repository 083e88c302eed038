// The live store under readers: four threads check every answer against the
// generator's stream while one writer applies blocks and merges publish new
// bases in the background. A Get that began after ApplyBlock(b) returned
// must answer as some state from block b on, up to the block being applied
// when it ended.
#include "arena/live_store.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <thread>

#include "test/arena/live_util.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

using testing::BlockChanges;

constexpr uint64_t kBlocks = 40;
constexpr uint64_t kMergeEvery = 5;
constexpr int kReaders = 4;

// Each sampled key's value after any number of blocks.
class KeyHistory {
 public:
  struct Key {
    Table table;
    std::string bytes;
  };

  // Every key the blocks touch, and some keys they do not (held or not by
  // the base), with their values in `base`.
  KeyHistory(Backend& base, const std::vector<BlockChanges>& blocks) {
    std::map<std::pair<int, std::string>, size_t> index;
    auto add = [&](Table t, const std::string& k) {
      auto [it, fresh] = index.emplace(std::make_pair(int(t), k), keys_.size());
      if (fresh) keys_.push_back({t, k});
      return it->second;
    };
    for (const BlockChanges& b : blocks) {
      for (const KeyChange& c : b.changes) add(c.table, std::string(c.key));
    }
    testing::Rng rng(5);
    for (Table t : {Table::kAccount, Table::kStorage}) {
      auto scan = base.OpenScan(t);
      REQUIRE(scan.ok());
      bool valid = true;
      std::string_view k, v;
      for (int i = 0; scan.value()->Next(&valid, &k, &v).ok() && valid; ++i) {
        if (i % 7 == 0) add(t, std::string(k));
      }
      for (int i = 0; i < 100; ++i) add(t, rng.Bytes(KeySize(t)));
    }
    history_.resize(keys_.size());
    auto session = base.NewSession();
    REQUIRE(session.ok());
    for (size_t i = 0; i < keys_.size(); ++i) {
      bool found = false;
      std::string_view v;
      REQUIRE(session.value()
                  ->Get(keys_[i].table, keys_[i].bytes, &found, &v)
                  .ok());
      history_[i].push_back(
          {0, found ? std::optional<std::string>(v) : std::nullopt});
    }
    for (uint64_t b = 0; b < blocks.size(); ++b) {
      for (const KeyChange& c : blocks[b].changes) {
        const size_t i = index.at({int(c.table), std::string(c.key)});
        history_[i].push_back(
            {b + 1,
             c.erase ? std::nullopt : std::optional<std::string>(c.value)});
      }
    }
  }

  size_t size() const { return keys_.size(); }
  const Key& key(size_t i) const { return keys_[i]; }

  // Whether (found, value) is key i's state after some n in [lo, hi]
  // blocks.
  bool Allowed(size_t i, uint64_t lo, uint64_t hi, bool found,
               std::string_view value) const {
    const auto& h = history_[i];
    for (size_t j = 0; j < h.size(); ++j) {
      // Version j holds from h[j].first blocks up to the next version's.
      const uint64_t from = h[j].first;
      const uint64_t until = j + 1 < h.size() ? h[j + 1].first : UINT64_MAX;
      if (until <= lo || from > hi) continue;
      if (h[j].second.has_value() == found &&
          (!found || *h[j].second == value)) {
        return true;
      }
    }
    return false;
  }

 private:
  std::vector<Key> keys_;
  // Per key, (blocks applied, value or erased), ascending.
  std::vector<std::vector<std::pair<uint64_t, std::optional<std::string>>>>
      history_;
};

// Reads sampled keys until `done`, each checked against the blocks applied
// before and after it; returns the checks made, and the first failures.
struct ReaderResult {
  uint64_t checks = 0;
  std::vector<std::string> failures;
};

ReaderResult ReadAndCheck(ReadSession& session, const KeyHistory& history,
                          const std::atomic<uint64_t>& applied,
                          const std::atomic<bool>& done, uint64_t seed) {
  ReaderResult r;
  testing::Rng rng(seed);
  while (!done.load(std::memory_order_acquire)) {
    const size_t i = rng.Below(history.size());
    const uint64_t lo = applied.load(std::memory_order_acquire);
    bool found = false;
    std::string_view value;
    const Status st =
        session.Get(history.key(i).table, history.key(i).bytes, &found, &value);
    const uint64_t hi = applied.load(std::memory_order_acquire);
    ++r.checks;
    // The block after `hi` may be in progress, and visible in part.
    if (!st.ok() ||
        !history.Allowed(i, lo, std::min(hi + 1, kBlocks), found, value)) {
      if (r.failures.size() < 5) {
        r.failures.push_back(
            "key " + std::to_string(i) + " between blocks " +
            std::to_string(lo) + " and " + std::to_string(hi) + ": " +
            (st.ok() ? (found ? "a wrong value" : "absent") : st.message()));
      }
    }
  }
  return r;
}

struct Fixture {
  testing::TempDir tmp;
  std::string dir = tmp / "store";
  dataset::Spec spec = testing::LiveSpec(0);
  std::vector<BlockChanges> blocks;
  std::unique_ptr<KeyHistory> history;

  Fixture() {
    testing::BuildState(dir, spec);
    blocks = testing::StreamBlocks(spec, kBlocks);
    auto base = ArenaBackend::Open(dir, {});
    REQUIRE(base.ok());
    history = std::make_unique<KeyHistory>(*base.value(), blocks);
  }

  std::unique_ptr<LiveStore> Open() {
    WriterOptions w;
    w.merge_every = kMergeEvery;
    auto store = LiveStore::Open(dir, {}, testing::LiveBuildOptions(), w);
    INFO(store.status().message());
    REQUIRE(store.ok());
    return std::move(store).value();
  }
};

TEST_CASE("readers see every applied block while merges publish new bases",
          "[live][threads]") {
  Fixture f;
  auto store = f.Open();
  std::atomic<uint64_t> applied{0};
  std::atomic<bool> done{false};
  std::vector<ReaderResult> results(kReaders);
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    auto session = store->NewSession();
    REQUIRE(session.ok());
    readers.emplace_back([&, r, s = std::move(session).value()]() mutable {
      results[r] = ReadAndCheck(*s, *f.history, applied, done, 100 + r);
    });
  }
  Status written = Status::Ok();
  for (uint64_t b = 0; b < kBlocks && written.ok(); ++b) {
    written = store->writer().ApplyBlock(f.blocks[b].changes);
    applied.store(b + 1, std::memory_order_release);
    // Time for the readers between blocks, so that they meet every block
    // and every merge.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (written.ok()) written = store->writer().Finish();
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();
  INFO(written.message());
  REQUIRE(written.ok());
  for (int r = 0; r < kReaders; ++r) {
    CAPTURE(r);
    for (const std::string& fail : results[r].failures) FAIL_CHECK(fail);
    CHECK(results[r].checks > kBlocks);
  }
  // Every merge ended and published, in order, each over its own blocks.
  const auto windows = store->MergeWindows();
  REQUIRE(windows.size() == kBlocks / kMergeEvery);
  for (size_t i = 0; i < windows.size(); ++i) {
    CAPTURE(i);
    CHECK(windows[i].ok);
    CHECK(windows[i].first_block == i * kMergeEvery);
    CHECK(windows[i].end_block == (i + 1) * kMergeEvery);
    CHECK(windows[i].end_seconds >= windows[i].start_seconds);
  }
  CHECK(store->merges_done() == windows.size());
  CHECK(store->blocks_applied() == kBlocks);
  // The store, read through it after Finish, is the generator's state.
  const std::string want = f.tmp / "want";
  testing::BuildState(want, testing::LiveSpec(kBlocks));
  auto fresh = ArenaBackend::Open(want, {});
  REQUIRE(fresh.ok());
  testing::CheckSameState(*store, *fresh.value());
}

// The check above can fail: a reader left on the base (a version that
// misses the deltas, as a publish that dropped them would leave it) is
// caught at once.
TEST_CASE("the readers' check catches a stale read", "[live]") {
  Fixture f;
  auto store = f.Open();
  for (uint64_t b = 0; b < 12; ++b) {
    REQUIRE(store->writer().ApplyBlock(f.blocks[b].changes).ok());
  }
  // The first base, as a reader that never moved on would read it.
  testing::TempDir other;
  testing::BuildState(other / "base", f.spec);
  auto base = ArenaBackend::Open(other / "base", {});
  REQUIRE(base.ok());
  auto stale_session = base.value()->NewSession();
  auto live_session = store->NewSession();
  REQUIRE(stale_session.ok());
  REQUIRE(live_session.ok());
  uint64_t caught = 0, live_wrong = 0;
  for (size_t i = 0; i < f.history->size(); ++i) {
    for (auto* s : {stale_session.value().get(), live_session.value().get()}) {
      bool found = false;
      std::string_view v;
      REQUIRE(
          s->Get(f.history->key(i).table, f.history->key(i).bytes, &found, &v)
              .ok());
      if (!f.history->Allowed(i, 12, 12, found, v)) {
        ++(s == live_session.value().get() ? live_wrong : caught);
      }
    }
  }
  CHECK(live_wrong == 0);
  CHECK(caught > 100);
  REQUIRE(store->writer().Finish().ok());
}

}  // namespace
}  // namespace flatbench::arena
