#pragma once
// Internal to the SVG renderer (svg.cc): the drawing pieces both chart
// forms share, defined in svg_draw.cc. Not for use outside document/.

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/document/svg.h"

namespace flatbench::report::svg_detail {

inline constexpr double kFont = 11;       // Ticks, legend, axis titles.
inline constexpr double kLabelFont = 10;  // Group labels.
inline constexpr double kMargin = 12;
inline constexpr double kLeft = 80;  // Row and axis titles, tick labels.
inline constexpr double kTitleHeight = 30;
inline constexpr double kLegendRow = 18;
inline constexpr double kPlotHeight = 220;   // A single chart's plot.
inline constexpr double kPanelHeight = 170;  // A grid panel's plot.
inline constexpr double kPanelGap = 20;
inline constexpr double kColumnHead = 20;
inline constexpr double kRowGap = 22;
inline constexpr double kGroupGap = 12;
inline constexpr double kMinBar = 5;
inline constexpr double kMaxBar = 28;
inline constexpr double kLineHeight = 12;
inline constexpr double kSin45 = 0.7072;

inline constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c",
                                           "#9467bd", "#8c564b", "#7f7f7f",
                                           "#17becf", "#bcbd22"};
inline constexpr char kPass[] = "#2ca02c";
inline constexpr char kFail[] = "#d62728";
inline constexpr char kNoise[] = "#e6a700";
// Markers (a ceiling, a device rate): drawn under the whiskers, in a
// colour of their own, so a whisker's cap on the same value still shows.
inline constexpr char kMarker[] = "#6a3d9a";
// A judged chart's series style swatch colour in the legend.
inline constexpr char kNeutral[] = "#8c8c8c";

// An SVG <text> element and a <line>, coordinates to a tenth of a px.
std::string Text(double x, double y, const std::string& cls,
                 const std::string& attrs, const std::string& text);
std::string Line(double x1, double x2, double y1, double y2,
                 const std::string& attrs);
// A round axis maximum at or above `v` whose fifths are round too: 1, 1.5,
// 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten.
double NiceCeil(double v);
// v[i], or NaN past its end.
double At(const std::vector<double>& v, size_t i);

// The plot area of one chart or panel.
struct Frame {
  double x = 0, y = 0, w = 0, h = 0;
};

// Maps values to a fraction of the plot's height, linear from 0 or in
// decades, over every chart drawn on it.
class Axis {
 public:
  Axis(const std::vector<const BarChart*>& charts, bool log,
       std::optional<double> threshold);
  double Y(const Frame& f, double v) const {
    double t = log_ ? (std::log10(std::max(v, low_)) - std::log10(low_)) /
                          (std::log10(top_) - std::log10(low_))
                    : v / top_;
    return f.y + f.h * (1 - std::clamp(t, 0.0, 1.0));
  }
  double Base(const Frame& f) const { return Y(f, log_ ? low_ : 0); }
  // Grid values, each with whether it is labelled. On a log axis: every
  // decade, and 2x and 5x too (labelled when the axis spans at most three
  // decades, so values between decades can be read).
  std::vector<std::pair<double, bool>> Ticks() const {
    std::vector<std::pair<double, bool>> out;
    if (!log_) {
      for (int i = 0; i <= 5; ++i) out.push_back({top_ * i / 5, true});
      return out;
    }
    const bool fine = top_ / low_ <= 1000.5;
    for (double d = low_; d <= top_ * 1.0001; d *= 10) {
      out.push_back({d, true});
      for (double m : {2.0, 5.0}) {
        if (d * m < top_ * 0.9999) out.push_back({d * m, fine});
      }
    }
    return out;
  }

 private:
  bool log_;
  double low_ = 0;
  double top_ = 1;
};

// The bar's colour: by series, or with a threshold and one series (or
// BarChart::judge) by pass (green), fail (red) or, with color_noise,
// within noise (amber).
std::string BarColor(const BarChart& chart, size_t s, double v, double lo,
                     double hi);
// Whether bars are coloured by outcome rather than by series.
bool JudgedColors(const BarChart& chart);
// The indices of the series that have a value somewhere in `charts`.
std::vector<size_t> VisibleSeries(const std::vector<const BarChart*>& charts);
// A judged chart's series `rank` (its place among the visible series) as
// SVG attributes of its bar: a fill style of its own and `color`.
std::string SeriesStyle(size_t rank, const std::string& color);

// How a chart's group labels are set under its groups: flat on one or two
// lines when each fits its group's width, else turned 45 degrees.
struct Labels {
  bool rotated = false;
  std::vector<std::vector<std::string>> lines;  // Flat: per group.
  double height = 0;                            // Below the plot.
  double overflow = 0;                          // Beyond the plot's right edge.
};

Labels LayOutLabels(const std::vector<std::string>& groups, double group_width);
void DrawLabels(const std::vector<std::string>& groups, const Labels& l,
                const Frame& f, std::string* o);
// Horizontal grid lines at the axis's ticks, labelled when `tick_labels`.
void DrawGridLines(const Axis& axis, const Frame& f, bool tick_labels,
                   std::string* o);
// The bars of the `visible` series of `c` (groups side by side, series
// within each group). Each bar's tooltip names `where` (the panel),
// series, group and values; a group without any bar says "no data", and
// a visible series without a bar in a group that has others "n/a".
void DrawBars(const BarChart& c, const Axis& axis, const Frame& f,
              const std::string& where, const std::string& marker_label,
              const std::vector<size_t>& visible, std::string* o);

// Legend entries, wrapped into rows within a width.
struct LegendItem {
  std::string swatch;  // A colour for a square, or empty for the marker tick.
  std::string text;
  std::string style;  // When set: the square's attributes (SeriesStyle).
};

double ItemWidth(const LegendItem& it);
int LegendRows(const std::vector<LegendItem>& items, double width);
void DrawLegend(const std::vector<LegendItem>& items, double x0, double y0,
                double width, std::string* o);

// The <svg> element's opening, its title and white background.
std::string Open(double width, double height, const std::string& title,
                 bool standalone);
// Text turned 90 degrees anticlockwise, centred on (x, y).
std::string VerticalText(double x, double y, const std::string& cls,
                         const std::string& attrs, const std::string& text);
// The value axis's title: "ratio", "reads/s (log scale)"; its lines.
std::vector<std::string> AxisTitle(const std::string& label, bool log);
// The axis title's lines drawn along the axis, the last nearest the plot
// (ending at `x`), centred on `y`.
std::string DrawAxisTitle(const std::vector<std::string>& lines, double x,
                          double y);

}  // namespace flatbench::report::svg_detail
