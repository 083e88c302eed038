#include "arena/merge_writer.h"

#include <filesystem>

#include "arena/delta.h"

namespace flatbench::arena {

std::string DeltaPath(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + ".delta";
}

MergeWriter::MergeWriter(std::string dir, const BuilderOptions& options,
                         unsigned jobs, uint64_t merge_every,
                         const volatile std::sig_atomic_t* stop)
    : dir_(std::move(dir)),
      options_(options),
      jobs_(jobs),
      merge_every_(merge_every == 0 ? 1 : merge_every),
      stop_(stop) {}

Status MergeWriter::ApplyBlock(std::span<const KeyChange> changes) {
  for (const KeyChange& c : changes) {
    auto& slot = pending_[static_cast<int>(c.table)][std::string(c.key)];
    slot.first = c.erase;
    slot.second.assign(c.erase ? std::string_view() : c.value);
  }
  if (++pending_blocks_ >= merge_every_) return Merge();
  return Status::Ok();
}

Status MergeWriter::Merge() {
  if (pending_blocks_ == 0) return Status::Ok();
  Delta delta;
  for (int t = 0; t < kNumTables; ++t) {
    delta.ops[t].reserve(pending_[t].size());
    for (const auto& [key, change] : pending_[t]) {
      delta.ops[t].push_back({key, change.first, change.second});
    }
  }
  // On disk first: the merge can be told from its input, and a delta that
  // does not decode is refused before the base is touched.
  const std::string path = DeltaPath(dir_);
  FLATBENCH_RETURN_IF_ERROR(WriteDelta(delta, path));
  FLATBENCH_ASSIGN_OR_RETURN(const Delta read, ReadDelta(path));
  // With more than one job, every second merge runs at one job, so one
  // aging measures the merge at both (the files are the same either way).
  const unsigned jobs = jobs_ > 1 && merges_.size() % 2 == 1 ? 1 : jobs_;
  FLATBENCH_ASSIGN_OR_RETURN(MergeStats stats,
                             MergeStore(dir_, read, options_, jobs, stop_));
  merge_jobs_.push_back(jobs);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  merges_.push_back(stats);
  for (auto& p : pending_) p.clear();
  merged_blocks_ += pending_blocks_;
  pending_blocks_ = 0;
  return Status::Ok();
}

Status MergeWriter::Finish() { return Merge(); }

namespace {

// The merges run at `jobs`: their count, pairs/s and MB/s (the new store's
// bytes over the merges' time).
void AddRates(const std::vector<MergeStats>& merges,
              const std::vector<unsigned>& merge_jobs, unsigned jobs,
              const std::string& prefix, Settings& s) {
  double seconds = 0, pairs = 0, bytes = 0, count = 0;
  for (size_t i = 0; i < merges.size(); ++i) {
    if (merge_jobs[i] != jobs) continue;
    const MergeStats& m = merges[i];
    seconds += m.seconds;
    pairs += static_cast<double>(m.pairs_out[0] + m.pairs_out[1]);
    bytes += static_cast<double>(m.bytes_out);
    ++count;
  }
  if (count == 0) return;
  if (!prefix.empty()) {
    s.emplace_back(prefix + "merges", std::to_string(static_cast<int>(count)));
  }
  s.emplace_back(prefix + "merge_seconds", std::to_string(seconds));
  s.emplace_back(prefix + "merge_pairs_per_s",
                 std::to_string(seconds > 0 ? pairs / seconds : 0));
  s.emplace_back(prefix + "merge_mb_per_s",
                 std::to_string(seconds > 0 ? bytes / seconds / 1e6 : 0));
}

}  // namespace

Settings MergeWriter::Upkeep() const {
  Settings s;
  s.emplace_back("merges", std::to_string(merges_.size()));
  s.emplace_back("merge_jobs", std::to_string(jobs_));
  AddRates(merges_, merge_jobs_, jobs_, "", s);
  if (jobs_ > 1) AddRates(merges_, merge_jobs_, 1, "one_job_", s);
  if (!merges_.empty()) {
    const MergeStats& last = merges_.back();
    s.emplace_back("pairs",
                   std::to_string(last.pairs_out[0] + last.pairs_out[1]));
    s.emplace_back("file_bytes", std::to_string(last.bytes_out));
  }
  return s;
}

}  // namespace flatbench::arena
