#include "backends/arena_live.h"

#include <utility>

#include "arena/builder.h"
#include "arena/live_store.h"

namespace flatbench::backends {
namespace {

class LiveArena final : public LiveStore {
 public:
  explicit LiveArena(std::unique_ptr<arena::LiveStore> store)
      : store_(std::move(store)) {}
  Backend& backend() override { return *store_; }
  StoreWriter& writer() override { return store_->writer(); }
  bool Merges() const override { return true; }
  // The merges that ended and published their base; their seconds are
  // since the store's open, as the bench counts them.
  std::vector<MergeWindow> MergeWindows() const override {
    std::vector<MergeWindow> out;
    for (const arena::MergeWindow& w : store_->MergeWindows()) {
      if (!w.ok) continue;
      out.push_back({.start_s = w.start_seconds,
                     .end_s = w.end_seconds,
                     .first_block = w.first_block,
                     .last_block = w.end_block > 0 ? w.end_block - 1 : 0});
    }
    return out;
  }

 private:
  std::unique_ptr<arena::LiveStore> store_;
};

}  // namespace

Result<std::unique_ptr<LiveStore>> OpenArenaLive(const std::string& dir,
                                                 const OpenOptions& options,
                                                 const WriterOptions& writer) {
  arena::BuilderOptions build;
  build.record_build_time = false;  // As gen builds it (backends/table.cc).
  FLATBENCH_ASSIGN_OR_RETURN(
      auto store, arena::LiveStore::Open(dir, options, build, writer));
  return std::unique_ptr<LiveStore>(new LiveArena(std::move(store)));
}

}  // namespace flatbench::backends
