#include "bench/writing_figures.h"

#include <algorithm>
#include <cmath>

#include "bench/pass.h"
#include "common/results_writing.h"

namespace flatbench::bench {
namespace r = results;

double SeriesInterval(double seconds) {
  if (seconds >= 20) return 1;
  return std::max(1.0, std::ceil(seconds / 20 * 10)) / 10;
}

namespace {

void Put(nlohmann::json* e, const r::Counter& c, double v) {
  (*e)[r::KeyOf(c)] = v;
}

double Quantile(std::vector<uint64_t> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i =
      static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return static_cast<double>(v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)]);
}

bool InWindow(const std::vector<MergeWindow>& windows, double s) {
  for (const MergeWindow& w : windows) {
    if (s >= w.start_s && s <= w.end_s) return true;
  }
  return false;
}

// Seconds of [from, to] that merge windows cover.
double MergeSecondsWithin(const std::vector<MergeWindow>& windows, double from,
                          double to) {
  double s = 0;
  for (const MergeWindow& w : windows) {
    s += std::max(0.0, std::min(to, w.end_s) - std::max(from, w.start_s));
  }
  return s;
}

// The figures inside and outside the merge windows, from the timed reads
// (each stands for kLatencySampleEvery reads).
void AddMergeSplit(const WritingFigures& f, nlohmann::json* e) {
  Histogram in, out;
  for (const TimedRead& t : f.samples) {
    const double s = static_cast<double>(t.end_ns) / 1e9;
    (InWindow(f.windows, s) ? in : out).Record(t.latency_ns);
  }
  const double from = f.first_read_s;
  const double to = f.first_read_s + f.wall_seconds;
  const double merge_s = MergeSecondsWithin(f.windows, from, to);
  const double every = static_cast<double>(kLatencySampleEvery);
  if (in.count() > 0 && merge_s > 0) {
    Put(e, r::kReadsPerSInMerge,
        static_cast<double>(in.count()) * every / merge_s);
    Put(e, r::kLatP99NsInMerge, in.Percentile(0.99));
  }
  if (out.count() > 0 && to - from - merge_s > 0) {
    Put(e, r::kReadsPerSOutsideMerge,
        static_cast<double>(out.count()) * every / (to - from - merge_s));
    Put(e, r::kLatP99NsOutsideMerge, out.Percentile(0.99));
  }
}

nlohmann::json Series(const WritingFigures& f, double interval) {
  std::vector<Histogram> slots(
      static_cast<size_t>(std::max(1.0, std::ceil(f.wall_seconds / interval))));
  for (const TimedRead& t : f.samples) {
    const double s = static_cast<double>(t.end_ns) / 1e9 - f.first_read_s;
    const size_t i = std::min(slots.size() - 1,
                              static_cast<size_t>(std::max(0.0, s) / interval));
    slots[i].Record(t.latency_ns);
  }
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].count() == 0) continue;
    out.push_back({{"t_s", static_cast<double>(i) * interval},
                   {"p99_ns", slots[i].Percentile(0.99)},
                   {"reads", slots[i].count() * kLatencySampleEvery}});
  }
  return out;
}

}  // namespace

nlohmann::json WritingEntry(const WritingFigures& f) {
  nlohmann::json e = nlohmann::json::object();
  const double wall = std::max(f.wall_seconds, 1e-9);
  Put(&e, r::kReadsPerS, static_cast<double>(f.reads) / wall);
  Put(&e, r::kLatMeanNs, f.hist.Mean());
  Put(&e, r::kLatP50Ns, f.hist.Percentile(0.5));
  Put(&e, r::kLatP99Ns, f.hist.Percentile(0.99));
  Put(&e, r::kLatP999Ns, f.hist.Percentile(0.999));
  Put(&e, r::kLatSampleEvery, static_cast<double>(kLatencySampleEvery));
  Put(&e, r::kFoundFraction,
      f.reads == 0
          ? 0
          : static_cast<double>(f.found) / static_cast<double>(f.reads));
  Put(&e, r::kWritingSeconds, std::max(f.writing_seconds, 1e-9));
  Put(&e, r::kBlocksApplied, static_cast<double>(f.block_ns.size()));
  Put(&e, r::kBlockRate, static_cast<double>(f.block_rate));
  // A pass with no block has no block time: the figures say 1 ns, and
  // blocks_applied 0 says why.
  Put(&e, r::kBlockP50Ns, std::max(1.0, Quantile(f.block_ns, 0.5)));
  Put(&e, r::kBlockP99Ns, std::max(1.0, Quantile(f.block_ns, 0.99)));
  Put(&e, r::kBlockMaxNs, std::max(1.0, Quantile(f.block_ns, 1.0)));
  Put(&e, r::kChecksDone, static_cast<double>(f.checks));
  Put(&e, r::kChecksWrong, static_cast<double>(f.wrong));
  Put(&e, r::kWritingCapHit, f.cap_hit ? 1 : 0);
  const double interval = SeriesInterval(f.wall_seconds);
  Put(&e, r::kSeriesIntervalS, interval);
  e[std::string(r::kEntryReadSeries)] = Series(f, interval);
  nlohmann::json windows = nlohmann::json::array();
  double merge_s = 0;
  for (const MergeWindow& w : f.windows) {
    windows.push_back({{"start_s", w.start_s - f.first_read_s},
                       {"end_s", w.end_s - f.first_read_s},
                       {"first_block", w.first_block},
                       {"last_block", w.last_block}});
    merge_s += w.end_s - w.start_s;
  }
  e[std::string(r::kEntryMergeWindows)] = windows;
  if (f.merges) {
    Put(&e, r::kMerges, static_cast<double>(f.windows.size()));
    Put(&e, r::kMergeSeconds, merge_s);
    if (f.merge_mb_per_s > 0) Put(&e, r::kMergeMbPerS, f.merge_mb_per_s);
    AddMergeSplit(f, &e);
  }
  if (f.background) {
    Put(&e, r::kCompactions, static_cast<double>(f.compactions));
    Put(&e, r::kCompactionBytes, static_cast<double>(f.compaction_bytes));
  }
  return e;
}

}  // namespace flatbench::bench
