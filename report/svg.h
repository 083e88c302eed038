#pragma once
// Grouped bar charts as self-contained SVG text: no scripts, no external
// fonts or links, every label escaped.

#include <optional>
#include <string>
#include <vector>

namespace flatbench::report {

struct BarSeries {
  std::string name;
  std::vector<double> values;  // One per group; NaN draws no bar.
  // Optional, one per group or empty: an error bar from low to high.
  std::vector<double> low;
  std::vector<double> high;
  // Optional, one per group or empty: a black tick across the bar at this
  // value (NaN draws none), e.g. the limit the bar is measured against.
  std::vector<double> marker;
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> groups;  // x-axis labels.
  std::vector<BarSeries> series;    // Bars within each group.
  // A dashed horizontal line (a threshold). With one series, bars on the
  // passing side are green and the others red.
  std::optional<double> threshold;
  std::string threshold_label;
  bool higher_is_better = true;
  // A logarithmic value axis (decades), for values spanning magnitudes.
  bool log_scale = false;
  // Legend text for the series' markers; empty: no legend entry.
  std::string marker_label;
  // With one series and a threshold: bars whose error bar straddles the
  // threshold are amber ("within noise") instead of green or red.
  bool color_noise = false;
};

// Renders `chart` as an <svg> element (no XML prolog). `standalone` adds
// the SVG namespace declaration a separate .svg file needs; HTML5 inline
// SVG does without it, which keeps report.html free of any URL.
std::string RenderSvg(const BarChart& chart, bool standalone);

}  // namespace flatbench::report
