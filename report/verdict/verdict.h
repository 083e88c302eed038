#pragma once
// The go/no-go verdict: a pure function of parsed results and thresholds.
//
//   GO           the run is valid and every ratio check passes with its
//                bootstrap interval (interval.h) clear of its bound;
//   NO-GO        the run is valid and at least one check fails with its
//                interval clear of its bound, whatever the others show;
//   INCONCLUSIVE any validity gate fails, or no check fails clearly and
//                some check is within noise: its interval holds values on
//                both sides of its bound. Every ratio is still computed and
//                marked with its provisional pass/fail.
//
// Every read path of the candidate in the results (backends named
// "<candidate>+<path>", such as arena+pread or arena+cache) is judged by
// the same thresholds with itself as the candidate, in `variants`. The
// candidate itself (the mmap reader for the arena) is the seed's design and
// alone sets the outcome and so the exit code.
//
// Each hit check carries its device ceiling and the candidate's own
// ceiling (ceiling.h).
//
// Ratios use per-cell medians over the repetitions (cells.h). A check
// passes at its bound exactly; a relative tolerance of 1e-9 absorbs the
// rounding of the division.

#include <map>
#include <string>
#include <vector>

#include "report/interval.h"
#include "report/run_data.h"
#include "report/thresholds.h"
#include "report/verdict/ceiling.h"
#include "report/verdict/cells.h"
#include "report/verdict/gates.h"

namespace flatbench::report {

enum class Outcome { kGo, kNoGo, kInconclusive };

// "GO", "NO-GO", "INCONCLUSIVE".
const char* OutcomeName(Outcome outcome);
// The exit code of `flatbench report` and `gonogo`: the outcome's row of
// the exit contract (common/exit_codes.h).
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
  Ceiling ceiling;            // What a one-page format could reach here.
  // Fails with its interval clear of the bound.
  bool ClearlyFailed() const { return available && !passed && !within_noise; }
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
  // The candidate's other read paths, each judged with itself as the
  // candidate (their own `variants` empty), in name order. They never
  // change `outcome`.
  std::vector<Verdict> variants;

  bool Valid() const;
  std::vector<const Gate*> FailedGates() const;
  int FailedChecks() const;
  std::vector<const RatioCheck*> NoisyChecks() const;
  std::vector<const RatioCheck*> ClearlyFailedChecks() const;
  // Checks whose bound lies beyond their device ceiling.
  std::vector<const RatioCheck*> BeyondCeiling() const;
  // Checks whose measured ratio lies above their device ceiling's
  // interval.
  std::vector<const RatioCheck*> CeilingNotHeld() const;
};

// Whether `backend` is a read path of `candidate`: "<candidate>+<path>".
bool IsReadPathOf(const std::string& backend, const std::string& candidate);

// The candidate as the verdict names it: "arena (mmap)" for the arena's
// default reader, the backend name otherwise.
std::string CandidateLabel(const std::string& candidate);

// One line per judged read path, the candidate first: "arena (mmap):
// NO-GO, 3 of 21 checks fail clearly; ...". Lines end without a period.
std::vector<std::string> VerdictLines(const Verdict& verdict);

// Applies `thresholds` to `results`. Never fails: anything missing makes
// the run INCONCLUSIVE and is named in a gate.
Verdict ComputeVerdict(const ResultSet& results, const Thresholds& thresholds);

}  // namespace flatbench::report
