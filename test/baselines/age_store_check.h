#pragma once
// What the tests of one store's writer share (age_reference_test.cc,
// postgres_age_test.cc): a small dataset of that store alone, aged by the
// stream, then every pair checked against the generator by walk and by
// lookup; an age whose writer applies blocks again; an age stopped at a
// block and resumed.
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "backends/table.h"
#include "datagen/age.h"
#include "datagen/check.h"
#include "datagen/dataset_dir.h"
#include "test/temp_dir.h"

namespace flatbench::age_check {

using namespace flatbench::datagen;
using namespace flatbench::dataset;

// 3,000 accounts of 3 slots: 12,000 pairs, the file store's test size.
inline Spec Fresh() { return MakeSpec("custom", 3000, 3, 17).value(); }
inline constexpr uint64_t kBlocks = 14;

inline AgeOptions AgeTo(const std::string& dir, uint64_t blocks) {
  AgeOptions o;
  o.dir = dir;
  o.stream.blocks = blocks;
  o.stream.changes_per_block = 300;
  o.progress = false;
  // The device's write probe: 1 MiB here, not the 256 MiB a real age
  // writes, which would be most of these tests' I/O.
  o.write_probe_bytes = 1 << 20;
  return o;
}

// A dataset of `store` alone, fresh.
inline void Gen(const std::string& dir, const std::string& store) {
  GenOptions o;
  o.dir = dir;
  o.spec = Fresh();
  o.backends = {store};
  o.progress = false;
  auto built = Generate(o, backends::NewLoader);
  INFO(built.status().message());
  REQUIRE(built.ok());
}

// `store` in `dir` holds the aged state of `blocks` blocks: every pair by
// walk and by lookup, a sample of hits and misses, and a marker of kind
// "aged". Returns the engine's upkeep figures from the marker.
inline std::map<std::string, std::string> CheckAged(const std::string& dir,
                                                    const std::string& store,
                                                    uint64_t blocks = kBlocks) {
  INFO(store);
  auto ds = Dataset::Open(dir);
  REQUIRE(ds.ok());
  REQUIRE(ds->spec().stream.blocks == blocks);
  auto build = ds->Build(store);
  INFO(build.status().message());
  REQUIRE(build.ok());
  const nlohmann::json shape = nlohmann::json::parse(build->shape);
  CHECK(shape.at("kind") == "aged");
  CHECK(shape.at("blocks") == blocks);
  CHECK_FALSE(std::filesystem::exists(dir + "/" + store + ".aging"));
  auto backend = backends::Open(store, ds->BackendDir(store), {});
  INFO(backend.status().message());
  REQUIRE(backend.ok());
  Backend& b = *backend.value();
  auto session = b.NewSession();
  REQUIRE(session.ok());
  FullCheckOptions full;
  full.progress = false;
  full.lookups = session.value().get();
  FullCheckReport report;
  Status st = CheckFull(
      ds->spec(), store,
      [&](Table t) -> Result<NextPairFn> {
        FLATBENCH_ASSIGN_OR_RETURN(std::shared_ptr<TableScan> scan,
                                   b.OpenScan(t));
        return NextPairFn(
            [scan](bool* v, std::string_view* k, std::string_view* val) {
              return scan->Next(v, k, val);
            });
      },
      full, &report);
  INFO(st.message());
  REQUIRE(st.ok());
  for (int t = 0; t < kNumTables; ++t) {
    CHECK(report.pairs[t] == build->pairs[t]);
    auto count = b.CountPairs(static_cast<Table>(t));
    REQUIRE(count.ok());
    CHECK(count.value() == build->pairs[t]);
  }
  CheckOptions sample;
  sample.samples = 300;
  CheckReport sampled;
  Status sampled_st = CheckSample(b, ds->spec(), sample, &sampled);
  INFO(sampled_st.message());
  REQUIRE(sampled_st.ok());
  CHECK(sampled.misses_verified > 0);
  std::map<std::string, std::string> engine;
  // The marker keeps them flat, under "engine.".
  const std::string prefix = "engine.";
  for (const auto& [k, v] : shape.items()) {
    if (k.rfind(prefix, 0) != 0) continue;
    engine[k.substr(prefix.size())] = v.get<std::string>();
  }
  return engine;
}

// Forwards to a store's writer, applying block `twice` a second time at
// once, and at Finish every block from `again` on a second time, in order:
// what a resume from an older checkpoint does. The state must not change.
class RepeatingWriter final : public StoreWriter {
 public:
  RepeatingWriter(std::unique_ptr<StoreWriter> inner, uint64_t twice,
                  uint64_t again)
      : inner_(std::move(inner)), twice_(twice), again_(again) {}
  Status ApplyBlock(std::span<const KeyChange> changes) override {
    const uint64_t b = blocks_.size();
    auto& kept = blocks_.emplace_back();
    for (const KeyChange& c : changes) {
      kept.push_back(
          {c.table, std::string(c.key), c.erase, std::string(c.value)});
    }
    FLATBENCH_RETURN_IF_ERROR(inner_->ApplyBlock(changes));
    if (b == twice_) return inner_->ApplyBlock(changes);
    return Status::Ok();
  }
  Result<uint64_t> Checkpoint() override { return inner_->Checkpoint(); }
  Status Finish() override {
    for (uint64_t b = again_; b < blocks_.size(); ++b) {
      std::vector<KeyChange> changes;
      for (const Owned& o : blocks_[b]) {
        changes.push_back({o.table, o.key, o.erase, o.value});
      }
      FLATBENCH_RETURN_IF_ERROR(inner_->ApplyBlock(changes));
    }
    return inner_->Finish();
  }
  Settings Upkeep() const override { return inner_->Upkeep(); }
  Steadiness Steady() override { return inner_->Steady(); }

 private:
  struct Owned {
    Table table;
    std::string key;
    bool erase;
    std::string value;
  };
  std::unique_ptr<StoreWriter> inner_;
  uint64_t twice_, again_;
  std::vector<std::vector<Owned>> blocks_;
};

// Forwards to a store's writer and raises `stop` before its `at`-th block
// (the block is still applied), as a signal at that moment would.
class StoppingWriter final : public StoreWriter {
 public:
  StoppingWriter(std::unique_ptr<StoreWriter> inner, uint64_t at,
                 volatile std::sig_atomic_t* stop)
      : inner_(std::move(inner)), at_(at), stop_(stop) {}
  Status ApplyBlock(std::span<const KeyChange> changes) override {
    if (applied_++ == at_) *stop_ = SIGTERM;
    return inner_->ApplyBlock(changes);
  }
  Result<uint64_t> Checkpoint() override { return inner_->Checkpoint(); }
  Status Finish() override { return inner_->Finish(); }
  Settings Upkeep() const override { return inner_->Upkeep(); }
  Steadiness Steady() override { return inner_->Steady(); }

 private:
  std::unique_ptr<StoreWriter> inner_;
  uint64_t at_;
  uint64_t applied_ = 0;
  volatile std::sig_atomic_t* stop_;
};

// Ages a fresh dataset of `store` in `dir` through RepeatingWriter (block
// 2 twice, blocks 5 onwards again at the end) and checks it; returns the
// upkeep figures.
inline std::map<std::string, std::string> AgeRepeating(
    const std::string& dir, const std::string& store) {
  Gen(dir, store);
  WriterFactory repeating =
      [](const std::string& s, const std::string& bdir,
         const WriterOptions& wo) -> Result<std::unique_ptr<StoreWriter>> {
    FLATBENCH_ASSIGN_OR_RETURN(auto w, backends::NewWriter(s, bdir, wo));
    return std::unique_ptr<StoreWriter>(
        std::make_unique<RepeatingWriter>(std::move(w), 2, 5));
  };
  auto aged = Age(AgeTo(dir, kBlocks), repeating);
  INFO(aged.status().message());
  REQUIRE(aged.ok());
  REQUIRE(aged->size() == 1);
  CHECK(aged->front().store == store);
  CHECK(aged->front().blocks == kBlocks);
  CHECK(aged->front().disk_bytes > 0);
  return CheckAged(dir, store);
}

// Ages a fresh dataset of `store` in `dir`, stopped before block `at`
// (refused by Build meanwhile), then resumed to kBlocks, and checks it.
inline void AgeStoppedAndResumed(const std::string& dir,
                                 const std::string& store, uint64_t at) {
  Gen(dir, store);
  volatile std::sig_atomic_t stop = 0;
  WriterFactory stopping =
      [&](const std::string& s, const std::string& bdir,
          const WriterOptions& wo) -> Result<std::unique_ptr<StoreWriter>> {
    FLATBENCH_ASSIGN_OR_RETURN(auto w, backends::NewWriter(s, bdir, wo));
    return std::unique_ptr<StoreWriter>(
        std::make_unique<StoppingWriter>(std::move(w), at, &stop));
  };
  AgeOptions o = AgeTo(dir, kBlocks);
  o.stop = &stop;
  auto stopped = Age(o, stopping);
  INFO(stopped.status().message());
  REQUIRE(stopped.status().code() == Code::kIOError);
  CHECK(std::filesystem::exists(dir + "/" + store + ".aging"));
  auto ds = Dataset::Open(dir);
  REQUIRE(ds.ok());
  CHECK(ds->Build(store).status().code() == Code::kMissingInput);
  auto resumed = Age(AgeTo(dir, kBlocks), backends::NewWriter);
  INFO(resumed.status().message());
  REQUIRE(resumed.ok());
  CheckAged(dir, store);
}

}  // namespace flatbench::age_check
