#pragma once
// A ratio against dataset size as self-contained SVG text: both axes in
// decades, each measured size a point with its interval, the fitted trend
// as a line (dashed beyond the largest size), the extrapolated value at
// full scale with its interval as a hollow point, and the check's bound
// as a dashed horizontal line. No scripts, no external references, every
// label escaped.

#include <string>
#include <vector>

namespace flatbench::report {

struct TrendSeries {
  std::string name;
  std::vector<double> x, y, low, high;  // Measured: pairs, ratio, interval.
  bool fitted = false;
  // The fit: y = predicted x per_decade^(log10(x) - log10(target_x)).
  double predicted = 0, predicted_low = 0, predicted_high = 0;
  double per_decade = 1;
};

struct TrendChart {
  std::string title;
  std::string y_label;
  double target_x = 0;  // Full scale, pairs.
  double bound = 0;
  std::vector<TrendSeries> series;
};

// `standalone` adds the SVG namespace declaration a separate .svg file
// needs; inline SVG in HTML5 does without it.
std::string RenderTrendSvg(const TrendChart& chart, bool standalone);

}  // namespace flatbench::report
