// A warm Get allocates nothing (the ReadSession contract in common/backend.h)
// on the arena, through each of its read paths, and on LMDB. RocksDB's does
// allocate; that is recorded in RESEARCH.md, not asserted. A counting global
// operator new, in this executable of its own, sees every C++ allocation, the
// libraries' included; C code's malloc (LMDB's) is not seen, and LMDB documents
// that mdb_get copies nothing. The first pass over the keys warms caches and
// per-session buffers; the second, over the same keys, is counted.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "backends/table.h"
#include "datagen/dataset_dir.h"
#include "datagen/sampler.h"
#include "test/temp_dir.h"

namespace {

std::atomic<uint64_t> g_allocations{0};

void* Allocate(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

void* AllocateAligned(std::size_t n, std::align_val_t align) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t n) { return Allocate(n); }
void* operator new[](std::size_t n) { return Allocate(n); }
// The nothrow forms too (Catch2 uses them): every form pairs with free(),
// or a sanitizer sees new and free() mismatched.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void* operator new(std::size_t n, std::align_val_t a) {
  return AllocateAligned(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return AllocateAligned(n, a);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace flatbench {
namespace {

// Every store of this build, at 1,000 accounts of two slots: enough for
// 200 distinct keys of each kind, and the fewest files for the file store.
// Whether a Get allocates does not depend on how many pairs there are.
// Its reads are warm (nothing is evicted), so the stores live in memory
// (test/temp_dir.h): made and removed without waiting on the disk, where
// removing the file store's files and the cluster's took longer than the
// case itself.
const datagen::Dataset& SmallDataset() {
  static testing::TempDir tmp(testing::TempDir::Where::kMemory);
  static Result<datagen::Dataset> ds = [] {
    datagen::GenOptions o;
    o.dir = tmp / "ds";
    o.spec =
        dataset::MakeSpec("custom", 1000, 2, dataset::kDefaultSeed).value();
    o.backends = backends::Stores();
    o.progress = false;
    auto built = datagen::Generate(o, backends::NewLoader);
    if (!built.ok()) return Result<datagen::Dataset>(built.status());
    return datagen::Dataset::Open(o.dir);
  }();
  if (!ds.ok()) FAIL(ds.status().message());
  return ds.value();
}

struct Lookup {
  Table table;
  std::string key;
  bool expect_found;
};

// Hits and both kinds of miss, on both tables, drawn before any counting.
std::vector<Lookup> Lookups(const dataset::Spec& spec) {
  std::vector<Lookup> out;
  for (Table t : {Table::kAccount, Table::kStorage}) {
    for (auto kind : {datagen::KeyKind::kHit, datagen::KeyKind::kMissAbsent,
                      datagen::KeyKind::kMissLiveAccount}) {
      if (t == Table::kAccount && kind == datagen::KeyKind::kMissLiveAccount) {
        continue;
      }
      datagen::Sampler sampler(spec, t, kind, 5);
      for (uint64_t i = 0; i < 200; ++i) {
        Lookup l{t, std::string(KeySize(t), '\0'),
                 kind == datagen::KeyKind::kHit};
        sampler.DrawKey(i, reinterpret_cast<uint8_t*>(l.key.data()));
        out.push_back(std::move(l));
      }
    }
  }
  return out;
}

// Runs every lookup once; returns how many answered as expected.
size_t Pass(ReadSession& session, const std::vector<Lookup>& lookups) {
  size_t right = 0;
  for (const Lookup& l : lookups) {
    bool found = false;
    std::string_view value;
    Status st = session.Get(l.table, l.key, &found, &value);
    right += st.ok() && found == l.expect_found;
  }
  return right;
}

TEST_CASE("a warm Get allocates nothing, on every backend and read path",
          "[alloc]") {
  const datagen::Dataset& ds = SmallDataset();
  const std::vector<Lookup> lookups = Lookups(ds.spec());
  const std::vector<std::string> names = backends::Names();
  for (const std::string& name : names) {
    for (bool verify : {false, true}) {
      CAPTURE(name, verify);
      OpenOptions options;
      options.verify_checksums = verify;
      auto backend = backends::Open(name, ds.BackendDir(name), options);
      REQUIRE(backend.ok());
      auto session = backend.value()->NewSession();
      REQUIRE(session.ok());
      REQUIRE(Pass(*session.value(), lookups) == lookups.size());
      const uint64_t before = g_allocations.load();
      const size_t right = Pass(*session.value(), lookups);
      const uint64_t allocations = g_allocations.load() - before;
      CAPTURE(allocations);
      CHECK(right == lookups.size());
      if (name == "rocksdb") {
        // RocksDB's Get allocates (about 1.6 times per read here): a fact
        // RESEARCH.md (section 3) records, not a contract it keeps. Its
        // count is asserted to be what the document says, not zero.
        CHECK(allocations > 0);
        continue;
      }
      CHECK(allocations == 0);
    }
  }
}

TEST_CASE("the counting allocator sees an allocation", "[alloc]") {
  const uint64_t before = g_allocations.load();
  void* p = ::operator new(64);  // A call, not a new-expression: not elided.
  const uint64_t after = g_allocations.load();
  ::operator delete(p);
  CHECK(after - before == 1);
}

}  // namespace
}  // namespace flatbench
