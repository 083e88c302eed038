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

// The chart's two log axes: x from the smallest size to full scale, y
// around the points, the predictions and the bound.
struct TrendAxes {
  LogAxis x, y;
};

TrendAxes TrendAxesOf(const TrendChart& c) {
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
  return {LogAxis(xmin, c.target_x, kPlotLeft, kPlotLeft + kWidth),
          LogAxis(ymin, ymax, kTop + kHeight, kTop)};
}

// The <svg> element's opening, sized for the legend's rows, and the title.
std::string TrendSvgOpen(const TrendChart& c, bool standalone) {
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
  return o;
}

// Decade grid and labels, and the two axes' titles.
std::string TrendGrid(const TrendChart& c, const TrendAxes& a) {
  std::string o;
  for (int d = a.x.first(); d <= a.x.last(); ++d) {
    const double x = a.x(std::pow(10, d));
    o += "<line x1=\"" + SvgNumber(x) + "\" y1=\"" + SvgNumber(kTop) +
         "\" x2=\"" + SvgNumber(x) + "\" y2=\"" + SvgNumber(kTop + kHeight) +
         "\" stroke=\"#ddd\"/>\n";
    o += "<text x=\"" + SvgNumber(x) + "\" y=\"" +
         SvgNumber(kTop + kHeight + 16) + "\" text-anchor=\"middle\">" +
         HtmlEscape(Short(std::pow(10, d))) + "</text>\n";
  }
  for (int d = a.y.first(); d <= a.y.last(); ++d) {
    const double y = a.y(std::pow(10, d));
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
  return o;
}

// The bound as a dashed horizontal line, and the full-scale line.
std::string TrendBoundAndTarget(const TrendChart& c, const TrendAxes& a) {
  const double yb = a.y(c.bound), xt = a.x(c.target_x);
  std::string o;
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
  return o;
}

// Series `k`: each measured point with its interval, then, when fitted,
// the fit over the sizes, its dashed extrapolation and the hollow
// full-scale point with its interval. Series are offset by 3 px each so
// their intervals stay apart.
std::string TrendSeriesMarks(const TrendChart& c, const TrendAxes& a,
                             size_t k) {
  const TrendSeries& s = c.series[k];
  const std::string col = kTrendPalette[k % std::size(kTrendPalette)];
  std::string o;
  for (size_t i = 0; i < s.x.size(); ++i) {
    const double x = a.x(s.x[i]) + 3.0 * static_cast<double>(k);
    if (std::isfinite(s.low[i]) && std::isfinite(s.high[i]) && s.low[i] > 0) {
      o += "<line x1=\"" + SvgNumber(x) + "\" y1=\"" +
           SvgNumber(a.y(s.low[i])) + "\" x2=\"" + SvgNumber(x) + "\" y2=\"" +
           SvgNumber(a.y(s.high[i])) + "\" stroke=\"" + col + "\"/>\n";
    }
    o += "<circle cx=\"" + SvgNumber(x) + "\" cy=\"" + SvgNumber(a.y(s.y[i])) +
         "\" r=\"3.5\" fill=\"" + col + "\"/>\n";
  }
  if (!s.fitted || s.x.empty()) return o;
  const double xt = a.x(c.target_x);
  const double x0 = *std::min_element(s.x.begin(), s.x.end());
  const double x1 = *std::max_element(s.x.begin(), s.x.end());
  auto fit = [&](double x) {
    return s.predicted *
           std::pow(s.per_decade, std::log10(x) - std::log10(c.target_x));
  };
  o += "<line x1=\"" + SvgNumber(a.x(x0)) + "\" y1=\"" +
       SvgNumber(a.y(fit(x0))) + "\" x2=\"" + SvgNumber(a.x(x1)) + "\" y2=\"" +
       SvgNumber(a.y(fit(x1))) + "\" stroke=\"" + col +
       "\" stroke-width=\"1.5\"/>\n";
  o += "<line x1=\"" + SvgNumber(a.x(x1)) + "\" y1=\"" +
       SvgNumber(a.y(fit(x1))) + "\" x2=\"" + SvgNumber(xt) + "\" y2=\"" +
       SvgNumber(a.y(s.predicted)) + "\" stroke=\"" + col +
       "\" stroke-dasharray=\"5 4\"/>\n";
  const double xp = xt + 3.0 * static_cast<double>(k);
  o += "<line x1=\"" + SvgNumber(xp) + "\" y1=\"" +
       SvgNumber(a.y(s.predicted_low)) + "\" x2=\"" + SvgNumber(xp) +
       "\" y2=\"" + SvgNumber(a.y(s.predicted_high)) + "\" stroke=\"" + col +
       "\" stroke-width=\"2\"/>\n";
  o += "<circle cx=\"" + SvgNumber(xp) + "\" cy=\"" +
       SvgNumber(a.y(s.predicted)) + "\" r=\"4.5\" fill=\"white\" stroke=\"" +
       col + "\" stroke-width=\"2\"/>\n";
  return o;
}

// Legend: each entry as wide as its name (estimated as svg.h's charts
// do), wrapped within the chart; the key on two lines.
std::string TrendLegend(const TrendChart& c) {
  std::string o;
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
  return o;
}

}  // namespace

std::string RenderTrendSvg(const TrendChart& c, bool standalone) {
  const TrendAxes axes = TrendAxesOf(c);
  std::string o = TrendSvgOpen(c, standalone);
  o += TrendGrid(c, axes);
  o += TrendBoundAndTarget(c, axes);
  for (size_t k = 0; k < c.series.size(); ++k) {
    o += TrendSeriesMarks(c, axes, k);
  }
  o += TrendLegend(c);
  o += "</svg>\n";
  return o;
}

}  // namespace flatbench::report
