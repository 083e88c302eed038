#include "test/fuzz/delta_entry.h"

#include <xxhash.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>

#include "arena/backend.h"
#include "arena/delta.h"
#include "arena/loader.h"
#include "arena/merge.h"

namespace flatbench::arena {
namespace {

using Model = std::map<std::string, std::string>;

// The base every decoded delta is merged into: a few keys per table in
// four shards, so that a merge writes little.
struct Base {
  std::string dir;
  Model models[kNumTables];
};

// Removes the base's folder when the process exits (the corpus test and
// the fuzzer both end with exit()), so that no run leaves one behind.
struct RemovedAtExit {
  std::string dir;
  ~RemovedAtExit() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

BuilderOptions Options() {
  BuilderOptions o;
  o.record_build_time = false;
  return o;
}

void Build(const std::string& dir, const Model models[kNumTables]) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto loader = ArenaLoader::Create(dir, Options());
  if (!loader.ok()) __builtin_trap();
  for (int t = 0; t < kNumTables; ++t) {
    for (const auto& [k, v] : models[t]) {
      if (!loader.value()->Add(static_cast<Table>(t), k, v).ok()) {
        __builtin_trap();
      }
    }
  }
  if (!loader.value()->Finish().ok()) __builtin_trap();
}

const Base& TheBase() {
  static Base* base = [] {
    auto* b = new Base;
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(tmp != nullptr ? tmp : "/tmp") + "/delta-fuzz-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) __builtin_trap();
    b->dir = tmpl;
    static const RemovedAtExit removed{b->dir};
    for (int t = 0; t < kNumTables; ++t) {
      const size_t width = KeySize(static_cast<Table>(t));
      for (int i = 0; i < 16; ++i) {
        std::string key(width, static_cast<char>(i));
        key[0] = static_cast<char>(i % 4);
        b->models[t][key] = std::string(1 + i, static_cast<char>('a' + i));
      }
    }
    return b;
  }();
  return *base;
}

// The merge of `delta` into the base must hold the base with it applied.
void CheckMerge(const Delta& delta) {
  const Base& base = TheBase();
  const std::string store = base.dir + "/store";
  Build(store, base.models);
  Model want[kNumTables] = {base.models[0], base.models[1]};
  for (int t = 0; t < kNumTables; ++t) {
    for (const DeltaOp& op : delta.ops[t]) {
      if (op.erase) {
        want[t].erase(op.key);
      } else {
        want[t][op.key] = op.value;
      }
    }
  }
  if (!MergeStore(store, delta, Options(), 1).ok()) __builtin_trap();
  for (int t = 0; t < kNumTables; ++t) {
    auto reader = Reader::Open(ArenaPath(store, static_cast<Table>(t)));
    if (!reader.ok()) __builtin_trap();
    if (reader.value()->info().key_count != want[t].size()) __builtin_trap();
    ReadBuffer buffer;
    for (const auto& [k, v] : want[t]) {
      bool found = false;
      std::string_view value;
      if (!reader.value()->Get(k, &found, &value, &buffer).ok() || !found ||
          value != v) {
        __builtin_trap();
      }
    }
  }
}

int Decode(std::string_view bytes) {
  auto delta = DecodeDelta(bytes, "fuzz.delta");
  if (!delta.ok()) {
    if (delta.status().code() != Code::kCorruption) __builtin_trap();
    return 0;
  }
  if (EncodeDelta(delta.value()) != bytes) __builtin_trap();
  CheckMerge(delta.value());
  return 1;
}

}  // namespace

int FuzzDeltaBytes(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  int decoded = Decode(bytes);
  // The same records under a trailer that matches them: count the records
  // the way the format lays them out is the parser's job, so only the
  // checksum is made right, and the count is tried as the input has it.
  constexpr size_t kTrailer = 24;
  if (size >= 8 + kTrailer) {
    std::string fixed(bytes);
    const size_t body = size - kTrailer;
    std::memcpy(fixed.data() + body, "FBDEND01", 8);
    const uint64_t sum = XXH3_64bits(fixed.data(), body);
    for (int i = 0; i < 8; ++i) {
      fixed[body + 16 + i] = static_cast<char>(sum >> (8 * i));
    }
    if (fixed != bytes) decoded += Decode(fixed);
  }
  return decoded;
}

}  // namespace flatbench::arena
