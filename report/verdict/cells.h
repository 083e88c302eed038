#pragma once
// Per-cell summaries: the median, minimum and maximum of each counter over
// the repetitions of one cell. The verdict works on medians; the report
// shows the min-max spread beside them.

#include <cstddef>
#include <map>
#include <string_view>
#include <vector>

#include "report/run_data.h"

namespace flatbench::report {

// Median and spread of one counter over a cell's passes. With no finite
// sample, every figure is NaN and `n` is 0.
struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
  size_t n = 0;
};

// Median of `values` (the mean of the middle two for an even count), NaN if
// empty. NaN inputs are skipped.
Spread Summarize(std::vector<double> values);

struct CellStats {
  CellKey cell;
  int repetitions = 0;  // Distinct passes without an error.
  int errors = 0;       // Passes that reported error_occurred.
  // Per pass without an error, in repetition order.
  std::vector<int> reps;
  std::vector<double> rates;  // reads_per_s.
  // threads / reads_per_s per pass, in seconds: the mean time one reader
  // thread spends per read (the miss-cost metric; lower is better).
  std::vector<double> costs;
  Spread reads_per_s;
  Spread cost_per_read_s;
  // Cold hits and batches: the device-side efficiency (efficiency.h) per
  // pass; all NaN where the passes carry no device rate.
  Spread device_side;
  // Every counter's spread, by counter name.
  std::map<std::string_view, Spread> counters;

  // The counter's spread; all NaN if no pass carried it.
  Spread Of(const results::Counter& counter) const;
};

// Groups passes by cell and summarizes each.
std::map<CellKey, CellStats> SummarizeCells(const std::vector<Pass>& passes);

// The cell's summary, or nullptr if the cell is absent or every pass of it
// failed: a cell without a good repetition has no figure to compare, gate
// or show, so every reader skips it alike.
const CellStats* MeasuredCell(const std::map<CellKey, CellStats>& cells,
                              const CellKey& key);

}  // namespace flatbench::report
