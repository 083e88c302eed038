#include "bench/inflight.h"

#include <algorithm>

namespace flatbench::bench {

uint64_t PeakInFlight(const std::vector<LoopSpan>& loops) {
  std::vector<uint64_t> starts, ends;
  for (const auto& l : loops) {
    starts.push_back(l.start_ns);
    ends.push_back(l.end_ns);
  }
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  uint64_t cur = 0, peak = 0;
  size_t j = 0;
  for (uint64_t s : starts) {
    // Retire every span that ended at or before this start.
    while (j < ends.size() && ends[j] <= s) {
      if (cur > 0) --cur;  // A zero-length span may end before it "starts".
      ++j;
    }
    ++cur;
    peak = std::max(peak, cur);
  }
  return peak;
}

double MeanInFlight(const std::vector<LoopSpan>& loops) {
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
