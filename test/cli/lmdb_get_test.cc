// get --backend lmdb on a damaged data.mdb: exit 65 naming the file or the
// right answer, never a signal, never a wrong answer outside the bytes LMDB
// cannot check (the sought pair's own key and value: it keeps no checksums).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/hex.h"
#include "common/rng.h"
#include "datagen/keys.h"
#include "test/cli/file_bytes.h"
#include "test/run_command.h"

using flatbench::testing::Lines;
using flatbench::testing::ReadAll;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
namespace dg = flatbench::datagen;

using flatbench::testing::kPage;
using flatbench::testing::Load;
using flatbench::testing::PutByte;

namespace {

constexpr uint16_t kBranchPage = 0x01;  // LMDB's P_BRANCH

// One lookup and what the undamaged file answers for it.
struct Probe {
  std::string table;
  std::string key;    // Raw bytes.
  std::string value;  // Raw bytes; empty for a key that is absent.
  // The sought pair's key and value bytes in data.mdb (an LMDB leaf node
  // holds them back to back): a flip there is invisible without checksums.
  uint64_t pair_begin = 0;
  uint64_t pair_end = 0;
};

Probe MakeProbe(const std::string& file, const std::string& table,
                const std::string& key, const std::string& value) {
  Probe p{table, key, value};
  if (!value.empty()) {
    const std::string pair = key + value;
    const size_t at = file.find(pair);
    REQUIRE(at != std::string::npos);
    REQUIRE(file.find(pair, at + 1) == std::string::npos);
    p.pair_begin = at;
    p.pair_end = at + pair.size();
  }
  return p;
}

// Bytes in which `a` and `b`, of equal size, differ.
int Differing(const std::string& a, const std::string& b) {
  int n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

// The outcome of one get on a damaged file (byte `flipped` changed),
// checked against the truth. Returns the exit code. What no check of
// LMDB's pages can see (it keeps no checksums) is allowed, and only that: a
// changed byte of the sought pair's own key (exit 1) or value (that byte
// differs), and a changed lowest bit of its node's data size, which LMDB's
// rounding of nodes to an even size hides (the value one byte short, or
// one byte of padding long).
int CheckGet(const std::string& dir, const Probe& p, uint64_t flipped) {
  const std::string key_hex = flatbench::ToHex(p.key);
  auto r = RunFlatbench("get --dir " + dir + " --backend lmdb --table " +
                        p.table + " --key " + key_hex);
  CAPTURE(p.table, key_hex, flipped, r.exit_code, r.out, r.err);
  // Never a signal, never an undocumented exit.
  REQUIRE((r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 65));
  const bool hit = !p.value.empty();
  const bool in_key =
      hit && flipped >= p.pair_begin && flipped < p.pair_begin + p.key.size();
  const bool in_value =
      hit && flipped >= p.pair_begin + p.key.size() && flipped < p.pair_end;
  const bool in_size_low = hit && flipped == p.pair_begin - 8;
  if (r.exit_code == 65) {
    CHECK(Lines(r.err) == 1);
    CHECK(r.err.find(dir + "/lmdb/data.mdb") != std::string::npos);
    CHECK(r.out.empty());
    return 65;
  }
  if (r.exit_code == 1) {
    CHECK((!hit || in_key));
    return 1;
  }
  CHECK(hit);
  std::string value;
  REQUIRE(flatbench::FromHex(r.out.substr(0, r.out.size() - 1), &value));
  if (in_value) {
    CHECK(value.size() == p.value.size());
    CHECK(Differing(value, p.value) <= 1);
  } else if (in_size_low && value.size() + 1 == p.value.size()) {
    CHECK(p.value.substr(0, value.size()) == value);
  } else if (in_size_low && value.size() == p.value.size() + 1) {
    CHECK(value.substr(0, p.value.size()) == p.value);
  } else {
    CHECK(value == p.value);
  }
  return 0;
}

constexpr uint64_t kNone = ~0ULL;

// The main database's root page, from the newer meta page (LMDB's MDB_meta
// after the 16-byte page header: its main MDB_db record at 88, whose root
// is at 40; the transaction id at 144).
uint64_t MainRoot(const std::string& file) {
  const uint64_t meta =
      Load<uint64_t>(file, kPage + 144) > Load<uint64_t>(file, 144) ? kPage : 0;
  return Load<uint64_t>(file, meta + 88 + 40);
}

// The branch page with a node pointing at page `child`, or kNone.
uint64_t ParentOf(const std::string& file, uint64_t child) {
  for (uint64_t pg = 2; pg < file.size() / kPage; ++pg) {
    const uint64_t base = pg * kPage;
    if (Load<uint16_t>(file, base + 10) != kBranchPage) continue;
    const uint16_t lower = Load<uint16_t>(file, base + 12);
    for (uint64_t i = 16; i < lower; i += 2) {
      const uint64_t node = base + Load<uint16_t>(file, base + i);
      const uint64_t pgno = Load<uint16_t>(file, node) |
                            uint64_t{Load<uint16_t>(file, node + 2)} << 16 |
                            uint64_t{Load<uint16_t>(file, node + 4)} << 32;
      if (pgno == child) return pg;
    }
  }
  return kNone;
}

// An account key whose node a flip of byte 595 of page 52 (xor 0x3f) of
// the tiny dataset's data.mdb damages: the node then claims a value of
// about 1 GB, far past the end of the file.
constexpr char kOverrunKeyHex[] = "2d0c0f60c43cbef1661cd97d678006c2c498929e";
constexpr uint64_t kOverrunByte = 52 * kPage + 595;

// A tiny dataset of LMDB alone, and its undamaged data.mdb.
struct DamagedMdb {
  std::string dir;
  std::string mdb;
  std::string original;

  // Flips byte `at` with `mask`, checks get of `p` (CheckGet), restores
  // the byte; returns get's exit code.
  int Flip(const Probe& p, uint64_t at, char mask) const {
    PutByte(mdb, at, static_cast<char>(original[at] ^ mask));
    const int code = CheckGet(dir, p, at);
    PutByte(mdb, at, original[at]);
    return code;
  }
};

DamagedMdb GenTinyLmdb(const TempDir& tmp) {
  DamagedMdb d;
  d.dir = tmp / "ds";
  REQUIRE(
      RunFlatbench("gen --scale tiny --quiet --backends lmdb --dir " + d.dir)
          .exit_code == 0);
  d.mdb = d.dir + "/lmdb/data.mdb";
  d.original = ReadAll(d.mdb);
  return d;
}

// A hit in each table, a miss (tiny: 10,000 accounts, 5 slots each), and
// kOverrunKeyHex, each answered truly by the undamaged file.
std::vector<Probe> LmdbProbes(const DamagedMdb& d) {
  const std::string& original = d.original;
  const auto account = dg::MakeAccountKey(4321);
  std::vector<Probe> probes = {
      MakeProbe(original, "account", std::string(dg::View(account)),
                std::string(
                    dg::MakeAccountValue(flatbench::dataset::kDefaultSeed, 4321)
                        .view())),
      MakeProbe(original, "storage",
                std::string(dg::View(dg::MakeStorageKey(account, 4321, 2))),
                std::string(dg::View(dg::MakeSlotValue(
                    flatbench::dataset::kDefaultSeed, 4321, 2)))),
      MakeProbe(original, "account",
                std::string(dg::View(dg::MakeAccountKey(10'000 + 7))), ""),
  };
  {
    const std::string hex = kOverrunKeyHex;
    auto r =
        RunFlatbench("get --dir " + d.dir + " --backend lmdb --key " + hex);
    REQUIRE(r.exit_code == 0);
    std::string key, value;
    REQUIRE(flatbench::FromHex(hex, &key));
    REQUIRE(flatbench::FromHex(r.out.substr(0, r.out.size() - 1), &value));
    probes.push_back(MakeProbe(original, "account", key, value));
  }
  for (const Probe& p : probes) {
    REQUIRE(CheckGet(d.dir, p, ~0ULL) == (p.value.empty() ? 1 : 0));
  }
  return probes;
}

// kOverrunByte flipped. Then each byte of the sought nodes' headers (data
// size, flags, key size), which LMDB trusts: exit 65, but for a data size
// that stays inside the node's padding.
void CheckNodeHeaderFlips(const DamagedMdb& d,
                          const std::vector<Probe>& probes) {
  CHECK(d.Flip(probes[3], kOverrunByte, 0x3f) == 65);
  for (size_t i : {0, 1, 3}) {
    const Probe& p = probes[i];
    const size_t node = 8 + p.key.size() + p.value.size();
    const size_t resized = node - p.value.size() + (p.value.size() ^ 0x3f);
    const bool hidden = (node + 1) / 2 == (resized + 1) / 2;
    for (uint64_t at = p.pair_begin - 8; at < p.pair_begin; ++at) {
      CHECK(d.Flip(p, at, 0x3f) == (at == p.pair_begin - 8 && hidden ? 0 : 65));
    }
  }
}

// Pages a lookup follows: both meta pages, the main database's root, and
// each hit's leaf with its branch pages up to its tree's root (found by
// their child pointers).
std::vector<uint64_t> LookupPathPages(const std::string& original,
                                      const std::vector<Probe>& probes) {
  std::vector<uint64_t> targets = {0, 1, MainRoot(original)};
  for (size_t i : {0, 1}) {
    for (uint64_t pg = probes[i].pair_begin / kPage; pg != kNone;
         pg = ParentOf(original, pg)) {
      targets.push_back(pg);
    }
  }
  const size_t path_pages = targets.size();
  CAPTURE(path_pages);
  REQUIRE(path_pages >= 7);  // Tiny's trees have branch pages.
  return targets;
}

// A seeded sample of single-byte flips in each of `targets`: the page
// header and node offsets, and anywhere in the page. Each probe looks at
// every page: the miss and the other table's probe see foreign pages only
// through damage. Both kinds of answer must be exercised.
void CheckSampledFlips(const DamagedMdb& d, const std::vector<Probe>& probes,
                       const std::vector<uint64_t>& targets,
                       flatbench::SplitMix64& rng) {
  int outcomes[3] = {0, 0, 0};  // exit 0, 1, 65
  for (uint64_t pg : targets) {
    for (int n = 0; n < 16; ++n) {
      const uint64_t at =
          pg * kPage + (n < 6 ? rng.Below(64) : rng.Below(kPage));
      const char mask = static_cast<char>(1 + rng.Below(255));
      const int code = d.Flip(probes[rng.Below(probes.size())], at, mask);
      ++outcomes[code == 0 ? 0 : code == 1 ? 1 : 2];
    }
  }
  CAPTURE(outcomes[0], outcomes[1], outcomes[2]);
  CHECK(outcomes[2] > 0);
  CHECK(outcomes[0] > 0);
}

}  // namespace

TEST_CASE("get on a damaged data.mdb is exit 65 or the truth, never a signal",
          "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  const DamagedMdb d = GenTinyLmdb(tmp);
  const uint64_t pages = d.original.size() / kPage;
  REQUIRE(pages > 100);
  const std::vector<Probe> probes = LmdbProbes(d);
  CheckNodeHeaderFlips(d, probes);
  // The pages on the lookups' paths, then a few pages anywhere.
  std::vector<uint64_t> targets = LookupPathPages(d.original, probes);
  flatbench::SplitMix64 rng(20260);
  for (int i = 0; i < 4; ++i) targets.push_back(2 + rng.Below(pages - 2));
  CheckSampledFlips(d, probes, targets, rng);
  REQUIRE(ReadAll(d.mdb) == d.original);
}

TEST_CASE("get --no-verify on a damaged data.mdb: LMDB's fault is exit 65",
          "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  const std::string dir = tmp / "ds";
  REQUIRE(RunFlatbench("gen --scale tiny --quiet --backends lmdb --dir " + dir)
              .exit_code == 0);
  const std::string mdb = dir + "/lmdb/data.mdb";
  const std::string original = ReadAll(mdb);
  // kOverrunKeyHex's node then claims a value far past the end of the
  // file. Without the page walk, LMDB hands it out and reading it faults,
  // in get's child.
  const std::string key = kOverrunKeyHex;
  PutByte(mdb, kOverrunByte, static_cast<char>(original[kOverrunByte] ^ 0x3f));
  auto r = RunFlatbench("get --no-verify --dir " + dir +
                        " --backend lmdb --key " + key);
  INFO(r.err);
  CHECK(r.exit_code == 65);
  CHECK(Lines(r.err) == 1);
  CHECK(r.err.find(mdb + ": reading it for account key " + key +
                   " killed the lookup (killed by signal") !=
        std::string::npos);
  // The page walk names the page instead.
  r = RunFlatbench("get --dir " + dir + " --backend lmdb --key " + key);
  CHECK(r.exit_code == 65);
  CHECK(Lines(r.err) == 1);
  CHECK(r.err.find(mdb + ": page 52 (a leaf on the lookup's path)") !=
        std::string::npos);
}
