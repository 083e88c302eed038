#pragma once
// The go/no-go verdict: a pure function of parsed results and thresholds.
//
//   GO           the run is valid and every ratio check passes;
//   NO-GO        the run is valid and any ratio check fails;
//   INCONCLUSIVE any validity gate fails. Every ratio is still computed and
//                marked with its provisional pass/fail.
//
// Ratios use per-cell medians over the repetitions (cells.h). A check
// passes at its bound exactly; a relative tolerance of 1e-9 absorbs the
// rounding of the division.

#include <map>
#include <string>
#include <vector>

#include "bench/report/cells.h"
#include "bench/report/gates.h"
#include "bench/report/results.h"
#include "bench/report/thresholds.h"

namespace flatbench::report {

enum class Outcome { kGo, kNoGo, kInconclusive };

// "GO", "NO-GO", "INCONCLUSIVE".
const char* OutcomeName(Outcome outcome);
// The exit code of `flatbench report`: 0, 1 or 2.
int OutcomeExitCode(Outcome outcome);

// One threshold applied to one table x kind x threads cell.
struct RatioCheck {
  RatioThreshold threshold;    // A copy of the threshold applied.
  CellKey candidate;           // The candidate's cell (gate mode).
  CellKey baseline;            // The same cell of the baseline backend.
  bool available = false;      // Both cells present with at least one pass.
  double candidate_value = 0;  // Median reads/s, or median cost (s/read).
  double baseline_value = 0;
  double ratio = 0;
  bool passed = false;  // Provisional when the run is not valid.
};

struct Verdict {
  Outcome outcome = Outcome::kInconclusive;
  // What the ratios alone say (GO or NO-GO), valid run or not.
  Outcome provisional = Outcome::kInconclusive;
  std::string reason;  // One paragraph.
  std::vector<Gate> gates;
  std::vector<RatioCheck> checks;
  std::map<CellKey, CellStats> cells;  // Every cell of every mode.
  Thresholds thresholds;

  bool Valid() const;
  std::vector<const Gate*> FailedGates() const;
  int FailedChecks() const;
};

// Applies `thresholds` to `results`. Never fails: anything missing makes
// the run INCONCLUSIVE and is named in a gate.
Verdict ComputeVerdict(const ResultSet& results, const Thresholds& thresholds);

// The device row's cell for `threads` (backend device, table raw, kind hit,
// mode cold), or nullptr.
const CellStats* DeviceCell(const std::map<CellKey, CellStats>& cells,
                            int threads);

// True if the kind is a miss kind (miss-absent, miss-live).
bool IsMissKind(const std::string& kind);

}  // namespace flatbench::report
