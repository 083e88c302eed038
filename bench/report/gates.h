#pragma once
// The validity gates: what a run must show before its ratios count. Each
// gate says whether it passed and the figure it was judged on, so an
// INCONCLUSIVE report names exactly what to fix.

#include <map>
#include <string>
#include <vector>

#include "bench/report/cells.h"
#include "bench/report/results.h"
#include "bench/report/thresholds.h"

namespace flatbench::report {

// One validity gate and the figure it was judged on.
struct Gate {
  std::string name;
  bool passed = false;
  std::string figure;                // What was measured, against what bound.
  std::vector<std::string> details;  // Offending cells or passes, capped.
};

// Every gate, in report order: gate scale, release build, asserts off,
// required cells present, repetitions, eviction verified, full concurrency,
// sanity checks passed, measured reads returned what they should, passes
// completed. Gates look at the gate mode and the backends the thresholds
// compare (never the device row).
std::vector<Gate> ComputeGates(const ResultSet& results, const Thresholds& t,
                               const std::map<CellKey, CellStats>& cells);

// True if `backend` is the candidate or a baseline of some check.
bool InVerdict(const Thresholds& t, const std::string& backend);

// Every gate-mode cell the verdict needs: backend x table x kind x threads.
std::vector<CellKey> RequiredCells(const Thresholds& t);

}  // namespace flatbench::report
