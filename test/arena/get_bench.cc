// Warm point-read micro-benchmark of the arena Reader, with LMDB on the same
// keys in the same run when LMDB is available. Run with
// `meson test --benchmark --suite arena` or the binary directly.
//
// Datasets follow the tiny and smoke shapes: N accounts (20-byte keys,
// 80-byte values) and 5 N storage slots (52-byte keys, 32-byte values), with
// uniform pseudo-random keys (splitmix64). Reads are uniform over the whole
// key set, prepared outside the timed loop.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arena/builder.h"
#include "arena/reader.h"
#include "flatbench_config.h"
#if FLATBENCH_HAVE_LMDB
#include <lmdb.h>
#endif

namespace flatbench::arena {
namespace {

uint64_t SplitMix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string RandomBytes(uint64_t* s, size_t n) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t r = SplitMix(s);
    std::memcpy(out.data() + i, &r, std::min<size_t>(8, n - i));
  }
  return out;
}

struct Dataset {
  std::string dir;
  std::vector<std::string> hits;
  std::vector<std::string> misses;
  std::unique_ptr<Reader> reader;
#if FLATBENCH_HAVE_LMDB
  MDB_env* env = nullptr;
  MDB_dbi dbi = 0;
#endif
};

Dataset* MakeDataset(const char* name, uint64_t n, size_t width,
                     size_t value_size) {
  auto* d = new Dataset;
  d->dir = (std::filesystem::temp_directory_path() /
            ("arena_bench_" + std::string(name)))
               .string();
  std::filesystem::remove_all(d->dir);
  std::filesystem::create_directories(d->dir);
  uint64_t seed = 12345 + n + width;
  std::map<std::string, std::string> model;
  while (model.size() < n) {
    model[RandomBytes(&seed, width)] = RandomBytes(&seed, value_size);
  }
  auto b = Builder::Create(
      d->dir + "/t.arena",
      BuilderOptions{.key_width = static_cast<uint32_t>(width)});
  for (const auto& [k, v] : model) (void)b.value()->Add(k, v);
  (void)b.value()->Finish();
  const BuildStats stats = b.value()->stats();
  std::fprintf(
      stderr,
      "%s: %llu keys, file %llu bytes, raw %llu bytes (%.2f%% "
      "overhead), index %.3f B/key, filter %.3f B/key\n",
      name, static_cast<unsigned long long>(stats.key_count),
      static_cast<unsigned long long>(stats.file_bytes),
      static_cast<unsigned long long>(stats.key_bytes + stats.value_bytes),
      100.0 * (double(stats.file_bytes) /
                   double(stats.key_bytes + stats.value_bytes) -
               1),
      double(stats.index_bytes) / stats.key_count,
      double(stats.filter_bytes) / stats.key_count);
  d->reader = std::move(Reader::Open(d->dir + "/t.arena").value());
  for (const auto& [k, v] : model) d->hits.push_back(k);
  for (uint64_t i = 0; i < 100000; ++i) {
    std::string k = RandomBytes(&seed, width);
    if (model.count(k) == 0) d->misses.push_back(k);
  }
  // Shuffle hits deterministically so reads are uniform, not sequential.
  for (size_t i = d->hits.size(); i > 1; --i) {
    std::swap(d->hits[i - 1], d->hits[SplitMix(&seed) % i]);
  }
#if FLATBENCH_HAVE_LMDB
  mdb_env_create(&d->env);
  mdb_env_set_mapsize(d->env, size_t{4} << 30);
  mdb_env_open(d->env, d->dir.c_str(), MDB_NORDAHEAD, 0644);
  MDB_txn* txn;
  mdb_txn_begin(d->env, nullptr, 0, &txn);
  mdb_dbi_open(txn, nullptr, 0, &d->dbi);
  for (const auto& [k, v] : model) {
    MDB_val mk{k.size(), const_cast<char*>(k.data())};
    MDB_val mv{v.size(), const_cast<char*>(v.data())};
    mdb_put(txn, d->dbi, &mk, &mv, MDB_APPEND);
  }
  mdb_txn_commit(txn);
#endif
  return d;
}

Dataset* Account(bool smoke) {
  if (smoke) {
    static Dataset* d = MakeDataset("smoke_account", 100000, 20, 80);
    return d;
  }
  static Dataset* d = MakeDataset("tiny_account", 10000, 20, 80);
  return d;
}
Dataset* Storage(bool smoke) {
  if (smoke) {
    static Dataset* d = MakeDataset("smoke_storage", 500000, 52, 32);
    return d;
  }
  static Dataset* d = MakeDataset("tiny_storage", 50000, 52, 32);
  return d;
}

void ArenaGet(benchmark::State& state, Dataset* d, bool hit) {
  const auto& keys = hit ? d->hits : d->misses;
  size_t i = 0;
  bool found = false;
  std::string_view value;
  for (auto _ : state) {
    (void)d->reader->Get(keys[i], &found, &value);
    benchmark::DoNotOptimize(value);
    if (++i == keys.size()) i = 0;
  }
}

#if FLATBENCH_HAVE_LMDB
void LmdbGet(benchmark::State& state, Dataset* d, bool hit) {
  const auto& keys = hit ? d->hits : d->misses;
  MDB_txn* txn;
  mdb_txn_begin(d->env, nullptr, MDB_RDONLY, &txn);
  size_t i = 0;
  for (auto _ : state) {
    MDB_val k{keys[i].size(), const_cast<char*>(keys[i].data())};
    MDB_val v;
    benchmark::DoNotOptimize(mdb_get(txn, d->dbi, &k, &v));
    benchmark::DoNotOptimize(v.mv_data);
    if (++i == keys.size()) i = 0;
  }
  mdb_txn_abort(txn);
}
#endif

void Register() {
  for (bool smoke : {false, true}) {
    const std::string scale = smoke ? "smoke" : "tiny";
    for (int t = 0; t < 2; ++t) {
      Dataset* d = t == 0 ? Account(smoke) : Storage(smoke);
      const std::string table = t == 0 ? "account" : "storage";
      for (bool hit : {true, false}) {
        const std::string what = scale + "/" + table + (hit ? "/hit" : "/miss");
        benchmark::RegisterBenchmark(("arena/" + what).c_str(), ArenaGet, d,
                                     hit);
#if FLATBENCH_HAVE_LMDB
        benchmark::RegisterBenchmark(("lmdb/" + what).c_str(), LmdbGet, d, hit);
#endif
      }
    }
  }
}

}  // namespace
}  // namespace flatbench::arena

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  flatbench::arena::Register();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const char* name :
       {"tiny_account", "tiny_storage", "smoke_account", "smoke_storage"}) {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                                    ("arena_bench_" + std::string(name)),
                                ec);
  }
  return 0;
}
