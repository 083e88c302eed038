// Warm point-read micro-benchmark: ns per Get for every backend of this
// build on the tiny and smoke datasets, side by side in one run, with block
// checksums verified on read; the arena also without verification, with
// verification on every read (not once per block), and through its pread,
// direct and cache read variants.
//
// Run with `meson test -C build --benchmark` (or the binary directly; it
// takes google-benchmark flags such as --benchmark_format=json). Datasets
// are built in a temporary directory first; every file is then resident, so
// this measures the CPU path of a lookup, not I/O.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "datagen/dataset.h"
#include "datagen/registry.h"
#include "datagen/sampler.h"
#include "test/temp_dir.h"

namespace {

using namespace flatbench;

// Keys cycle over a permutation of the whole hit key space (up to 1M keys),
// prepared before timing.
std::vector<std::string> HitKeys(const datagen::Spec& spec, Table table) {
  datagen::Sampler sampler(spec, table, datagen::KeyKind::kHit, 11);
  uint64_t n = std::min<uint64_t>(sampler.space(), 1 << 20);
  std::vector<std::string> keys(n, std::string(KeySize(table), '\0'));
  for (uint64_t i = 0; i < n; ++i) {
    sampler.DrawKey(i, reinterpret_cast<uint8_t*>(keys[i].data()));
  }
  return keys;
}

void WarmGet(benchmark::State& state, Backend* backend,
             const std::vector<std::string>* keys, Table table) {
  auto session = backend->NewSession();
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  ReadSession& s = *session.value();
  size_t i = 0, found_count = 0;
  for (auto _ : state) {
    bool found = false;
    std::string_view value;
    Status st = s.Get(table, (*keys)[i], &found, &value);
    benchmark::DoNotOptimize(value.data());
    found_count += found && st.ok();
    if (++i == keys->size()) i = 0;
  }
  if (found_count != static_cast<size_t>(state.iterations())) {
    state.SkipWithError("a hit key was not found");
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  testing::TempDir tmp;
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<std::vector<std::string>>> key_sets;
  for (const char* scale : {"tiny", "smoke"}) {
    datagen::GenOptions o;
    o.dir = tmp / scale;
    o.spec = datagen::MakeSpec(scale, 0, 0, datagen::kDefaultSeed).value();
    o.backends = datagen::AvailableBackends();
    o.progress = false;
    auto built = datagen::Generate(o, datagen::NewLoader);
    if (!built.ok()) {
      std::fprintf(stderr, "warm_get: %s\n", built.status().message().c_str());
      return 1;
    }
    for (Table table : {Table::kAccount, Table::kStorage}) {
      key_sets.push_back(
          std::make_unique<std::vector<std::string>>(HitKeys(o.spec, table)));
      // Every backend with block checksums verified on read (as the bench
      // runs them); the arena also without, and through its read variants.
      // The arena's mmap path checks each block once per open; "every"
      // checks it on every read, to show what that saves.
      struct Run {
        std::string name;
        bool verify;
        bool every = false;
      };
      std::vector<Run> runs;
      for (const auto& name : o.backends) runs.push_back({name, true});
      runs.push_back({"arena", false});
      runs.push_back({"arena", true, true});
      for (const auto& v : datagen::ReadVariants()) runs.push_back({v, true});
      for (const Run& run : runs) {
        OpenOptions options;
        options.verify_checksums = run.verify;
        options.verify_every_read = run.every;
        auto backend = datagen::OpenBackend(
            run.name, o.dir + "/" + datagen::StorageBackend(run.name), options);
        if (!backend.ok()) {
          std::fprintf(stderr, "warm_get: %s\n",
                       backend.status().message().c_str());
          return 1;
        }
        backends.push_back(std::move(backend).value());
        const std::string label = run.name + (!run.verify ? "/noverify"
                                              : run.every ? "/verify-every-read"
                                                          : "/verify");
        benchmark::RegisterBenchmark(
            (label + "/" + scale + "/" + TableName(table) + "/warm_hit")
                .c_str(),
            WarmGet, backends.back().get(), key_sets.back().get(), table);
      }
    }
  }
  benchmark::AddCustomContext("flatbench.micro",
                              "warm hit Get, keys cycle over a permutation "
                              "of the whole key space (<= 1M keys); "
                              "/verify: block checksums checked on read");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
