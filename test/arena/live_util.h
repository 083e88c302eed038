#pragma once
// Helpers of the live store's tests: a tiny dataset's base built from the
// generator, its stream's blocks as a writer applies them, and a store's
// whole state compared with the generator's after a number of blocks.

#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "arena/backend.h"
#include "arena/loader.h"
#include "datagen/blocks.h"
#include "datagen/stream.h"
#include "dataset/spec.h"

namespace flatbench::arena::testing {

// 1,500 accounts of 2 slots; blocks of 80 changes.
inline dataset::Spec LiveSpec(uint64_t blocks) {
  dataset::Spec spec = dataset::MakeSpec("custom", 1500, 2, 17).value();
  spec.stream.blocks = blocks;
  spec.stream.changes_per_block = 80;
  return spec;
}

inline BuilderOptions LiveBuildOptions() {
  BuilderOptions o;
  o.record_build_time = false;
  return o;
}

// The arena store of `spec`'s state (after spec.stream.blocks blocks).
inline void BuildState(const std::string& dir, const dataset::Spec& spec) {
  std::filesystem::create_directories(dir);
  auto loader = ArenaLoader::Create(dir, LiveBuildOptions(), 1);
  REQUIRE(loader.ok());
  auto made = datagen::GenerateSorted(spec, loader.value().get());
  INFO(made.status().message());
  REQUIRE(made.ok());
  REQUIRE(loader.value()->Finish().ok());
}

// One block's changes, owning their bytes.
struct BlockChanges {
  std::vector<std::string> keys, values;
  std::vector<KeyChange> changes;
  std::vector<datagen::Change> ids;
};

// The first `n` blocks of `spec`'s stream.
inline std::vector<BlockChanges> StreamBlocks(const dataset::Spec& spec,
                                              uint64_t n) {
  datagen::BlockStream stream(spec);
  std::vector<BlockChanges> out(n);
  datagen::Block block;
  for (uint64_t b = 0; b < n; ++b) {
    stream.Next(&block);
    BlockChanges& bc = out[b];
    bc.ids = block.changes;
    for (const datagen::Change& c : block.changes) {
      bc.keys.push_back(datagen::KeyBytes(c.id));
      const datagen::Touch touch{static_cast<uint32_t>(b), false};
      bc.values.push_back(c.erase ? std::string()
                                  : datagen::ValueBytes(spec, c.id, &touch));
    }
    for (size_t i = 0; i < bc.keys.size(); ++i) {
      bc.changes.push_back({block.changes[i].id.table, bc.keys[i],
                            block.changes[i].erase, bc.values[i]});
    }
  }
  return out;
}

// Every pair of both tables of `got` equals those of `want`, in order.
inline void CheckSameState(Backend& got, Backend& want) {
  for (Table t : {Table::kAccount, Table::kStorage}) {
    auto a = got.OpenScan(t);
    auto b = want.OpenScan(t);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    uint64_t pairs = 0;
    for (;;) {
      bool va = false, vb = false;
      std::string_view ka, xa, kb, xb;
      REQUIRE(a.value()->Next(&va, &ka, &xa).ok());
      REQUIRE(b.value()->Next(&vb, &kb, &xb).ok());
      CAPTURE(TableName(t), pairs);
      REQUIRE(va == vb);
      if (!va) break;
      REQUIRE(ka == kb);
      REQUIRE(xa == xb);
      ++pairs;
    }
    CHECK(got.CountPairs(t).value() == pairs);
  }
}

}  // namespace flatbench::arena::testing
