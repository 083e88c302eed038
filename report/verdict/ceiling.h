#pragma once
// Each hit check's two ceilings (RESEARCH.md §7, The ceiling of a check):
// the device ceiling, the ratio a one-page format would reach on this
// device, so a reader can tell a bound no one-page format could meet here
// from one the format or its read path missed; and the arena's own
// ceiling, what this read path's CPU time per read allows on this device.
//
// Pages per hit. A one-page format reads one page per hit, but a pass of r
// reads over a table of P pages touches only P (1 - e^(-r/P)) distinct
// pages (page_share.h; P is the table's file pages as the candidate's
// device cell counts them, r the pass's distinct keys): n1 = that over r,
// never more than the pages per hit the candidate measured (max of
// major_faults_per_read and bytes_read_per_read / 4096, when either was
// recorded).
//
// At T reader threads, one read in flight per thread, the candidate's own
// device cell measures D(T) 4 KiB O_DIRECT reads/s: one such read waits
// T / D(T) seconds. Each device read is a pread of one page of the same
// files, so that wait already holds a read's system call.
//
//   device ceiling      R*(T) = T / (n1 T / D(T)) = D(T) / n1
//   the arena's own     R*(T) = T / (n1 T / D(T) + c)
//
// and each ceiling is its R*(T) over the baseline's measured hit reads/s
// at the same T. c is the candidate's CPU time per read: the smaller of
// its measured cpu_ns_per_read and its own time per read less its
// measured storage waits (each request one full device wait), clamped at
// 0. A format that spends less CPU per read than this arena comes closer
// to the device ceiling, so only the device ceiling bounds every one-page
// format, and only it marks a check "beyond". Miss checks have no device
// ceiling: a one-page format can answer a miss from memory.
//
// The verdict compares the device ceiling with the measured ratio: a ratio
// above its interval means the ceiling did not hold for that check (the
// device served the pass faster than its device cell, say), and such a
// check is never marked beyond.

#include <map>
#include <string>

#include "report/interval.h"
#include "report/run_data.h"
#include "report/thresholds.h"
#include "report/verdict/cells.h"

namespace flatbench::report {

// One ceiling's figures for a check.
struct CeilingFigure {
  double rate = 0;    // R*(T): median over the candidate's repetitions.
  double ratio = 0;   // median R* / median baseline reads/s.
  Interval interval;  // 95% bootstrap interval of `ratio`.
};

struct Ceiling {
  bool available = false;
  std::string why_not;        // When !available: why there is no figure.
  double device_rate = 0;     // D(T): median own-file 4 KiB reads/s.
  double cpu_per_read_s = 0;  // c: median over the candidate's repetitions.
  double table_pages = 0;     // P: the table's file pages (device cell).
  double reads_per_pass = 0;  // r: the candidate's distinct keys per pass.
  double model_pages = 0;     // P (1 - e^(-r/P)) / r.
  double measured_pages = 0;  // The candidate's pages per hit; NaN if absent.
  double pages_per_hit = 0;   // n1: model_pages, at most measured_pages.
  CeilingFigure device;       // D(T) / n1: no CPU term.
  CeilingFigure own;          // T / (n1 T / D(T) + c): this arena's CPU too.
  // The bound lies above the device ceiling's interval: no one-page format
  // meets the check on this device. The verdict clears it on a check that
  // passes anyway and on one whose device ceiling did not hold.
  bool beyond = false;
  // False when the measured ratio lies above the device ceiling's interval
  // (set by the verdict): the ceiling is then no limit for that check.
  bool held = true;
  // In every repetition the own ceiling is the measured rate itself: n1 is
  // the pages it measured and c its time per read less their waits (below
  // its measured CPU time). It runs at its own ceiling by construction, so
  // the report says so rather than repeat the measured ratio as a ceiling.
  bool own_is_measured = false;
};

// The ceilings of the check `threshold` between the candidate's and the
// baseline's cells. The device rate is the candidate's own device cell, or
// when it has none that of the backend it is a read path of (the part of
// its name before '+', which reads the same files).
Ceiling ComputeCeiling(const std::map<CellKey, CellStats>& cells,
                       const RatioThreshold& threshold,
                       const CellKey& candidate, const CellKey& baseline);

// "device ceiling 1.05 [1.01, 1.09]", or "no device ceiling (...)".
std::string CeilingSummary(const Ceiling& ceiling);
// "1.05 [1.01, 1.09]": a figure with its interval.
std::string CeilingFigureText(const CeilingFigure& figure);

// The own ceiling's cell where it is the measured ratio (own_is_measured).
inline constexpr char kOwnIsMeasured[] = "= the ratio (no headroom)";

// The own ceiling in words: "this read path's own ceiling, with its 4.8 µs
// of CPU per read: 0.982 [0.645, 1.107]", or, where it is the measured
// ratio, that the read path runs at it.
std::string OwnCeilingText(const Ceiling& c);

// The candidate's 4 KiB pages per read in `cell`: max of major faults per
// read and bytes read per read / 4096, NaN when neither was recorded.
double MeasuredPagesPerRead(const CellStats& cell);

}  // namespace flatbench::report
