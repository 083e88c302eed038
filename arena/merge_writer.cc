#include "arena/merge_writer.h"

#include <algorithm>

#include "arena/delta.h"

namespace flatbench::arena {

MergeWriter::MergeWriter(std::string dir, const BuilderOptions& options,
                         const WriterOptions& writer)
    : dir_(std::move(dir)),
      options_(options),
      writer_(writer),
      log_(dir_, writer),
      history_(writer.jobs) {}

void MergeWriter::Gather(std::span<const KeyChange> changes) {
  for (const KeyChange& c : changes) {
    auto& slot = pending_[static_cast<int>(c.table)][std::string(c.key)];
    slot.first = c.erase;
    slot.second.assign(c.erase ? std::string_view() : c.value);
  }
}

Status MergeWriter::Open() {
  return log_.Open([this](std::span<const KeyChange> changes) {
    Gather(changes);
    ++pending_blocks_;
  });
}

Status MergeWriter::ApplyBlock(std::span<const KeyChange> changes) {
  FLATBENCH_RETURN_IF_ERROR(log_.Append(changes));
  Gather(changes);
  ++applied_;
  if (++pending_blocks_ >= std::max<uint64_t>(1, writer_.merge_every)) {
    return Merge();
  }
  return Status::Ok();
}

Result<uint64_t> MergeWriter::Checkpoint() {
  FLATBENCH_RETURN_IF_ERROR(log_.Sync());
  return applied_;
}

Status MergeWriter::Merge() {
  if (pending_blocks_ == 0) return Status::Ok();
  Delta delta;
  for (int t = 0; t < kNumTables; ++t) {
    auto& ops = delta.ops[t];
    ops.reserve(pending_[t].size());
    for (auto& [key, change] : pending_[t]) {
      ops.push_back({key, change.first, std::move(change.second)});
    }
    std::sort(ops.begin(), ops.end(),
              [](const DeltaOp& a, const DeltaOp& b) { return a.key < b.key; });
  }
  FLATBENCH_RETURN_IF_ERROR(log_.Freeze());
  const unsigned jobs = history_.NextJobs();
  FLATBENCH_ASSIGN_OR_RETURN(
      MergeStats stats,
      MergeThroughDeltaFile(dir_, delta, options_, jobs, writer_.stop));
  // The base holds every frozen block durably.
  FLATBENCH_RETURN_IF_ERROR(DropFrozen(dir_));
  history_.Add(stats, jobs);
  for (auto& p : pending_) p.clear();
  pending_blocks_ = 0;
  return Status::Ok();
}

Status MergeWriter::Finish() {
  FLATBENCH_RETURN_IF_ERROR(Merge());
  return log_.Finish();
}

Settings MergeWriter::Upkeep() const {
  Settings s;
  history_.AddRates(s);
  s.emplace_back("log_bytes", std::to_string(log_.bytes_written()));
  s.emplace_back("recovered_blocks", std::to_string(log_.recovered()));
  history_.AddLast(s);
  return s;
}

}  // namespace flatbench::arena
