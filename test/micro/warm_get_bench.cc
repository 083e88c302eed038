// Warm point-read micro-benchmark: ns per Get for every backend of this
// build on the tiny and smoke datasets, side by side in one run, with block
// checksums verified on read; the arena also without verification, with
// verification on every read (not once per block), and through its pread,
// direct and cache read variants.
//
// Run with `meson test -C build --benchmark` (or the binary directly; it
// takes google-benchmark flags such as --benchmark_format=json, and
// --scales=smoke --backends=arena,arena+cache,lmdb to measure fewer). Datasets
// are built in a temporary directory first; every file is then resident, so
// this measures the CPU path of a lookup, not I/O.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "backends/table.h"
#include "datagen/dataset_dir.h"
#include "datagen/sampler.h"
#include "dataset/names.h"
#include "test/temp_dir.h"

namespace {

using namespace flatbench;

// Keys cycle over a permutation of the whole hit key space (up to 1M keys),
// prepared before timing.
std::vector<std::string> HitKeys(const dataset::Spec& spec, Table table) {
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

// Splits "a,b,c"; empty when `flag` is not among argv (which it leaves
// without it, for google-benchmark's own flag check).
std::vector<std::string> ListFlag(int* argc, char** argv, const char* flag) {
  std::vector<std::string> items;
  const std::string prefix = std::string("--") + flag + "=";
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(prefix, 0) != 0) continue;
    std::string rest = arg.substr(prefix.size());
    for (size_t at = 0; at <= rest.size();) {
      const size_t comma = std::min(rest.find(',', at), rest.size());
      if (comma > at) items.push_back(rest.substr(at, comma - at));
      at = comma + 1;
    }
    for (int j = i; j + 1 < *argc; ++j) argv[j] = argv[j + 1];
    --*argc;
    --i;
  }
  return items;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

// Besides google-benchmark's flags: --scales=tiny,smoke and
// --backends=arena,lmdb,... (default: both scales, every backend of this
// build) choose what is built and measured; a read variant needs its
// backend.
int main(int argc, char** argv) {
  std::vector<std::string> scales = ListFlag(&argc, argv, "scales");
  std::vector<std::string> only = ListFlag(&argc, argv, "backends");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 64;
  if (scales.empty()) scales = {"tiny", "smoke"};
  testing::TempDir tmp;
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::unique_ptr<std::vector<std::string>>> key_sets;
  for (const std::string& scale : scales) {
    datagen::GenOptions o;
    o.dir = tmp / scale;
    auto spec = dataset::MakeSpec(scale, 0, 0, dataset::kDefaultSeed);
    if (!spec.ok()) {
      std::fprintf(stderr, "warm_get: --scales: %s\n",
                   spec.status().message().c_str());
      return 64;
    }
    o.spec = spec.value();
    o.backends.clear();
    for (const auto& name : backends::Stores()) {
      if (only.empty() || Contains(only, name)) o.backends.push_back(name);
    }
    o.progress = false;
    auto built = datagen::Generate(o, backends::NewLoader);
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
      if (Contains(o.backends, "arena")) {
        runs.push_back({"arena", false});
        runs.push_back({"arena", true, true});
        for (const backends::Entry& e : backends::All()) {
          const std::string v(e.name);
          if (!e.built || e.is_store() || e.store != "arena") continue;
          if (only.empty() || Contains(only, v)) runs.push_back({v, true});
        }
      }
      for (const Run& run : runs) {
        OpenOptions options;
        options.verify_checksums = run.verify;
        options.verify_every_read = run.every;
        auto backend = backends::Open(
            run.name, o.dir + "/" + dataset::StoreOf(run.name), options);
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
