#pragma once
// The validity gates: what a run must show before its ratios count. Each
// gate says whether it passed and the figure it was judged on, so an
// INCONCLUSIVE report names exactly what to fix.

#include <map>
#include <string>
#include <vector>

#include "report/run_data.h"
#include "report/thresholds.h"
#include "report/verdict/cells.h"

namespace flatbench::report {

// One validity gate and the figure it was judged on.
struct Gate {
  std::string name;
  bool passed = false;
  std::string figure;                // What was measured, against what bound.
  std::vector<std::string> details;  // Offending cells or passes, capped.
};

// Every gate, in report order: gate scale (named, counted and sized),
// release build, asserts off, host hardware threads, required cells
// present, repetitions, eviction verified, concurrency, storage
// uniformity, device drift, sanity checks passed, passes completed. Gates
// look at the gate mode and the backends the thresholds compare.
std::vector<Gate> ComputeGates(const ResultSet& results, const Thresholds& t,
                               const std::map<CellKey, CellStats>& cells);

// True if `backend` is the candidate or a baseline of some check.
bool InVerdict(const Thresholds& t, const std::string& backend);

// Every gate-mode read cell the verdict needs: backend x table x kind x
// threads.
std::vector<CellKey> RequiredCells(const Thresholds& t);

// The gate-mode read and device passes of the backends the verdict
// compares (scan and startup passes are never gated).
std::vector<const Pass*> GatePasses(const ResultSet& r, const Thresholds& t);

// Gate detail lists name the first kMaxDetails offenders, then a count.
inline constexpr size_t kMaxDetails = 12;
void AddDetail(Gate* gate, size_t* count, const std::string& what);
void EndDetails(Gate* gate, size_t count);

// gates_storage.cc: the gates on how the reads met the storage.
Gate ConcurrencyGate(const ResultSet& r, const Thresholds& t,
                     const std::vector<const Pass*>& passes);
Gate UniformityGate(const Thresholds& t,
                    const std::map<CellKey, CellStats>& cells);
// Also across each interruption of a resumed run (results::
// kInterruptedBeforeS): a backend's device rates just before and just after
// the gap, and the gap itself against results::kMaxInterruptionSeconds.
Gate DriftGate(const ResultSet& r, const Thresholds& t,
               const std::map<CellKey, CellStats>& cells);

// A backend's own-file device rate for one table and thread count in the
// gate mode: the median over repetitions of its device cells, or NaN.
double DeviceRate(const std::map<CellKey, CellStats>& cells,
                  const std::string& backend, const std::string& table,
                  const std::string& mode, int threads);

}  // namespace flatbench::report
