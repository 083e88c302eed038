#pragma once
// The go/no-go verdict: a pure function of parsed results and thresholds.
//
//   GO           the run is valid and every ratio check passes;
//   NO-GO        the run is valid and any ratio check fails;
//   INCONCLUSIVE any validity gate fails, or a check is within noise: the
//                bootstrap interval of its ratio (interval.h) holds values
//                on both sides of its bound. Every ratio is still computed
//                and marked with its provisional pass/fail.
//
// Ratios use per-cell medians over the repetitions (cells.h). A check
// passes at its bound exactly; a relative tolerance of 1e-9 absorbs the
// rounding of the division.

#include <map>
#include <string>
#include <vector>

#include "report/cells.h"
#include "report/gates.h"
#include "report/interval.h"
#include "report/results.h"
#include "report/thresholds.h"

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
  Interval interval;          // 95% bootstrap interval of `ratio`.
  bool passed = false;        // Provisional when the run is not valid.
  bool within_noise = false;  // The interval contains the bound.
  // Distance from the bound in the passing direction, relative to it
  // (negative when failing); -inf when unavailable.
  double Margin() const;
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
  std::vector<const RatioCheck*> NoisyChecks() const;
};

// Applies `thresholds` to `results`. Never fails: anything missing makes
// the run INCONCLUSIVE and is named in a gate.
Verdict ComputeVerdict(const ResultSet& results, const Thresholds& thresholds);

}  // namespace flatbench::report
