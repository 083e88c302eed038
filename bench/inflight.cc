#include "bench/inflight.h"

#include <algorithm>

namespace flatbench::bench {

uint64_t PeakInFlight(const std::vector<std::vector<ReadInterval>>& per_thread,
                      const std::vector<uint64_t>& used) {
  std::vector<uint64_t> starts, ends;
  for (size_t t = 0; t < per_thread.size(); ++t) {
    uint64_t n = std::min<uint64_t>(used[t], per_thread[t].size());
    for (uint64_t i = 0; i < n; ++i) {
      starts.push_back(per_thread[t][i].start_ns);
      ends.push_back(per_thread[t][i].end_ns);
    }
  }
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  uint64_t cur = 0, peak = 0;
  size_t j = 0;
  for (uint64_t s : starts) {
    // Retire every read that ended at or before this start.
    while (j < ends.size() && ends[j] <= s) {
      if (cur > 0) --cur;  // A zero-length read may end before it "starts".
      ++j;
    }
    ++cur;
    peak = std::max(peak, cur);
  }
  return peak;
}

double MeanInFlight(const std::vector<ReadInterval>& loops) {
  if (loops.empty()) return 0;
  uint64_t first = UINT64_MAX, last = 0;
  double busy = 0;
  for (const auto& l : loops) {
    busy += static_cast<double>(l.end_ns - l.start_ns);
    first = std::min(first, l.start_ns);
    last = std::max(last, l.end_ns);
  }
  return last > first ? busy / static_cast<double>(last - first) : 0;
}

}  // namespace flatbench::bench
