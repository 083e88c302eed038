#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/format.h"

namespace flatbench::report {
namespace {

constexpr double kLeft = 80;
constexpr double kRight = 110;  // Room for the last rotated label.
constexpr double kTop = 40;
constexpr double kPlotHeight = 220;
constexpr double kLabelHeight = 90;
constexpr double kLegendHeight = 24;
constexpr double kBarWidth = 14;
constexpr double kGroupGap = 18;

const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                          "#8c564b", "#7f7f7f", "#17becf", "#bcbd22"};
const char kPass[] = "#2ca02c";
const char kFail[] = "#d62728";
const char kNoise[] = "#e6a700";

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// A round axis maximum at or above `v` whose fifths are round too: 1, 1.5,
// 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten. Finer than 1-2-5, so a
// ratio of 2.1 gets an axis to 2.5, not 5.
double NiceCeil(double v) {
  if (!(v > 0)) return 1;
  double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
    if (m * p >= v) return m * p;
  }
  return 10 * p;
}

double At(const std::vector<double>& v, size_t i) {
  return i < v.size() ? v[i] : NAN;
}

// Maps values to plot y coordinates, linear from 0 or in decades.
class Axis {
 public:
  explicit Axis(const BarChart& c) : log_(c.log_scale) {
    double lo = INFINITY, hi = c.threshold.value_or(0);
    if (c.threshold) lo = *c.threshold;
    for (const auto& s : c.series) {
      for (const auto* vec : {&s.values, &s.high, &s.marker, &s.low}) {
        for (double v : *vec) {
          if (!std::isfinite(v) || (log_ && v <= 0)) continue;
          hi = std::max(hi, v);
          lo = std::min(lo, v);
        }
      }
    }
    if (log_) {
      if (!std::isfinite(lo)) lo = 1;
      if (!(hi > 0)) hi = 10;
      low_ = std::pow(10, std::floor(std::log10(lo)));
      top_ = std::pow(10, std::ceil(std::log10(hi * 1.05)));
      if (top_ <= low_) top_ = low_ * 10;
    } else {
      top_ = NiceCeil(hi * 1.05);
    }
  }
  double Y(double v) const {
    double f = log_ ? (std::log10(std::max(v, low_)) - std::log10(low_)) /
                          (std::log10(top_) - std::log10(low_))
                    : v / top_;
    return kTop + kPlotHeight * (1 - std::clamp(f, 0.0, 1.0));
  }
  double Base() const { return Y(log_ ? low_ : 0); }
  std::vector<double> Ticks() const {
    std::vector<double> out;
    if (log_) {
      for (double v = low_; v <= top_ * 1.0001; v *= 10) out.push_back(v);
    } else {
      for (int i = 0; i <= 5; ++i) out.push_back(top_ * i / 5);
    }
    return out;
  }

 private:
  bool log_;
  double low_ = 0;
  double top_ = 1;
};

std::string Line(double x1, double x2, double y1, double y2,
                 const std::string& attrs) {
  return "<line x1=\"" + Num(x1) + "\" x2=\"" + Num(x2) + "\" y1=\"" + Num(y1) +
         "\" y2=\"" + Num(y2) + "\" " + attrs + "/>\n";
}

std::string BarColor(const BarChart& chart, size_t s, double v, double lo,
                     double hi) {
  if (!chart.threshold || chart.series.size() != 1) {
    return kPalette[s % std::size(kPalette)];
  }
  double t = *chart.threshold;
  if (chart.color_noise && lo < t && t < hi) return kNoise;
  bool pass = chart.higher_is_better ? v >= t : v <= t;
  return pass ? kPass : kFail;
}

}  // namespace

std::string RenderSvg(const BarChart& chart, bool standalone) {
  const size_t ns = std::max<size_t>(chart.series.size(), 1);
  const double group_width = ns * kBarWidth + kGroupGap;
  const double plot_width =
      std::max(300.0, group_width * static_cast<double>(chart.groups.size()));
  const double width = kLeft + plot_width + kRight;
  const double height = kTop + kPlotHeight + kLabelHeight + kLegendHeight;
  const Axis axis(chart);

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
  for (double v : axis.Ticks()) {
    o += Line(kLeft, kLeft + plot_width, axis.Y(v), axis.Y(v),
              "stroke=\"#dddddd\"");
    o += "<text x=\"" + Num(kLeft - 4) + "\" y=\"" + Num(axis.Y(v) + 4) +
         "\" text-anchor=\"end\">" + HtmlEscape(Short(v)) + "</text>\n";
  }
  std::string y_label = chart.y_label + (chart.log_scale ? " (log scale)" : "");
  o += "<text transform=\"translate(14," + Num(kTop + kPlotHeight / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + HtmlEscape(y_label) +
       "</text>\n";
  for (size_t g = 0; g < chart.groups.size(); ++g) {
    double gx = kLeft + kGroupGap / 2 + g * group_width;
    for (size_t s = 0; s < chart.series.size(); ++s) {
      const BarSeries& series = chart.series[s];
      double v = At(series.values, g);
      if (!std::isfinite(v)) continue;
      double lo = At(series.low, g), hi = At(series.high, g);
      double bx = gx + s * kBarWidth;
      double mid = bx + (kBarWidth - 1) / 2;
      std::string tip = series.name + " " + chart.groups[g] + ": " + Sig(v, 4);
      if (std::isfinite(lo) && std::isfinite(hi)) {
        tip += " [" + Sig(lo, 4) + ", " + Sig(hi, 4) + "]";
      }
      double mark = At(series.marker, g);
      if (std::isfinite(mark)) {
        tip += "; " + chart.marker_label + " " + Sig(mark, 4);
      }
      o += "<rect x=\"" + Num(bx) + "\" y=\"" + Num(axis.Y(v)) + "\" width=\"" +
           Num(kBarWidth - 1) + "\" height=\"" + Num(axis.Base() - axis.Y(v)) +
           "\" fill=\"" + BarColor(chart, s, v, lo, hi) + "\"><title>" +
           HtmlEscape(tip) + "</title></rect>\n";
      if (std::isfinite(lo) && std::isfinite(hi)) {
        const std::string st = "stroke=\"#000000\" stroke-width=\"1.2\"";
        o += Line(mid, mid, axis.Y(lo), axis.Y(hi), st);
        o += Line(mid - 3, mid + 3, axis.Y(lo), axis.Y(lo), st);
        o += Line(mid - 3, mid + 3, axis.Y(hi), axis.Y(hi), st);
      }
      if (std::isfinite(mark)) {
        o += Line(bx - 2, bx + kBarWidth + 1, axis.Y(mark), axis.Y(mark),
                  "stroke=\"#000000\" stroke-width=\"2.5\"");
      }
    }
    double lx = gx + ns * kBarWidth / 2;
    double ly = kTop + kPlotHeight + 8;
    o += "<text transform=\"translate(" + Num(lx) + "," + Num(ly) +
         ") rotate(45)\" text-anchor=\"start\" font-size=\"10\">" +
         HtmlEscape(chart.groups[g]) + "</text>\n";
  }
  o += Line(kLeft, kLeft + plot_width, axis.Base(), axis.Base(),
            "stroke=\"#333333\"");
  if (chart.threshold) {
    double ty = axis.Y(*chart.threshold);
    o += Line(kLeft, kLeft + plot_width, ty, ty,
              "stroke=\"#000000\" stroke-dasharray=\"6 3\"");
    o += "<text x=\"" + Num(kLeft + plot_width) + "\" y=\"" + Num(ty - 4) +
         "\" text-anchor=\"end\">" + HtmlEscape(chart.threshold_label) +
         "</text>\n";
  }
  double lx = kLeft;
  double ly = height - 8;
  auto legend = [&](const std::string& swatch, const std::string& text) {
    o += swatch;
    o += "<text x=\"" + Num(lx + 14) + "\" y=\"" + Num(ly) + "\">" +
         HtmlEscape(text) + "</text>\n";
    lx += 24 + 7 * static_cast<double>(text.size());
  };
  const bool single = chart.threshold && chart.series.size() == 1;
  for (size_t s = 0; s < chart.series.size() && !single; ++s) {
    legend("<rect x=\"" + Num(lx) + "\" y=\"" + Num(ly - 9) +
               "\" width=\"10\" height=\"10\" fill=\"" +
               kPalette[s % std::size(kPalette)] + "\"/>\n",
           chart.series[s].name);
  }
  if (single) {
    for (auto [color, text] :
         {std::pair{kPass, "passes"}, std::pair{kFail, "fails"}}) {
      legend("<rect x=\"" + Num(lx) + "\" y=\"" + Num(ly - 9) +
                 "\" width=\"10\" height=\"10\" fill=\"" + color + "\"/>\n",
             text);
    }
    if (chart.color_noise) {
      legend("<rect x=\"" + Num(lx) + "\" y=\"" + Num(ly - 9) +
                 "\" width=\"10\" height=\"10\" fill=\"" + kNoise + "\"/>\n",
             "within noise (interval contains the bound)");
    }
  }
  if (!chart.marker_label.empty()) {
    legend(Line(lx, lx + 10, ly - 4, ly - 4,
                "stroke=\"#000000\" stroke-width=\"2.5\""),
           chart.marker_label);
  }
  o += "</svg>\n";
  return o;
}

}  // namespace flatbench::report
