#pragma once
// A gated ratio's trend over dataset size, extrapolated to full scale.
//
// The fit is ln(ratio) = a + b * log10(pairs), by least squares weighted
// with each size's own uncertainty: the half-width of its 95% bootstrap
// interval (interval.h) in log space, divided by 1.96, and never below 1%
// (a single repetition gives a zero-width interval). The extrapolated
// interval propagates those uncertainties through the fit's covariance;
// with three or more sizes, when the points scatter about the line more
// than their intervals allow (reduced chi-square above 1), the covariance
// is widened by that factor. A ratio then moves by the factor 10^b per
// decade of pairs.

#include <vector>

#include "common/status.h"
#include "report/interval.h"

namespace flatbench::report {

struct TrendPoint {
  double pairs = 0;   // Dataset pairs, account + storage.
  double ratio = 0;   // The check's ratio of medians at that size.
  Interval interval;  // Its 95% bootstrap interval.
};

struct Trend {
  int points = 0;
  double per_decade = 1;    // Factor the ratio moves by per 10x pairs.
  double predicted = 0;     // At the target pairs.
  Interval interval;        // 95%, see above.
  double reduced_chi2 = 0;  // Scatter against the intervals (n >= 3).
  bool widened = false;     // The interval was widened by the scatter.
};

// Fits `points` (at least two distinct sizes, positive ratios) and
// extrapolates to `target_pairs`. kUsage if the points cannot be fitted.
Result<Trend> FitTrend(const std::vector<TrendPoint>& points,
                       double target_pairs);

}  // namespace flatbench::report
