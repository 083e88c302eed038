// ReadSession::Scan returns the same pages from every backend of this
// build (and the arena's read variants) as the generator's own sorted
// stream: from random existing keys, across every shard boundary (the
// arena's shards are first key bytes), from keys that do not exist, and at
// each table's end.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "backends/table.h"
#include "common/hex.h"
#include "common/rng.h"
#include "datagen/dataset_dir.h"
#include "test/baselines/store_test_util.h"
#include "test/datagen/collect_sink.h"
#include "test/skip.h"
#include "test/temp_dir.h"
#include "test/tiny_dataset.h"

using namespace flatbench;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

using flatbench::store_test::Collect;

// The page the model holds: up to `limit` pairs from the first key >= seek.
Pairs Expected(const Pairs& model, const std::string& seek, uint32_t limit) {
  auto it = std::lower_bound(
      model.begin(), model.end(), seek,
      [](const auto& pair, const std::string& k) { return pair.first < k; });
  Pairs out;
  for (; it != model.end() && out.size() < limit; ++it) out.push_back(*it);
  return out;
}

// Seek keys for one table: random existing keys, the last key before and
// the first key of every shard, keys between shards that exist nowhere,
// and the keys near the end. A page longer than a shard (about 40 accounts
// at tiny) crosses a dozen shard boundaries from any seek: long pages take
// fewer random seeks and none at the boundaries.
std::vector<std::string> SeekKeys(const Pairs& model, uint32_t limit) {
  std::vector<std::string> seeks;
  const size_t width = model.front().first.size();
  const bool long_pages = limit > 100;
  SplitMix64 rng(0x7363616e74657374ULL);
  for (int i = 0; i < (long_pages ? 50 : 300); ++i) {
    seeks.push_back(model[rng.Next() % model.size()].first);
  }
  for (size_t i = 1; i < model.size() && !long_pages; ++i) {
    const unsigned char prev = model[i - 1].first[0];
    const unsigned char here = model[i].first[0];
    if (prev == here) continue;
    // A page that starts a few pairs before the boundary crosses it.
    seeks.push_back(model[i - std::min<size_t>(i, 3)].first);
    seeks.push_back(model[i].first);
    // Keys that exist nowhere: before the shard's first key, and after the
    // previous shard's last one (g++ 12 misreads a concatenation here as an
    // overlapping copy, -Wrestrict, hence the assignments).
    std::string before(width, '\0'), after(width, '\xff');
    before[0] = static_cast<char>(here);
    after[0] = static_cast<char>(prev);
    seeks.push_back(before);
    seeks.push_back(after);
  }
  for (size_t back = 1; back <= limit + 1 && back <= model.size(); back += 7) {
    seeks.push_back(model[model.size() - back].first);
  }
  seeks.push_back(std::string(width, '\0'));
  seeks.push_back(std::string(width, '\xff'));
  return seeks;
}

// Checks `name`'s scans against the sorted stream at three page sizes.
void CheckScans(const std::string& name, const testing::CollectSink& model,
                const datagen::Dataset& ds) {
  for (const uint32_t limit : {100u, 1u, 700u}) {
    CAPTURE(limit);
    CAPTURE(name);
    OpenOptions opts;
    opts.verify_checksums = true;
    auto backend = backends::Open(name, ds.BackendDir(name), opts);
    INFO(backend.status().message());
    REQUIRE(backend.ok());
    auto session = backend.value()->NewSession();
    REQUIRE(session.ok());
    for (int t = 0; t < kNumTables; ++t) {
      const Table table = static_cast<Table>(t);
      CAPTURE(TableName(table));
      size_t full = 0, short_pages = 0;
      for (const auto& seek : SeekKeys(model.pairs[t], limit)) {
        const Pairs want = Expected(model.pairs[t], seek, limit);
        Collect got;
        uint32_t count = 0;
        Status st = session.value()->Scan(table, seek, limit, &got, &count);
        INFO("seek " << ToHex(seek) << ": " << st.message());
        REQUIRE(st.ok());
        REQUIRE(count == got.pairs.size());
        REQUIRE(got.pairs == want);
        (count == limit ? full : short_pages) += 1;
      }
      CHECK(full > 0);
      CHECK(short_pages > 0);  // The table's end was reached.
    }
  }
}

constexpr const char* kDirect = "arena+direct";

}  // namespace

TEST_CASE("every backend scans the same pages as the sorted stream",
          "[baselines][scan]") {
  dataset::Spec spec =
      dataset::MakeSpec("tiny", 0, 0, dataset::kDefaultSeed).value();
  testing::CollectSink model;
  REQUIRE(datagen::GenerateSorted(spec, &model).ok());
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  // The O_DIRECT variant has a case of its own (below), which a file
  // system without O_DIRECT skips.
  for (const auto& name : backends::Names()) {
    if (name != kDirect && testing::TinyHolds(name)) {
      CheckScans(name, model, ds.value());
    }
  }
}

// Run alone (meson test `baselines_direct`): skipped, with the reason, where
// the dataset's file system refuses O_DIRECT (tmpfs, for one).
TEST_CASE("the O_DIRECT read path scans the same pages", "[direct]") {
  dataset::Spec spec =
      dataset::MakeSpec("tiny", 0, 0, dataset::kDefaultSeed).value();
  testing::CollectSink model;
  REQUIRE(datagen::GenerateSorted(spec, &model).ok());
  // Its own tiny dataset of the arena alone: cheaper than every backend's.
  testing::TempDir tmp;
  datagen::GenOptions o;
  o.dir = tmp / "tiny";
  o.spec = spec;
  o.backends = {"arena"};
  o.progress = false;
  REQUIRE(datagen::Generate(o, backends::NewLoader).ok());
  auto ds = datagen::Dataset::Open(o.dir);
  REQUIRE(ds.ok());
  auto probe = backends::Open(kDirect, ds->BackendDir(kDirect), OpenOptions{});
  if (!probe.ok() && probe.status().code() == Code::kIOError) {
    testing::SkipTest(probe.status().message(), tmp.path());
  }
  CheckScans(kDirect, model, ds.value());
}
