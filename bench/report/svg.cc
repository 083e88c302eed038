#include "bench/report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/report/format.h"

namespace flatbench::report {
namespace {

constexpr double kLeft = 80;
constexpr double kRight = 110;  // Room for the last rotated label.
constexpr double kTop = 40;
constexpr double kPlotHeight = 220;
constexpr double kLabelHeight = 90;
constexpr double kLegendHeight = 24;
constexpr double kBarWidth = 12;
constexpr double kGroupGap = 14;

const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                          "#8c564b", "#7f7f7f", "#17becf", "#bcbd22"};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A round axis maximum at or above `v`: 1, 2 or 5 times a power of ten.
double NiceCeil(double v) {
  if (!(v > 0)) return 1;
  double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= v) return m * p;
  }
  return 10 * p;
}

}  // namespace

std::string RenderSvg(const BarChart& chart, bool standalone) {
  const size_t ns = std::max<size_t>(chart.series.size(), 1);
  const double group_width = ns * kBarWidth + kGroupGap;
  const double plot_width =
      std::max(300.0, group_width * static_cast<double>(chart.groups.size()));
  const double width = kLeft + plot_width + kRight;
  const double height = kTop + kPlotHeight + kLabelHeight + kLegendHeight;
  double top = chart.threshold.value_or(0);
  for (const auto& s : chart.series) {
    for (double v : s.values) {
      if (std::isfinite(v)) top = std::max(top, v);
    }
  }
  top = NiceCeil(top * 1.05);
  auto y = [&](double v) { return kTop + kPlotHeight * (1 - v / top); };

  std::string o;
  o += "<svg ";
  if (standalone) o += "xmlns=\"http://www.w3.org/2000/svg\" ";
  o += "width=\"" + Num(width) + "\" height=\"" + Num(height) +
       "\" viewBox=\"0 0 " + Num(width) + " " + Num(height) +
       "\" role=\"img\" font-family=\"sans-serif\" "
       "font-size=\"11\">\n";
  o += "<title>" + HtmlEscape(chart.title) + "</title>\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o += "<text x=\"" + Num(width / 2) +
       "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\">" +
       HtmlEscape(chart.title) + "</text>\n";
  // Axis, gridlines and tick labels at fifths of the range.
  for (int i = 0; i <= 5; ++i) {
    double v = top * i / 5;
    o += "<line x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kLeft + plot_width) +
         "\" y1=\"" + Num(y(v)) + "\" y2=\"" + Num(y(v)) +
         "\" stroke=\"#dddddd\"/>\n";
    o += "<text x=\"" + Num(kLeft - 4) + "\" y=\"" + Num(y(v) + 4) +
         "\" text-anchor=\"end\">" + HtmlEscape(Short(v)) + "</text>\n";
  }
  o += "<text transform=\"translate(14," + Num(kTop + kPlotHeight / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + HtmlEscape(chart.y_label) +
       "</text>\n";
  for (size_t g = 0; g < chart.groups.size(); ++g) {
    double gx = kLeft + kGroupGap / 2 + g * group_width;
    for (size_t s = 0; s < chart.series.size(); ++s) {
      const auto& values = chart.series[s].values;
      double v = g < values.size() ? values[g] : NAN;
      if (!std::isfinite(v)) continue;
      std::string color = kPalette[s % std::size(kPalette)];
      if (chart.threshold && chart.series.size() == 1) {
        bool pass = chart.higher_is_better ? v >= *chart.threshold
                                           : v <= *chart.threshold;
        color = pass ? "#2ca02c" : "#d62728";
      }
      double bx = gx + s * kBarWidth;
      o += "<rect x=\"" + Num(bx) + "\" y=\"" + Num(y(v)) + "\" width=\"" +
           Num(kBarWidth - 1) + "\" height=\"" + Num(y(0) - y(v)) +
           "\" fill=\"" + color + "\"><title>" +
           HtmlEscape(chart.series[s].name + " " + chart.groups[g] + ": " +
                      Sig(v, 4)) +
           "</title></rect>\n";
    }
    double lx = gx + ns * kBarWidth / 2;
    double ly = kTop + kPlotHeight + 8;
    o += "<text transform=\"translate(" + Num(lx) + "," + Num(ly) +
         ") rotate(45)\" text-anchor=\"start\" font-size=\"10\">" +
         HtmlEscape(chart.groups[g]) + "</text>\n";
  }
  o += "<line x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kLeft + plot_width) +
       "\" y1=\"" + Num(y(0)) + "\" y2=\"" + Num(y(0)) +
       "\" stroke=\"#333333\"/>\n";
  if (chart.threshold) {
    double ty = y(*chart.threshold);
    o += "<line x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kLeft + plot_width) +
         "\" y1=\"" + Num(ty) + "\" y2=\"" + Num(ty) +
         "\" stroke=\"#000000\" stroke-dasharray=\"6 3\"/>\n";
    o += "<text x=\"" + Num(kLeft + plot_width) + "\" y=\"" + Num(ty - 4) +
         "\" text-anchor=\"end\">" + HtmlEscape(chart.threshold_label) +
         "</text>\n";
  }
  double lx = kLeft;
  double ly = height - 8;
  for (size_t s = 0; s < chart.series.size(); ++s) {
    if (chart.threshold && chart.series.size() == 1) break;
    o += "<rect x=\"" + Num(lx) + "\" y=\"" + Num(ly - 9) +
         "\" width=\"10\" height=\"10\" fill=\"" +
         kPalette[s % std::size(kPalette)] + "\"/>\n";
    o += "<text x=\"" + Num(lx + 14) + "\" y=\"" + Num(ly) + "\">" +
         HtmlEscape(chart.series[s].name) + "</text>\n";
    lx += 24 + 7 * static_cast<double>(chart.series[s].name.size());
  }
  o += "</svg>\n";
  return o;
}

}  // namespace flatbench::report
