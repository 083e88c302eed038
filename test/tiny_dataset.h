#pragma once
// One tiny dataset (10k accounts x 5 slots, every backend of this build) per
// test process, built on first use into a temporary directory on a real
// filesystem (TMPDIR or /tmp). Building it is most of what a test of the
// whole dataset costs, so the test cases of one executable share it; each
// executable builds its own, since one process's evictions and warm holds
// would disturb another's. An executable compiled with
// FLATBENCH_TINY_IN_MEMORY, whose cases read the dataset only warm (no
// eviction, no O_DIRECT), builds it in memory (TempDir::Where::kMemory),
// where the stores' fsyncs and its removal do not wait on the disk.

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/table.h"
#include "datagen/dataset_dir.h"
#include "test/temp_dir.h"

namespace flatbench::testing {

// Backends the tiny dataset holds: every backend of this build, except the
// file store in a test executable compiled with FLATBENCH_TINY_WITHOUT_FS.
// The store's 60,000 files at tiny cost most of such a test's run (built,
// then evicted and read back by every pass), while what they would test is
// tested elsewhere: the store itself in test/baselines/fs_test.cc (on a
// dataset of 12,000 pairs), the bench and gonogo over it end to end in
// test/cli.
inline std::vector<std::string> TinyBackends() {
  std::vector<std::string> out = backends::Stores();
#ifdef FLATBENCH_TINY_WITHOUT_FS
  std::erase(out, std::string("fs"));
#endif
  return out;
}

// Whether the tiny dataset holds the store that backend `name` (a store or
// a read variant of one) reads.
inline bool TinyHolds(std::string_view name) {
  const backends::Entry* e = backends::Find(name);
  if (e == nullptr) return false;
  const std::vector<std::string> held = TinyBackends();
  return std::find(held.begin(), held.end(), e->store) != held.end();
}

// The dataset directory; generation failures throw, failing the test.
inline const std::string& TinyDatasetDir() {
  static std::unique_ptr<TempDir> dir;
  static std::string path;
  if (!dir) {
#ifdef FLATBENCH_TINY_IN_MEMORY
    dir = std::make_unique<TempDir>(TempDir::Where::kMemory);
#else
    dir = std::make_unique<TempDir>();
#endif
    path = *dir / "tiny";
    datagen::GenOptions o;
    o.dir = path;
    auto spec = dataset::MakeSpec("tiny", 0, 0, dataset::kDefaultSeed);
    if (!spec.ok()) throw std::runtime_error(spec.status().message());
    o.spec = spec.value();
    o.backends = TinyBackends();
    o.progress = false;
    auto built = datagen::Generate(o, backends::NewLoader);
    if (!built.ok()) throw std::runtime_error(built.status().message());
  }
  return path;
}

}  // namespace flatbench::testing
