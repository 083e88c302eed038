// ArenaLoader and ArenaBackend behind the shared interfaces.

#include "arena/backend.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arena/loader.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

TEST_CASE("loader builds both tables and the backend reads them",
          "[arena][backend]") {
  const bool compress = GENERATE(false, true);
  // Two jobs: shards built on the builder's threads.
  const unsigned jobs = GENERATE(1u, 2u);
  CAPTURE(compress, jobs);
  testing::TempDir dir;
  testing::Rng rng(3);
  testing::Model accounts, storage;
  for (int i = 0; i < 3000; ++i) accounts[rng.Bytes(20)] = rng.Bytes(80);
  for (int i = 0; i < 9000; ++i) storage[rng.Bytes(52)] = rng.Bytes(32);
  BuilderOptions options;
  options.compress = compress;
  {
    auto loader = ArenaLoader::Create(dir.path(), options, jobs);
    REQUIRE(loader.ok());
    for (const auto& [k, v] : accounts) {
      REQUIRE(loader.value()->Add(Table::kAccount, k, v).ok());
    }
    for (const auto& [k, v] : storage) {
      REQUIRE(loader.value()->Add(Table::kStorage, k, v).ok());
    }
    // Nothing is complete until Finish.
    REQUIRE_FALSE(testing::Exists(ArenaPath(dir.path(), Table::kStorage)));
    REQUIRE(loader.value()->Finish().ok());
    REQUIRE(loader.value()->stats(Table::kStorage).key_count == storage.size());
    REQUIRE(loader.value()->stats(Table::kAccount).key_count ==
            accounts.size());
  }
  for (bool lazy : {false, true}) {
    OpenOptions oo;
    oo.lazy_metadata = lazy;
    oo.verify_checksums = true;
    auto backend = ArenaBackend::Open(dir.path(), oo);
    INFO(backend.status().message());
    REQUIRE(backend.ok());
    Backend& b = *backend.value();
    REQUIRE(b.Name() == "arena");
    REQUIRE(b.CountPairs(Table::kAccount).value() == accounts.size());
    REQUIRE(b.CountPairs(Table::kStorage).value() == storage.size());
    REQUIRE((b.ResidentMetadataBytes() == 0) == lazy);
    REQUIRE_FALSE(b.Describe().empty());
    auto session = b.NewSession();
    REQUIRE(session.ok());
    bool found = false;
    std::string_view value;
    for (const auto& [k, v] : accounts) {
      REQUIRE(session.value()->Get(Table::kAccount, k, &found, &value).ok());
      REQUIRE(found);
      REQUIRE(value == v);
    }
    for (const auto& [k, v] : storage) {
      REQUIRE(session.value()->Get(Table::kStorage, k, &found, &value).ok());
      REQUIRE(found);
      REQUIRE(value == v);
    }
    REQUIRE(session.value()
                ->Get(Table::kAccount, std::string(20, '\x7f'), &found, &value)
                .ok());
    REQUIRE_FALSE(found);
  }
}

// The pairs of one bucket, for Prepare.
class ModelRun final : public PairRun {
 public:
  explicit ModelRun(const testing::Model& m) : pairs_(m.begin(), m.end()) {}
  size_t size() const override { return pairs_.size(); }
  std::string_view key(size_t i) const override { return pairs_[i].first; }
  std::string_view value(size_t i) const override { return pairs_[i].second; }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
};

// One bucket of account keys starting with `first`.
testing::Model Bucket(char first, testing::Rng* rng) {
  testing::Model m;
  for (int i = 0; i < 200; ++i) {
    std::string k = rng->Bytes(kAccountKeySize);
    k[0] = first;
    m[k] = rng->Bytes(40);
  }
  return m;
}

TEST_CASE("a loader commits the parts it prepared and refuses any other",
          "[arena][backend]") {
  testing::TempDir dir_a;
  testing::TempDir dir_b;
  testing::Rng rng(5);
  const testing::Model low = Bucket('\x05', &rng);
  const testing::Model high = Bucket('\x09', &rng);
  auto a = ArenaLoader::Create(dir_a.path());
  auto b = ArenaLoader::Create(dir_b.path());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  REQUIRE(a.value()->TakesBuckets());
  // Parts are built off the committing thread, in any order.
  auto high_part = a.value()->Prepare(Table::kAccount, ModelRun(high));
  auto low_part = a.value()->Prepare(Table::kAccount, ModelRun(low));
  REQUIRE(high_part.ok());
  REQUIRE(low_part.ok());
  // Another loader's part: refused, and the refusal is kept.
  auto stray = a.value()->Prepare(Table::kAccount, ModelRun(low));
  REQUIRE(stray.ok());
  const Status refused = b.value()->Commit(std::move(stray).value());
  REQUIRE(refused.code() == Code::kUsage);
  REQUIRE(refused.message() == "Commit of a part this loader did not prepare");
  REQUIRE(b.value()->Add(Table::kAccount, low.begin()->first, "").code() ==
          Code::kUsage);
  REQUIRE(b.value()->Finish().code() == Code::kUsage);
  // Its own parts, committed in key order, make the file.
  REQUIRE(a.value()->Commit(std::move(low_part).value()).ok());
  REQUIRE(a.value()->Commit(std::move(high_part).value()).ok());
  REQUIRE(a.value()->Finish().ok());
  auto backend = ArenaBackend::Open(dir_a.path(), OpenOptions{});
  REQUIRE(backend.ok());
  REQUIRE(backend.value()->CountPairs(Table::kAccount).value() ==
          low.size() + high.size());
  auto session = backend.value()->NewSession();
  REQUIRE(session.ok());
  bool found = false;
  std::string_view value;
  for (const testing::Model* m : {&low, &high}) {
    for (const auto& [k, v] : *m) {
      REQUIRE(session.value()->Get(Table::kAccount, k, &found, &value).ok());
      REQUIRE(found);
      REQUIRE(value == v);
    }
  }
}

TEST_CASE("a loader refuses a part it was not given", "[arena][backend]") {
  testing::TempDir dir;
  auto loader = ArenaLoader::Create(dir.path());
  REQUIRE(loader.ok());
  const Status st = loader.value()->Commit(nullptr);
  REQUIRE(st.code() == Code::kUsage);
  REQUIRE(st.message() == "Commit of a part this loader did not prepare");
}

TEST_CASE("loader rejects out-of-order tables and empty tables are valid",
          "[arena][backend]") {
  testing::TempDir dir;
  SECTION("empty dataset") {
    auto loader = ArenaLoader::Create(dir.path());
    REQUIRE(loader.ok());
    REQUIRE(loader.value()->Finish().ok());
    auto backend = ArenaBackend::Open(dir.path(), OpenOptions{});
    REQUIRE(backend.ok());
    REQUIRE(backend.value()->CountPairs(Table::kStorage).value() == 0);
  }
  SECTION("account after storage") {
    auto loader = ArenaLoader::Create(dir.path());
    REQUIRE(loader.ok());
    REQUIRE(
        loader.value()->Add(Table::kStorage, std::string(52, 'a'), "").ok());
    REQUIRE(
        loader.value()->Add(Table::kAccount, std::string(20, 'a'), "").code() ==
        Code::kUsage);
    REQUIRE_FALSE(loader.value()->Finish().ok());
  }
  SECTION("missing files") {
    auto backend = ArenaBackend::Open(dir.path(), OpenOptions{});
    REQUIRE(backend.status().code() == Code::kMissingInput);
  }
}

}  // namespace
}  // namespace flatbench::arena
