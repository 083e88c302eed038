#include "arena/live_store.h"

#include <algorithm>

#include "arena/delta_scan.h"
#include "arena/live_session.h"

namespace flatbench::arena {

LiveStore::LiveStore(std::string dir, const OpenOptions& open,
                     const BuilderOptions& build, const WriterOptions& writer)
    : dir_(std::move(dir)),
      open_(open),
      build_(build),
      writer_(writer),
      start_(std::chrono::steady_clock::now()),
      log_(dir_, writer),
      active_(std::make_shared<LiveDelta>()),
      history_(writer.jobs) {}

Result<std::unique_ptr<LiveStore>> LiveStore::Open(
    const std::string& dir, const OpenOptions& open,
    const BuilderOptions& build, const WriterOptions& writer) {
  std::unique_ptr<LiveStore> s(new LiveStore(dir, open, build, writer));
  FLATBENCH_RETURN_IF_ERROR(
      s->log_.Open([&s](std::span<const KeyChange> changes) {
        s->active_->Apply(changes);
        ++s->pending_blocks_;
      }));
  s->recovered_ = s->log_.recovered();
  FLATBENCH_ASSIGN_OR_RETURN(std::shared_ptr<ArenaBackend> base,
                             ArenaBackend::Open(dir, open, ReadPath::kMmap));
  s->Publish(std::make_shared<const LiveVersion>(
      LiveVersion{std::move(base), nullptr, s->active_}));
  return s;
}

LiveStore::~LiveStore() {
  if (merge_thread_.joinable()) merge_thread_.join();
}

double LiveStore::Seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start_)
      .count();
}

void LiveStore::Publish(std::shared_ptr<const LiveVersion> version) {
  std::lock_guard lock(version_mu_);
  version_ = std::move(version);
  generation_.fetch_add(1, std::memory_order_release);
}

std::shared_ptr<const LiveVersion> LiveStore::Current(
    uint64_t* generation) const {
  std::lock_guard lock(version_mu_);
  if (generation != nullptr) {
    *generation = generation_.load(std::memory_order_relaxed);
  }
  return version_;
}

// ---- Reads.

Result<std::unique_ptr<ReadSession>> LiveStore::NewSession() {
  return NewLiveSession(*this);
}

uint64_t LiveStore::ResidentMetadataBytes() const {
  auto v = Current(nullptr);
  return v->base->ResidentMetadataBytes() + v->active->bytes() +
         (v->frozen ? v->frozen->bytes() : 0);
}

Settings LiveStore::Describe() const {
  auto v = Current(nullptr);
  Settings s = v->base->Describe();
  s.emplace_back(
      "delta",
      std::to_string(v->active->keys()) + " keys (" +
          std::to_string(v->active->bytes()) +
          " bytes) applied since the last freeze, " +
          (v->frozen ? std::to_string(v->frozen->keys()) + " being merged"
                     : std::string("no merge running")) +
          "; consulted before the base, every block visible once applied");
  s.emplace_back("merge_every", std::to_string(writer_.merge_every));
  return s;
}

Result<uint64_t> LiveStore::CountPairs(Table table) const {
  auto v = Current(nullptr);
  return CountWithDelta(*v->base, table, LayeredOps(*v, table));
}

Result<ReadGeometry> LiveStore::Geometry(Table table) const {
  return Current(nullptr)->base->Geometry(table);
}

Result<std::unique_ptr<TableScan>> LiveStore::OpenScan(Table table) {
  return NewLiveScan(Current(nullptr), table);
}

Result<std::string> LiveStore::CheckIntegrity() {
  std::lock_guard lock(files_mu_);
  return Current(nullptr)->base->CheckIntegrity();
}

std::vector<std::string> LiveStore::DataFiles(Table table) const {
  return {ArenaPath(dir_, table)};
}

// ---- Writes.

Status LiveStore::ApplyBlock(std::span<const KeyChange> changes) {
  if (finished_) return Status::Usage(dir_ + ": a block after Finish");
  {
    std::lock_guard lock(state_mu_);
    FLATBENCH_RETURN_IF_ERROR(merge_status_);
  }
  FLATBENCH_RETURN_IF_ERROR(log_.Append(changes));
  active_->Apply(changes);
  applied_.fetch_add(1, std::memory_order_relaxed);
  if (++pending_blocks_ >= std::max<uint64_t>(1, writer_.merge_every)) {
    return StartMerge(false);
  }
  return Status::Ok();
}

Result<uint64_t> LiveStore::Checkpoint() {
  {
    std::lock_guard lock(state_mu_);
    FLATBENCH_RETURN_IF_ERROR(merge_status_);
  }
  FLATBENCH_RETURN_IF_ERROR(log_.Sync());
  return applied_.load(std::memory_order_relaxed);
}

// The stall is the time the writer waited: the merge's window records it.
Status LiveStore::WaitForMerge() {
  if (merge_thread_.joinable()) {
    const bool running = merge_running_.load(std::memory_order_relaxed);
    const double from = Seconds();
    merge_thread_.join();
    if (running) {
      const double waited = Seconds() - from;
      std::lock_guard lock(state_mu_);
      windows_.back().stall_seconds = waited;
      stall_seconds_ += waited;
      ++stalls_;
    }
  }
  std::lock_guard lock(state_mu_);
  return merge_status_;
}

// The freeze, on the writer's thread: the log and the delta, then the
// version readers take, so that the next block goes to the fresh delta
// only once both are in place.
Status LiveStore::StartMerge(bool inline_merge) {
  FLATBENCH_RETURN_IF_ERROR(WaitForMerge());
  if (pending_blocks_ == 0) return Status::Ok();
  FLATBENCH_RETURN_IF_ERROR(log_.Freeze());
  std::shared_ptr<const LiveDelta> frozen = std::move(active_);
  active_ = std::make_shared<LiveDelta>();
  auto base = Current(nullptr)->base;
  Publish(std::make_shared<const LiveVersion>(
      LiveVersion{std::move(base), frozen, active_}));
  size_t window = 0;
  unsigned jobs = 1;
  {
    std::lock_guard lock(state_mu_);
    MergeWindow w;
    w.end_block = log_.next_block();
    w.first_block = w.end_block - pending_blocks_;
    w.start_seconds = Seconds();
    windows_.push_back(w);
    window = windows_.size() - 1;
    // The last merge has ended: its jobs are counted.
    jobs = history_.NextJobs();
  }
  merge_running_.store(true, std::memory_order_relaxed);
  pending_blocks_ = 0;
  Point(LivePoint::kFrozen);
  if (inline_merge) {
    RunMerge(std::move(frozen), window, jobs);
    std::lock_guard lock(state_mu_);
    return merge_status_;
  }
  merge_thread_ = std::thread([this, frozen, window, jobs]() mutable {
    RunMerge(std::move(frozen), window, jobs);
  });
  return Status::Ok();
}

void LiveStore::RunMerge(std::shared_ptr<const LiveDelta> frozen, size_t window,
                         unsigned jobs) {
  MergeStats stats;
  Status st = MergeFrozen(*frozen, jobs, &stats);
  std::lock_guard lock(state_mu_);
  MergeWindow& w = windows_[window];
  w.end_seconds = Seconds();
  w.ok = st.ok();
  if (st.ok()) history_.Add(stats, jobs);
  if (!st.ok()) merge_status_ = st.WithContext(dir_ + ": merge");
  merge_running_.store(false, std::memory_order_relaxed);
}

// The new base in DIR first (durable, one rename), then the version readers
// take, then the frozen log, whose blocks the base now holds.
Status LiveStore::MergeFrozen(const LiveDelta& frozen, unsigned jobs,
                              MergeStats* stats) {
  const Delta delta = frozen.Sorted();
  {
    std::lock_guard lock(files_mu_);
    FLATBENCH_ASSIGN_OR_RETURN(
        *stats, MergeThroughDeltaFile(dir_, delta, build_, jobs, writer_.stop));
  }
  Point(LivePoint::kBaseExchanged);
  FLATBENCH_ASSIGN_OR_RETURN(std::shared_ptr<ArenaBackend> base,
                             ArenaBackend::Open(dir_, open_, ReadPath::kMmap));
  {
    // The active delta is the writer's latest: it may have frozen again
    // only after this merge ends, so the current version holds it.
    std::lock_guard lock(version_mu_);
    version_ = std::make_shared<const LiveVersion>(
        LiveVersion{std::move(base), nullptr, version_->active});
    generation_.fetch_add(1, std::memory_order_release);
  }
  Point(LivePoint::kVersionPublished);
  FLATBENCH_RETURN_IF_ERROR(DropFrozen(dir_));
  Point(LivePoint::kFrozenDropped);
  return Status::Ok();
}

Status LiveStore::Finish() {
  if (finished_) return Status::Ok();
  FLATBENCH_RETURN_IF_ERROR(StartMerge(true));
  FLATBENCH_RETURN_IF_ERROR(log_.Finish());
  finished_ = true;
  return Status::Ok();
}

Settings LiveStore::Upkeep() const {
  Settings s;
  std::lock_guard lock(state_mu_);
  history_.AddRates(s);
  s.emplace_back("log_bytes", std::to_string(log_.bytes_written()));
  s.emplace_back("recovered_blocks", std::to_string(recovered_));
  history_.AddLast(s);
  s.emplace_back("blocks_applied", std::to_string(blocks_applied()));
  s.emplace_back("stalls", std::to_string(stalls_));
  s.emplace_back("stall_seconds", std::to_string(stall_seconds_));
  return s;
}

std::vector<MergeWindow> LiveStore::MergeWindows() const {
  std::lock_guard lock(state_mu_);
  return windows_;
}

std::vector<MergeStats> LiveStore::merges() const {
  std::lock_guard lock(state_mu_);
  return history_.merges();
}

uint64_t LiveStore::merges_done() const {
  std::lock_guard lock(state_mu_);
  return static_cast<uint64_t>(
      std::count_if(windows_.begin(), windows_.end(),
                    [](const MergeWindow& w) { return w.ok; }));
}

}  // namespace flatbench::arena
