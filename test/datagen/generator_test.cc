#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "common/hex.h"
#include "datagen/sampler.h"
#include "datagen/stream.h"
#include "test/datagen/collect_sink.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
using flatbench::testing::CollectSink;

namespace {

Spec Tiny(uint64_t seed = kDefaultSeed) {
  return MakeSpec("tiny", 0, 0, seed).value();
}

}  // namespace

TEST_CASE("tiny stream: exact counts, strictly ascending, right widths") {
  CollectSink sink;
  auto d = GenerateSorted(Tiny(), &sink);
  REQUIRE(d.ok());
  REQUIRE(sink.pairs[0].size() == 10'000);
  REQUIRE(sink.pairs[1].size() == 50'000);
  CHECK(d->pairs[0] == 10'000);
  CHECK(d->pairs[1] == 50'000);
  for (int t = 0; t < kNumTables; ++t) {
    const auto& v = sink.pairs[t];
    for (size_t i = 0; i < v.size(); ++i) {
      REQUIRE(v[i].first.size() == KeySize(static_cast<Table>(t)));
      if (i > 0) REQUIRE(v[i - 1].first < v[i].first);
    }
  }
  for (const auto& [k, v] : sink.pairs[0]) {
    REQUIRE(v.size() >= 70);
    REQUIRE(v.size() <= 90);
    REQUIRE(static_cast<uint8_t>(v[0]) == 0xf8);  // RLP long list
    REQUIRE(static_cast<size_t>(static_cast<uint8_t>(v[1])) == v.size() - 2);
  }
  for (const auto& [k, v] : sink.pairs[1]) {
    REQUIRE(v.size() == 32);
    REQUIRE(v[0] != 0);
  }
}

TEST_CASE("the stream is complete: every counter and slot appears once") {
  CollectSink sink;
  Spec spec = Tiny();
  REQUIRE(GenerateSorted(spec, &sink).ok());
  std::set<std::string> accounts, slots;
  for (const auto& p : sink.pairs[0]) accounts.insert(p.first);
  for (const auto& p : sink.pairs[1]) slots.insert(p.first);
  for (uint64_t c = 0; c < spec.accounts; ++c) {
    AccountKey ak = MakeAccountKey(c);
    REQUIRE(accounts.count(std::string(View(ak))) == 1);
    for (uint64_t s = 0; s < spec.slots_per_account; ++s) {
      REQUIRE(slots.count(std::string(View(MakeStorageKey(ak, c, s)))) == 1);
    }
  }
}

TEST_CASE("generator determinism and seed sensitivity") {
  CollectSink a, b, c;
  auto da = GenerateSorted(Tiny(1), &a);
  auto db = GenerateSorted(Tiny(1), &b);
  auto dc = GenerateSorted(Tiny(2), &c);
  REQUIRE(da.ok());
  REQUIRE(db.ok());
  REQUIRE(dc.ok());
  CHECK(da->fingerprint == db->fingerprint);
  CHECK(a.pairs[0] == b.pairs[0]);
  CHECK(a.pairs[1] == b.pairs[1]);
  CHECK(da->fingerprint != dc->fingerprint);
  CHECK(FingerprintHex(da->fingerprint).size() == 16);
}

TEST_CASE("sampled hits are in the stream with their values; misses are not") {
  CollectSink sink;
  Spec spec = Tiny();
  REQUIRE(GenerateSorted(spec, &sink).ok());
  std::map<std::string, std::string> model[kNumTables];
  for (int t = 0; t < kNumTables; ++t) {
    for (const auto& p : sink.pairs[t]) model[t].insert(p);
  }
  for (Table table : {Table::kAccount, Table::kStorage}) {
    auto& m = model[static_cast<int>(table)];
    Sampler hits(spec, table, KeyKind::kHit, 99);
    REQUIRE(hits.space() == m.size());
    for (uint64_t i = 0; i < 2000; ++i) {
      SampledKey k = hits.Draw(i);
      REQUIRE(k.expect_found);
      auto it = m.find(k.key);
      REQUIRE(it != m.end());
      REQUIRE(it->second == k.expected_value);
      uint8_t raw[52];
      hits.DrawKey(i, raw);
      REQUIRE(std::string(reinterpret_cast<char*>(raw), k.key.size()) == k.key);
    }
    std::vector<KeyKind> misses = {KeyKind::kMissAbsent};
    if (table == Table::kStorage) misses.push_back(KeyKind::kMissLiveAccount);
    for (KeyKind kind : misses) {
      CAPTURE(KeyKindName(kind));
      Sampler s(spec, table, kind, 7);
      for (uint64_t i = 0; i < 2000; ++i) {
        SampledKey k = s.Draw(i);
        REQUIRE_FALSE(k.expect_found);
        REQUIRE(k.key.size() == KeySize(table));
        REQUIRE(m.count(k.key) == 0);
      }
    }
  }
}

TEST_CASE("live-account misses share a live account's storage prefix") {
  Spec spec = Tiny();
  Sampler s(spec, Table::kStorage, KeyKind::kMissLiveAccount, 3);
  std::set<std::string> live_prefixes;
  for (uint64_t c = 0; c < spec.accounts; ++c) {
    AccountKey ak = MakeAccountKey(c);
    live_prefixes.insert(std::string(View(ak)).substr(0, 4) +
                         std::string(View(ak)).substr(4, 16));
  }
  for (uint64_t i = 0; i < 500; ++i) {
    std::string k = s.Draw(i).key;
    REQUIRE(live_prefixes.count(k.substr(0, 4) + k.substr(36, 16)) == 1);
  }
}

TEST_CASE("Permutation is a bijection on [0, n)") {
  for (uint64_t n : {1ULL, 2ULL, 3ULL, 17ULL, 64ULL, 1000ULL, 4097ULL}) {
    CAPTURE(n);
    Permutation p(n, 42);
    std::vector<bool> seen(n, false);
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t x = p(i);
      REQUIRE(x < n);
      REQUIRE_FALSE(seen[x]);
      seen[x] = true;
    }
  }
}

TEST_CASE("MakeSpec rejects bad scales and counts") {
  CHECK(MakeSpec("huge", 0, 0, 1).status().code() == Code::kUsage);
  CHECK(MakeSpec("custom", 0, 4, 1).status().code() == Code::kUsage);
  CHECK(MakeSpec("custom", kMaxAccounts + 1, 4, 1).status().code() ==
        Code::kUsage);
  auto s = MakeSpec("custom", 123, 2, 1);
  REQUIRE(s.ok());
  CHECK(s->storage_slots() == 246);
  CHECK(MakeSpec("medium", 0, 0, 1)->accounts == 10'000'000);
  CHECK(MakeSpec("full", 0, 0, 1)->slots_per_account == 4);
}
