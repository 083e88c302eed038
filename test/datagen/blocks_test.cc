// The stream of blocks: checked against a plain map that applies each
// block's changes, over random seeds and shapes.
#include "datagen/blocks.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "common/hex.h"
#include "common/rng.h"
#include "datagen/aged_state.h"
#include "datagen/sampler.h"
#include "datagen/stream.h"
#include "test/datagen/collect_sink.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
using flatbench::testing::CollectSink;

namespace {

using State = std::map<std::string, std::string>;

// The state a GenerateSorted of `spec` emits, per table; also checks that
// each table comes strictly ascending.
void Generated(const Spec& spec, State out[kNumTables], unsigned jobs = 1) {
  CollectSink sink;
  auto d = GenerateSorted(spec, &sink, nullptr, jobs);
  REQUIRE(d.ok());
  for (int t = 0; t < kNumTables; ++t) {
    for (size_t i = 0; i < sink.pairs[t].size(); ++i) {
      if (i > 0) REQUIRE(sink.pairs[t][i - 1].first < sink.pairs[t][i].first);
      out[t].insert(sink.pairs[t][i]);
    }
    REQUIRE(d->pairs[t] == out[t].size());
  }
}

// A random small spec and stream (shares that sum to 1000).
Spec RandomSpec(uint64_t seed) {
  SplitMix64 rng(seed);
  Spec s = MakeSpec("custom", 50 + rng.Below(400),
                    static_cast<uint32_t>(rng.Below(5)), seed * 7 + 1)
               .value();
  StreamSpec& st = s.stream;
  st.seed = seed;
  st.changes_per_block = static_cast<uint32_t>(5 + rng.Below(60));
  uint32_t left = 1000;
  uint32_t* shares[5] = {&st.account_updates, &st.new_accounts,
                         &st.slot_updates, &st.new_slots, &st.slot_deletes};
  for (int i = 0; i < 4; ++i) {
    *shares[i] = static_cast<uint32_t>(rng.Below(left + 1));
    left -= *shares[i];
  }
  *shares[4] = left;
  st.hot_share = rng.Below(2) == 0 ? 0 : static_cast<uint32_t>(rng.Below(1001));
  st.hot_accounts = static_cast<uint32_t>(1 + rng.Below(100));
  st.blocks = 1 + rng.Below(40);
  REQUIRE(ValidateStream(st).ok());
  return s;
}

}  // namespace

TEST_CASE("the aged state is the fresh state with each block applied") {
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    const Spec aged = RandomSpec(seed);
    INFO("spec " << aged.Canonical());
    Spec fresh = aged;
    fresh.stream.blocks = 0;
    State state[kNumTables];
    Generated(fresh, state);

    BlockStream stream(aged);
    Block block;
    for (uint64_t b = 0; b < aged.stream.blocks; ++b) {
      stream.Next(&block);
      REQUIRE(block.number == b);
      std::set<std::string> seen;
      const Touch touch{static_cast<uint32_t>(b), false};
      for (const Change& c : block.changes) {
        const std::string key = KeyBytes(c.id);
        REQUIRE(seen.insert(key).second);  // A key once per block.
        State& table = state[static_cast<int>(c.id.table)];
        const bool created = c.id.table == Table::kAccount
                                 ? c.id.counter >= aged.accounts
                                 : c.id.slot >= kNewSlotBase;
        if (c.erase) {
          REQUIRE(c.id.table == Table::kStorage);  // Accounts stay.
          REQUIRE(table.erase(key) == 1);          // Only a live slot.
          continue;
        }
        // An update of a bulk-loaded key finds it live; a key the stream
        // created is live from its creating block on.
        if (!created) REQUIRE(table.count(key) == 1);
        table[key] = ValueBytes(aged, c.id, &touch);
      }
    }

    State got[kNumTables];
    Generated(aged, got);
    for (int t = 0; t < kNumTables; ++t) {
      REQUIRE(got[t].size() == state[t].size());
      REQUIRE(got[t] == state[t]);
      REQUIRE(LivePairs(aged, static_cast<Table>(t)) == state[t].size());
    }

    // Samplers draw live keys with the values the stream left, and misses
    // that are absent.
    for (Table table : {Table::kAccount, Table::kStorage}) {
      const State& s = state[static_cast<int>(table)];
      if (s.empty() ||
          (table == Table::kStorage && aged.slots_per_account == 0))
        continue;
      Sampler hits(aged, table, KeyKind::kHit, seed);
      for (uint64_t i = 0; i < 200; ++i) {
        const SampledKey k = hits.Draw(i);
        INFO(TableName(table) << " hit " << ToHex(k.key));
        REQUIRE(s.count(k.key) == 1);
        REQUIRE(s.at(k.key) == k.expected_value);
      }
      Sampler misses(aged, table, KeyKind::kMissAbsent, seed);
      for (uint64_t i = 0; i < 200; ++i) {
        REQUIRE(s.count(misses.Draw(i).key) == 0);
      }
      if (table == Table::kStorage) {
        Sampler live(aged, table, KeyKind::kMissLiveAccount, seed);
        for (uint64_t i = 0; i < 200; ++i) {
          REQUIRE(s.count(live.Draw(i).key) == 0);
        }
      }
    }
  }
}

TEST_CASE("the aged stream is the same with any number of jobs") {
  Spec s = MakeSpec("custom", 3000, 3, 5).value();
  s.stream.blocks = 12;
  s.stream.changes_per_block = 300;
  CollectSink one, three;
  auto a = GenerateSorted(s, &one, nullptr, 1);
  auto b = GenerateSorted(s, &three, nullptr, 3);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->fingerprint == b->fingerprint);
  CHECK(one.pairs[0] == three.pairs[0]);
  CHECK(one.pairs[1] == three.pairs[1]);
}

TEST_CASE("a spec without blocks keeps its canonical text and fingerprint") {
  Spec s = MakeSpec("tiny", 0, 0, kDefaultSeed).value();
  CHECK(s.Canonical() ==
        "flatbench-dataset v1 accounts=10000 "
        "slots_per_account=5 seed=" +
            std::to_string(kDefaultSeed));
  Spec aged = s;
  aged.stream.blocks = 3;
  CHECK(aged.Canonical() != s.Canonical());
  CHECK_FALSE(aged == s);
  Spec other = aged;
  other.stream.seed += 1;
  CHECK_FALSE(other.stream.SameStream(aged.stream));
  CHECK(AgedStateOf(s) == nullptr);
}

TEST_CASE("stream parameters are checked") {
  StreamSpec s;
  CHECK(ValidateStream(s).ok());
  s.new_slots += 1;
  Status st = ValidateStream(s);
  CHECK(st.code() == Code::kUsage);
  CHECK_THAT(st.message(), Catch::Contains("1001"));
  s = StreamSpec();
  s.changes_per_block = 0;
  CHECK(ValidateStream(s).code() == Code::kUsage);
  s = StreamSpec();
  s.hot_accounts = 0;
  CHECK_THAT(ValidateStream(s).message(), Catch::Contains("--hot-accounts"));
}

TEST_CASE("a uniform stream spreads its changes over the keys") {
  // 10% of a 20k x 4 dataset's keys: about as many distinct keys changed
  // as changes drawn, new keys at their shares.
  Spec s = MakeSpec("custom", 20'000, 4, 9).value();
  s.stream.blocks = 50;
  s.stream.changes_per_block = 200;
  BlockStream stream(s);
  stream.SkipTo(s.stream.blocks);
  const uint64_t drawn = 50 * 200;
  CHECK(stream.skipped() == 0);
  CHECK(stream.touched().size() > drawn * 95 / 100);
  CHECK(stream.new_accounts() > drawn * 10 / 1000);
  CHECK(stream.new_accounts() < drawn * 30 / 1000);
  CHECK(stream.new_slot_counters().size() > drawn * 200 / 1000);
  CHECK(stream.new_slot_counters().size() < drawn * 260 / 1000);
}
