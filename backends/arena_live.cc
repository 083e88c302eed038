#include "backends/arena_live.h"

#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "arena/backend.h"
#include "arena/delta_log.h"
#include "arena/merge_writer.h"

namespace flatbench::backends {
namespace {

using LiveClock = std::chrono::steady_clock;

struct ViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const {
    return std::hash<std::string_view>()(s);
  }
};

// The unmerged changes per table: key -> (erased, value).
using Overlay = std::unordered_map<std::string, std::pair<bool, std::string>,
                                   ViewHash, std::equal_to<>>;

// What readers and the writer share: the base they read and the changes
// not yet merged into it.
struct LiveShared {
  mutable std::shared_mutex mu;
  std::shared_ptr<arena::ArenaBackend> base;
  uint64_t generation = 0;  // Bumped at each publish.
  Overlay overlay[kNumTables];
};

class LiveArenaSession final : public ReadSession {
 public:
  explicit LiveArenaSession(LiveShared* shared) : shared_(shared) {}

  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    std::shared_ptr<arena::ArenaBackend> base;
    uint64_t generation;
    {
      std::shared_lock lock(shared_->mu);
      const Overlay& o = shared_->overlay[static_cast<int>(table)];
      auto it = o.find(key);
      if (it != o.end()) {
        *found = !it->second.first;
        if (*found) {
          copy_.assign(it->second.second);
          *value = copy_;
        }
        return Status::Ok();
      }
      generation = shared_->generation;
      if (generation != generation_ || session_ == nullptr) {
        base = shared_->base;
      }
    }
    // A new base since this session's last read: its own session on it,
    // which pins it (a new one only once per merge).
    if (base != nullptr) {
      FLATBENCH_ASSIGN_OR_RETURN(auto s, base->NewSession());
      session_.reset();
      session_ = std::move(s);
      pinned_ = std::move(base);
      generation_ = generation;
    }
    return session_->Get(table, key, found, value);
  }

  Status Scan(Table, std::string_view, uint32_t, ScanVisitor*,
              uint32_t* count) override {
    *count = 0;
    return Status::Usage(
        "arena (live): ordered scans are not measured while writing");
  }

 private:
  LiveShared* shared_;
  std::shared_ptr<arena::ArenaBackend> pinned_;
  std::unique_ptr<ReadSession> session_;
  uint64_t generation_ = 0;
  std::string copy_;
};

class LiveArenaBackend final : public Backend {
 public:
  explicit LiveArenaBackend(LiveShared* shared) : shared_(shared) {}
  std::string Name() const override { return "arena"; }
  Result<std::unique_ptr<ReadSession>> NewSession() override {
    return std::unique_ptr<ReadSession>(new LiveArenaSession(shared_));
  }
  uint64_t ResidentMetadataBytes() const override {
    return Base()->ResidentMetadataBytes();
  }
  Settings Describe() const override {
    Settings s = Base()->Describe();
    s.emplace_back("live",
                   "in-memory delta read first, then the base; merges in the "
                   "writer thread publish a new base under the readers");
    return s;
  }
  std::vector<std::string> DataFiles(Table table) const override {
    return Base()->DataFiles(table);
  }
  Result<uint64_t> CountPairs(Table table) const override {
    return Base()->CountPairs(table);
  }

 private:
  std::shared_ptr<arena::ArenaBackend> Base() const {
    std::shared_lock lock(shared_->mu);
    return shared_->base;
  }
  LiveShared* shared_;
};

class LiveArenaWriter final : public StoreWriter {
 public:
  LiveArenaWriter(std::string dir, OpenOptions options, LiveShared* shared,
                  std::unique_ptr<arena::MergeWriter> merger,
                  LiveClock::time_point origin)
      : dir_(std::move(dir)),
        options_(options),
        shared_(shared),
        merger_(std::move(merger)),
        origin_(origin) {}

  Status ApplyBlock(std::span<const KeyChange> changes) override {
    {
      std::unique_lock lock(shared_->mu);
      for (const KeyChange& c : changes) {
        auto& slot =
            shared_->overlay[static_cast<int>(c.table)][std::string(c.key)];
        slot.first = c.erase;
        slot.second.assign(c.erase ? std::string_view() : c.value);
      }
    }
    const size_t merges = merger_->merges().size();
    const double start = Seconds();
    FLATBENCH_RETURN_IF_ERROR(merger_->ApplyBlock(changes));
    const uint64_t block = applied_++;
    if (merger_->merges().size() == merges) return Status::Ok();
    FLATBENCH_RETURN_IF_ERROR(Publish());
    std::lock_guard lock(windows_mu_);
    windows_.push_back({start, Seconds(), first_unmerged_, block});
    first_unmerged_ = block + 1;
    return Status::Ok();
  }
  Result<uint64_t> Checkpoint() override { return merger_->Checkpoint(); }
  Status Finish() override {
    FLATBENCH_RETURN_IF_ERROR(merger_->Finish());
    return Publish();
  }
  Settings Upkeep() const override { return merger_->Upkeep(); }

  std::vector<MergeWindow> Windows() const {
    std::lock_guard lock(windows_mu_);
    return windows_;
  }

 private:
  double Seconds() const {
    return std::chrono::duration<double>(LiveClock::now() - origin_).count();
  }
  // The merged base, opened beside the old one and published with the
  // delta it folded in dropped, in one step.
  Status Publish() {
    FLATBENCH_ASSIGN_OR_RETURN(auto fresh,
                               arena::ArenaBackend::Open(dir_, options_));
    std::shared_ptr<arena::ArenaBackend> next(std::move(fresh));
    std::unique_lock lock(shared_->mu);
    shared_->base = std::move(next);
    ++shared_->generation;
    for (Overlay& o : shared_->overlay) o.clear();
    return Status::Ok();
  }

  std::string dir_;
  OpenOptions options_;
  LiveShared* shared_;
  std::unique_ptr<arena::MergeWriter> merger_;
  LiveClock::time_point origin_;
  uint64_t applied_ = 0;
  uint64_t first_unmerged_ = 0;
  mutable std::mutex windows_mu_;
  std::vector<MergeWindow> windows_;
};

class LiveArena final : public LiveStore {
 public:
  Status Open(const std::string& dir, const OpenOptions& options,
              const WriterOptions& wo) {
    const auto origin = LiveClock::now();
    FLATBENCH_ASSIGN_OR_RETURN(auto base,
                               arena::ArenaBackend::Open(dir, options));
    shared_.base = std::move(base);
    // The log's unmerged blocks (a dataset aged with a tail) are the
    // store's state too: readers see them from the start.
    auto read = arena::ReadLog(
        arena::LogPath(dir),
        [&](uint64_t block, std::span<const KeyChange> changes) {
          if (block >= wo.from_block) return false;
          for (const KeyChange& c : changes) {
            auto& slot =
                shared_.overlay[static_cast<int>(c.table)][std::string(c.key)];
            slot = {c.erase, c.erase ? std::string() : std::string(c.value)};
          }
          return true;
        });
    if (!read.ok() && read.status().code() != Code::kMissingInput) {
      return read.status();
    }
    arena::BuilderOptions bo;
    bo.record_build_time = false;  // As gen builds it (backends/table.cc).
    auto merger = std::make_unique<arena::MergeWriter>(dir, bo, wo);
    FLATBENCH_RETURN_IF_ERROR(merger->Open());
    writer_ = std::make_unique<LiveArenaWriter>(dir, options, &shared_,
                                                std::move(merger), origin);
    backend_ = std::make_unique<LiveArenaBackend>(&shared_);
    return Status::Ok();
  }
  Backend& backend() override { return *backend_; }
  StoreWriter& writer() override { return *writer_; }
  bool Merges() const override { return true; }
  std::vector<MergeWindow> MergeWindows() const override {
    return writer_->Windows();
  }

 private:
  LiveShared shared_;
  std::unique_ptr<LiveArenaWriter> writer_;
  std::unique_ptr<LiveArenaBackend> backend_;
};

}  // namespace

Result<std::unique_ptr<LiveStore>> OpenArenaLive(const std::string& dir,
                                                 const OpenOptions& options,
                                                 const WriterOptions& writer) {
  auto live = std::make_unique<LiveArena>();
  FLATBENCH_RETURN_IF_ERROR(live->Open(dir, options, writer));
  return std::unique_ptr<LiveStore>(std::move(live));
}

}  // namespace flatbench::backends
