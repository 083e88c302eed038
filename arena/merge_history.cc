#include "arena/merge_history.h"

#include <filesystem>

namespace flatbench::arena {

std::string DeltaPath(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + ".delta";
}

Result<MergeStats> MergeThroughDeltaFile(
    const std::string& dir, const Delta& delta, const BuilderOptions& options,
    unsigned jobs, const volatile std::sig_atomic_t* stop) {
  const std::string path = DeltaPath(dir);
  FLATBENCH_RETURN_IF_ERROR(WriteDelta(delta, path));
  FLATBENCH_ASSIGN_OR_RETURN(const Delta read, ReadDelta(path));
  FLATBENCH_ASSIGN_OR_RETURN(MergeStats stats,
                             MergeStore(dir, read, options, jobs, stop));
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return stats;
}

void MergeHistory::AddRatesAt(unsigned jobs, const std::string& prefix,
                              Settings& s) const {
  double seconds = 0, pairs = 0, bytes = 0, count = 0;
  for (size_t i = 0; i < merges_.size(); ++i) {
    if (merge_jobs_[i] != jobs) continue;
    const MergeStats& m = merges_[i];
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

void MergeHistory::AddRates(Settings& s) const {
  s.emplace_back("merges", std::to_string(merges_.size()));
  s.emplace_back("merge_jobs", std::to_string(jobs_));
  AddRatesAt(jobs_, "", s);
  if (jobs_ > 1) AddRatesAt(1, "one_job_", s);
}

void MergeHistory::AddLast(Settings& s) const {
  if (merges_.empty()) return;
  const MergeStats& last = merges_.back();
  s.emplace_back("pairs",
                 std::to_string(last.pairs_out[0] + last.pairs_out[1]));
  s.emplace_back("file_bytes", std::to_string(last.bytes_out));
}

}  // namespace flatbench::arena
