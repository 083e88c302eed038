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
};

// Renders `chart` as an <svg> element (no XML prolog). `standalone` adds
// the SVG namespace declaration a separate .svg file needs; HTML5 inline
// SVG does without it, which keeps report.html free of any URL.
std::string RenderSvg(const BarChart& chart, bool standalone);

}  // namespace flatbench::report
