// ArenaLoader and ArenaBackend behind the shared interfaces.

#include "arena/backend.h"

#include <catch2/catch.hpp>
#include <string>

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
