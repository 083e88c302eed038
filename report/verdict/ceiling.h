#pragma once
// Each hit check's physical ceiling: the ratio an arena making exactly one
// 4 KiB storage read per hit would reach on this device, so a reader can
// tell a bound no one-page format could meet here from one the format or
// its read path missed (RESEARCH.md §7, The ceiling of a check).
//
// At T reader threads, one read in flight per thread, the candidate's own
// device cell measures D(T) 4 KiB O_DIRECT reads/s: one such read waits
// T / D(T) seconds. A one-page arena spends that wait plus its CPU time per
// read c on each hit, so it reaches
//
//   R*(T) = T / (T / D(T) + c)  (never above D(T)),
//
// and the ceiling is R*(T) over the baseline's measured hit reads/s at the
// same T. c is the candidate's own time per read less its storage waits,
// each request counted as one full device wait and each 4 KiB read counted
// as a request (max of major_faults_per_read and bytes_read_per_read /
// 4096), clamped at 0: overstating the waits understates c, so the ceiling
// errs high and "beyond" is never claimed too early. Miss checks have no
// device ceiling: a one-page format can answer a miss from memory.

#include <map>
#include <string>

#include "report/interval.h"
#include "report/results.h"
#include "report/thresholds.h"
#include "report/verdict/cells.h"

namespace flatbench::report {

struct Ceiling {
  bool available = false;
  std::string why_not;        // When !available: why there is no figure.
  double device_rate = 0;     // D(T): median own-file 4 KiB reads/s.
  double cpu_per_read_s = 0;  // c: median over the candidate's repetitions.
  double rate = 0;            // R*(T): median over repetitions.
  double ratio = 0;           // median R* / median baseline reads/s.
  Interval interval;          // 95% bootstrap interval of `ratio`.
  // The bound lies above the interval's high end: no one-page format
  // meets the check on this device. The verdict clears it on a check that
  // passes anyway (its read path made fewer than one read per hit).
  bool beyond = false;
};

// The ceiling of the check `threshold` between the candidate's and the
// baseline's cells. The device rate is the candidate's own device cell, or
// when it has none that of the backend it is a read path of (the part of
// its name before '+', which reads the same files).
Ceiling ComputeCeiling(const std::map<CellKey, CellStats>& cells,
                       const RatioThreshold& threshold,
                       const CellKey& candidate, const CellKey& baseline);

// "ceiling 1.05 [1.01, 1.09]", or "no device ceiling (...)".
std::string CeilingSummary(const Ceiling& ceiling);

}  // namespace flatbench::report
