#pragma once
// Grouped bar charts as self-contained SVG text: no scripts, no external
// fonts or links, every label escaped.
//
// Layout: a chart is drawn at least kChartWidth wide (the report page's
// width), its legend under the title and wrapped to that width, so no
// legend entry is ever cut off. The legend names only the series with a
// bar somewhere in the chart (the others take no room); a series without
// a bar in a group where others have one is marked "n/a" in its place; group
// labels lie flat (on one or two lines) when they fit their group and are
// turned 45 degrees, with room reserved for them, when they do not. Text widths
// are estimated at kCharEm times the font size per character, a bound on
// sans-serif fonts' average.

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
  // The value axis's title; a '\n' breaks it into lines (each drawn
  // along the axis), e.g. "arena ÷ rocksdb reads/s\nhigher is better ↑".
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
  // With a threshold: every series' bars are coloured by their outcome
  // against it (pass, within noise when color_noise, fail), and the
  // series are told apart by their fill's style (solid, pale, striped,
  // pale and dashed), which the legend shows in grey.
  bool judge = false;
};

// Small multiples: panels of bars on one shared value axis with one legend,
// in rows (e.g. tables) and columns (e.g. thread counts), so any two bars
// of the figure compare at a glance.
struct BarGrid {
  std::string title;
  std::string y_label;
  std::vector<std::string> row_labels;     // One per row of panels.
  std::vector<std::string> column_labels;  // One per column.
  // Legend names; panels' series are in this order (series i of every
  // panel is drawn in colour i).
  std::vector<std::string> series_names;
  // panels[row][column]: groups and series; the panels' titles, threshold
  // and axis settings are unused (the grid's own apply). A panel without
  // any value says "no data"; a series without a value in any panel is
  // left out of the legend and the panels.
  std::vector<std::vector<BarChart>> panels;
  bool log_scale = false;
  std::string marker_label;  // As BarChart::marker_label.
};

// The width charts are laid out to, in px (1280 px window, less margins).
inline constexpr double kChartWidth = 1160;
// Estimated text width per character, in ems.
inline constexpr double kCharEm = 0.62;

// A coordinate or length as SVG text, to a tenth of a px: "12.5".
std::string SvgNumber(double v);
// The estimated width in px of UTF-8 `text` at `font` px (kCharEm).
double SvgTextWidth(const std::string& text, double font);

// Renders `chart` as an <svg> element (no XML prolog). `standalone` adds
// the SVG namespace declaration a separate .svg file needs; HTML5 inline
// SVG does without it, which keeps report.html free of any URL.
std::string RenderSvg(const BarChart& chart, bool standalone);
std::string RenderSvg(const BarGrid& grid, bool standalone);

}  // namespace flatbench::report
