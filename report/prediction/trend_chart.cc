#include "report/prediction/trend_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/document/svg.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

constexpr double kPlotLeft = 70, kTop = 40, kWidth = 560, kHeight = 260;
constexpr double kBottom = 50;
// Intervals beyond this many decades from the data are clipped to the
// plot, so one wild extrapolation does not flatten the rest.
constexpr double kMaxDecadesAbove = 1.5;

const char* kTrendPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c",
                               "#9467bd", "#8c564b", "#17becf"};

double LegendTextWidth(const std::string& text) {
  return SvgTextWidth(text, 11);
}

// Rows the series legend takes, wrapped within the plot's width.
int LegendRows(const TrendChart& c) {
  int rows = 1;
  double lx = kPlotLeft;
  for (const auto& s : c.series) {
    const double w = 14 + LegendTextWidth(s.name) + 16;
    if (lx > kPlotLeft && lx + w > kPlotLeft + kWidth) {
      lx = kPlotLeft;
      ++rows;
    }
    lx += w;
  }
  return rows;
}

class LogAxis {
 public:
  LogAxis(double lo, double hi, double from, double to)
      : lo_(std::floor(std::log10(lo))),
        hi_(std::max(std::ceil(std::log10(hi)), lo_ + 1)),
        from_(from),
        to_(to) {}
  double operator()(double v) const {
    const double d = std::clamp(std::log10(v), lo_, hi_);
    return from_ + (to_ - from_) * (d - lo_) / (hi_ - lo_);
  }
  int first() const { return static_cast<int>(lo_); }
  int last() const { return static_cast<int>(hi_); }

 private:
  double lo_, hi_, from_, to_;
};

}  // namespace

std::string RenderTrendSvg(const TrendChart& c, bool standalone) {
  double xmin = c.target_x, ymin = c.bound, ymax = c.bound;
  for (const auto& s : c.series) {
    for (size_t i = 0; i < s.x.size(); ++i) {
      xmin = std::min(xmin, s.x[i]);
      ymin = std::min(ymin, s.y[i]);
      ymax = std::max(ymax, s.y[i]);
    }
    if (s.fitted) {
      ymin = std::min(ymin, s.predicted);
      ymax = std::max(ymax, s.predicted);
    }
  }
  if (!(ymin > 0)) ymin = 1e-3;
  ymin = std::max(ymin, ymax / std::pow(10, 2 * kMaxDecadesAbove)) / 1.5;
  ymax *= 1.5;
  const LogAxis X(xmin, c.target_x, kPlotLeft, kPlotLeft + kWidth);
  const LogAxis Y(ymin, ymax, kTop + kHeight, kTop);
  const double total_h =
      kTop + kHeight + kBottom + 12 + 16.0 * (LegendRows(c) - 1) + 32 + 10;
  std::string o = "<svg ";
  if (standalone) o += "xmlns=\"http://www.w3.org/2000/svg\" ";
  o += "width=\"" + SvgNumber(kPlotLeft + kWidth + 40) + "\" height=\"" +
       SvgNumber(total_h) + "\" viewBox=\"0 0 " +
       SvgNumber(kPlotLeft + kWidth + 40) + " " + SvgNumber(total_h) +
       "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o += "<text x=\"" + SvgNumber(kPlotLeft) + "\" y=\"20\" font-size=\"13\">" +
       HtmlEscape(c.title) + "</text>\n";
  // Decade grid and labels.
  for (int d = X.first(); d <= X.last(); ++d) {
    const double x = X(std::pow(10, d));
    o += "<line x1=\"" + SvgNumber(x) + "\" y1=\"" + SvgNumber(kTop) +
         "\" x2=\"" + SvgNumber(x) + "\" y2=\"" + SvgNumber(kTop + kHeight) +
         "\" stroke=\"#ddd\"/>\n";
    o += "<text x=\"" + SvgNumber(x) + "\" y=\"" +
         SvgNumber(kTop + kHeight + 16) + "\" text-anchor=\"middle\">" +
         HtmlEscape(Short(std::pow(10, d))) + "</text>\n";
  }
  for (int d = Y.first(); d <= Y.last(); ++d) {
    const double y = Y(std::pow(10, d));
    o += "<line x1=\"" + SvgNumber(kPlotLeft) + "\" y1=\"" + SvgNumber(y) +
         "\" x2=\"" + SvgNumber(kPlotLeft + kWidth) + "\" y2=\"" +
         SvgNumber(y) + "\" stroke=\"#ddd\"/>\n";
    o += "<text x=\"" + SvgNumber(kPlotLeft - 6) + "\" y=\"" +
         SvgNumber(y + 4) + "\" text-anchor=\"end\">" +
         HtmlEscape(Sig(std::pow(10, d), 3)) + "</text>\n";
  }
  o += "<text x=\"" + SvgNumber(kPlotLeft + kWidth / 2) + "\" y=\"" +
       SvgNumber(kTop + kHeight + 34) +
       "\" text-anchor=\"middle\">dataset pairs (log scale)</text>\n";
  o += "<text x=\"14\" y=\"" + SvgNumber(kTop + kHeight / 2) +
       "\" transform=\"rotate(-90 14 " + SvgNumber(kTop + kHeight / 2) +
       ")\" text-anchor=\"middle\">" + HtmlEscape(c.y_label) +
       " (log scale)</text>\n";
  // The bound and the full-scale line.
  const double yb = Y(c.bound), xt = X(c.target_x);
  o += "<line x1=\"" + SvgNumber(kPlotLeft) + "\" y1=\"" + SvgNumber(yb) +
       "\" x2=\"" + SvgNumber(kPlotLeft + kWidth) + "\" y2=\"" + SvgNumber(yb) +
       "\" stroke=\"#d62728\" stroke-dasharray=\"6 4\"/>\n";
  o += "<text x=\"" + SvgNumber(kPlotLeft + 4) + "\" y=\"" + SvgNumber(yb - 4) +
       "\" fill=\"#d62728\">bound " + HtmlEscape(Ratio(c.bound)) + "</text>\n";
  o += "<line x1=\"" + SvgNumber(xt) + "\" y1=\"" + SvgNumber(kTop) +
       "\" x2=\"" + SvgNumber(xt) + "\" y2=\"" + SvgNumber(kTop + kHeight) +
       "\" stroke=\"#999\" stroke-dasharray=\"2 3\"/>\n";
  o += "<text x=\"" + SvgNumber(xt - 4) + "\" y=\"" + SvgNumber(kTop + 12) +
       "\" text-anchor=\"end\" fill=\"#555\">full scale (predicted)</text>\n";
  for (size_t k = 0; k < c.series.size(); ++k) {
    const TrendSeries& s = c.series[k];
    const std::string col = kTrendPalette[k % std::size(kTrendPalette)];
    for (size_t i = 0; i < s.x.size(); ++i) {
      const double x = X(s.x[i]) + 3.0 * static_cast<double>(k);
      if (std::isfinite(s.low[i]) && std::isfinite(s.high[i]) && s.low[i] > 0) {
        o += "<line x1=\"" + SvgNumber(x) + "\" y1=\"" +
             SvgNumber(Y(s.low[i])) + "\" x2=\"" + SvgNumber(x) + "\" y2=\"" +
             SvgNumber(Y(s.high[i])) + "\" stroke=\"" + col + "\"/>\n";
      }
      o += "<circle cx=\"" + SvgNumber(x) + "\" cy=\"" + SvgNumber(Y(s.y[i])) +
           "\" r=\"3.5\" fill=\"" + col + "\"/>\n";
    }
    if (!s.fitted || s.x.empty()) continue;
    const double x0 = *std::min_element(s.x.begin(), s.x.end());
    const double x1 = *std::max_element(s.x.begin(), s.x.end());
    auto fit = [&](double x) {
      return s.predicted *
             std::pow(s.per_decade, std::log10(x) - std::log10(c.target_x));
    };
    o += "<line x1=\"" + SvgNumber(X(x0)) + "\" y1=\"" + SvgNumber(Y(fit(x0))) +
         "\" x2=\"" + SvgNumber(X(x1)) + "\" y2=\"" + SvgNumber(Y(fit(x1))) +
         "\" stroke=\"" + col + "\" stroke-width=\"1.5\"/>\n";
    o += "<line x1=\"" + SvgNumber(X(x1)) + "\" y1=\"" + SvgNumber(Y(fit(x1))) +
         "\" x2=\"" + SvgNumber(xt) + "\" y2=\"" + SvgNumber(Y(s.predicted)) +
         "\" stroke=\"" + col + "\" stroke-dasharray=\"5 4\"/>\n";
    const double xp = xt + 3.0 * static_cast<double>(k);
    o += "<line x1=\"" + SvgNumber(xp) + "\" y1=\"" +
         SvgNumber(Y(s.predicted_low)) + "\" x2=\"" + SvgNumber(xp) +
         "\" y2=\"" + SvgNumber(Y(s.predicted_high)) + "\" stroke=\"" + col +
         "\" stroke-width=\"2\"/>\n";
    o += "<circle cx=\"" + SvgNumber(xp) + "\" cy=\"" +
         SvgNumber(Y(s.predicted)) + "\" r=\"4.5\" fill=\"white\" stroke=\"" +
         col + "\" stroke-width=\"2\"/>\n";
  }
  // Legend: each entry as wide as its name (estimated as svg.h's charts
  // do), wrapped within the chart; the key on two lines.
  double lx = kPlotLeft;
  double ly = kTop + kHeight + kBottom + 12;
  for (size_t k = 0; k < c.series.size(); ++k) {
    const double w = 14 + LegendTextWidth(c.series[k].name) + 16;
    if (lx > kPlotLeft && lx + w > kPlotLeft + kWidth) {
      lx = kPlotLeft;
      ly += 16;
    }
    o += "<circle cx=\"" + SvgNumber(lx + 5) + "\" cy=\"" + SvgNumber(ly - 4) +
         "\" r=\"4\" fill=\"" + kTrendPalette[k % std::size(kTrendPalette)] +
         "\"/>\n";
    o += "<text x=\"" + SvgNumber(lx + 14) + "\" y=\"" + SvgNumber(ly) +
         "\" class=\"legend\">" + HtmlEscape(c.series[k].name) + "</text>\n";
    lx += w;
  }
  o += "<text x=\"" + SvgNumber(kPlotLeft) + "\" y=\"" + SvgNumber(ly + 16) +
       "\" class=\"legend\">filled: measured, with its 95% interval; line: "
       "the fit;</text>\n";
  o += "<text x=\"" + SvgNumber(kPlotLeft) + "\" y=\"" + SvgNumber(ly + 32) +
       "\" class=\"legend\">hollow: extrapolated, 95% interval (clipped to "
       "the plot)</text>\n";
  o += "</svg>\n";
  return o;
}

}  // namespace flatbench::report
