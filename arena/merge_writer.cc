#include "arena/merge_writer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "arena/delta.h"

namespace flatbench::arena {

std::string DeltaPath(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + ".delta";
}

MergeWriter::MergeWriter(std::string dir, const BuilderOptions& options,
                         const WriterOptions& writer)
    : dir_(std::move(dir)),
      options_(options),
      writer_(writer),
      next_block_(writer.from_block) {}

void MergeWriter::Gather(std::span<const KeyChange> changes) {
  for (const KeyChange& c : changes) {
    auto& slot = pending_[static_cast<int>(c.table)][std::string(c.key)];
    slot.first = c.erase;
    slot.second.assign(c.erase ? std::string_view() : c.value);
  }
}

// The tail from its first block on; one a resumed run finds is kept up to
// from_block, if it reaches that far.
Status MergeWriter::OpenTail() {
  const uint64_t tail = std::min(writer_.log_tail, writer_.to_block);
  if (tail == 0) return Status::Ok();
  tail_from_ = writer_.to_block - tail;
  const std::string path = TailPath(dir_);
  const uint64_t from = writer_.from_block;
  std::error_code ec;
  if (from <= tail_from_) {
    std::filesystem::remove(path, ec);
    tail_on_ = true;
    if (from == tail_from_) return tail_.Start(path, tail_from_);
    return Status::Ok();
  }
  auto read = ReadLog(path, [&](uint64_t block, auto) { return block < from; });
  if (!read.ok() || read->base != tail_from_ ||
      read->base + read->records < from) {
    if (writer_.progress) {
      std::fprintf(stderr,
                   "age arena: warning: the log's tail from block %llu was "
                   "not kept by the run that stopped; no tail is left\n",
                   static_cast<unsigned long long>(tail_from_));
    }
    std::filesystem::remove(path, ec);
    return Status::Ok();
  }
  tail_on_ = true;
  return tail_.OpenAt(path, read->bytes);
}

Status MergeWriter::Open() {
  FLATBENCH_RETURN_IF_ERROR(OpenTail());
  const std::string path = LogPath(dir_);
  const uint64_t from = writer_.from_block;
  auto read = ReadLog(path, [&](uint64_t block, auto changes) {
    if (block >= from) return false;
    Gather(changes);
    ++pending_blocks_;
    return true;
  });
  if (read.status().code() == Code::kMissingInput) {
    return log_.Start(path, from);
  }
  FLATBENCH_RETURN_IF_ERROR(read.status());
  const LogContents& c = read.value();
  // The base holds every block before c.base (a merge that was killed
  // before the log started again holds more, which the replay repeats
  // harmlessly); the log must reach from_block.
  if (c.base > from) {
    for (auto& p : pending_) p.clear();
    pending_blocks_ = 0;
    return log_.Start(path, from);
  }
  if (c.base + c.records < from) {
    return Status::Corruption(
        path + ": holds blocks " + std::to_string(c.base) + " to " +
        std::to_string(c.base + c.records) + ", but " + std::to_string(from) +
        " blocks are recorded durable" +
        (c.torn ? " (its last record is torn)" : ""));
  }
  recovered_ = c.records;
  if (writer_.progress && (recovered_ > 0 || c.torn)) {
    std::fprintf(stderr,
                 "age arena: recovered %llu unmerged block(s) from %s%s\n",
                 static_cast<unsigned long long>(recovered_), path.c_str(),
                 c.torn ? " (its torn last record cut)" : "");
  }
  return log_.OpenAt(path, c.bytes);
}

Status MergeWriter::ApplyBlock(std::span<const KeyChange> changes) {
  const uint64_t before = log_.bytes();
  FLATBENCH_RETURN_IF_ERROR(log_.Append(next_block_, changes));
  log_bytes_ += log_.bytes() - before;
  if (tail_on_ && next_block_ >= tail_from_) {
    if (next_block_ == tail_from_) {
      FLATBENCH_RETURN_IF_ERROR(tail_.Start(TailPath(dir_), tail_from_));
    }
    FLATBENCH_RETURN_IF_ERROR(tail_.Append(next_block_, changes));
  }
  Gather(changes);
  ++next_block_;
  ++applied_;
  if (++pending_blocks_ >= std::max<uint64_t>(1, writer_.merge_every)) {
    return Merge();
  }
  return Status::Ok();
}

Result<uint64_t> MergeWriter::Checkpoint() {
  FLATBENCH_RETURN_IF_ERROR(log_.Sync());
  FLATBENCH_RETURN_IF_ERROR(tail_.Sync());
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
  // On disk first: the merge can be told from its input, and a delta that
  // does not decode is refused before the base is touched.
  const std::string path = DeltaPath(dir_);
  FLATBENCH_RETURN_IF_ERROR(WriteDelta(delta, path));
  FLATBENCH_ASSIGN_OR_RETURN(const Delta read, ReadDelta(path));
  // With more than one job, every second merge runs at one job, so one
  // aging measures the merge at both (the files are the same either way).
  const unsigned jobs =
      writer_.jobs > 1 && merges_.size() % 2 == 1 ? 1 : writer_.jobs;
  FLATBENCH_ASSIGN_OR_RETURN(
      MergeStats stats, MergeStore(dir_, read, options_, jobs, writer_.stop));
  merge_jobs_.push_back(jobs);
  // The base holds every block before next_block_: the log starts again.
  FLATBENCH_RETURN_IF_ERROR(log_.Start(LogPath(dir_), next_block_));
  log_bytes_ += log_.bytes();
  std::error_code ec;
  std::filesystem::remove(path, ec);
  merges_.push_back(stats);
  for (auto& p : pending_) p.clear();
  pending_blocks_ = 0;
  return Status::Ok();
}

Status MergeWriter::Finish() {
  FLATBENCH_RETURN_IF_ERROR(Merge());
  // Every block is in the base: no log is left beside it, but the tail,
  // whose blocks the base holds too, so that reading them again changes
  // nothing.
  FLATBENCH_RETURN_IF_ERROR(log_.Remove());
  if (!tail_on_) return Status::Ok();
  FLATBENCH_RETURN_IF_ERROR(tail_.Sync());
  std::error_code ec;
  std::filesystem::rename(TailPath(dir_), LogPath(dir_), ec);
  if (ec) return Status::IOError(TailPath(dir_) + ": " + ec.message());
  const std::string parent =
      std::filesystem::path(LogPath(dir_)).parent_path().string();
  return SyncDir(parent.empty() ? "." : parent);
}

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
  s.emplace_back("merge_jobs", std::to_string(writer_.jobs));
  AddRates(merges_, merge_jobs_, writer_.jobs, "", s);
  if (writer_.jobs > 1) AddRates(merges_, merge_jobs_, 1, "one_job_", s);
  s.emplace_back("log_bytes", std::to_string(log_bytes_));
  s.emplace_back("recovered_blocks", std::to_string(recovered_));
  if (!merges_.empty()) {
    const MergeStats& last = merges_.back();
    s.emplace_back("pairs",
                   std::to_string(last.pairs_out[0] + last.pairs_out[1]));
    s.emplace_back("file_bytes", std::to_string(last.bytes_out));
  }
  return s;
}

}  // namespace flatbench::arena
