#include "report/document/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/format.h"

namespace flatbench::report {

std::string SvgNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

double SvgTextWidth(const std::string& text, double font) {
  size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80 ? 1 : 0;
  return static_cast<double>(chars) * kCharEm * font;
}

namespace {

constexpr double kFont = 11;       // Ticks, legend, axis titles.
constexpr double kLabelFont = 10;  // Group labels.
constexpr double kMargin = 12;
constexpr double kLeft = 80;  // Row and axis titles, tick labels.
constexpr double kTitleHeight = 30;
constexpr double kLegendRow = 18;
constexpr double kPlotHeight = 220;   // A single chart's plot.
constexpr double kPanelHeight = 170;  // A grid panel's plot.
constexpr double kPanelGap = 20;
constexpr double kColumnHead = 20;
constexpr double kRowGap = 22;
constexpr double kGroupGap = 12;
constexpr double kMinBar = 5;
constexpr double kMaxBar = 28;
constexpr double kLineHeight = 12;
constexpr double kSin45 = 0.7072;

const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                          "#8c564b", "#7f7f7f", "#17becf", "#bcbd22"};
const char kPass[] = "#2ca02c";
const char kFail[] = "#d62728";
const char kNoise[] = "#e6a700";

std::string Text(double x, double y, const std::string& cls,
                 const std::string& attrs, const std::string& text) {
  return "<text x=\"" + SvgNumber(x) + "\" y=\"" + SvgNumber(y) +
         "\" class=\"" + cls + "\"" + (attrs.empty() ? "" : " " + attrs) + ">" +
         HtmlEscape(text) + "</text>\n";
}

std::string Line(double x1, double x2, double y1, double y2,
                 const std::string& attrs) {
  return "<line x1=\"" + SvgNumber(x1) + "\" x2=\"" + SvgNumber(x2) +
         "\" y1=\"" + SvgNumber(y1) + "\" y2=\"" + SvgNumber(y2) + "\" " +
         attrs + "/>\n";
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

// The plot area of one chart or panel.
struct Frame {
  double x = 0, y = 0, w = 0, h = 0;
};

// Maps values to a fraction of the plot's height, linear from 0 or in
// decades, over every chart drawn on it.
class Axis {
 public:
  Axis(const std::vector<const BarChart*>& charts, bool log,
       std::optional<double> threshold)
      : log_(log) {
    double lo = INFINITY, hi = threshold.value_or(0);
    if (threshold) lo = *threshold;
    for (const BarChart* c : charts) {
      for (const auto& s : c->series) {
        for (const auto* vec : {&s.values, &s.high, &s.marker, &s.low}) {
          for (double v : *vec) {
            if (!std::isfinite(v) || (log_ && v <= 0)) continue;
            hi = std::max(hi, v);
            lo = std::min(lo, v);
          }
        }
      }
    }
    if (log_) {
      if (!std::isfinite(lo)) lo = 1;
      if (!(hi > 0)) hi = 10;
      // The smallest bar stands at least a third of a decade tall.
      low_ = std::pow(10, std::floor(std::log10(lo)));
      if (lo < 2 * low_) low_ /= 10;
      top_ = std::pow(10, std::ceil(std::log10(hi * 1.05)));
      if (top_ <= low_) top_ = low_ * 10;
    } else {
      top_ = NiceCeil(hi * 1.05);
    }
  }
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

// How a chart's group labels are set under its groups: flat on one or two
// lines when each fits its group's width, else turned 45 degrees.
struct Labels {
  bool rotated = false;
  std::vector<std::vector<std::string>> lines;  // Flat: per group.
  double height = 0;                            // Below the plot.
  double overflow = 0;                          // Beyond the plot's right edge.
};

Labels LayOutLabels(const std::vector<std::string>& groups,
                    double group_width) {
  Labels l;
  const double room = group_width - 4;
  size_t most_lines = 1;
  for (const auto& g : groups) {
    if (SvgTextWidth(g, kLabelFont) <= room) {
      l.lines.push_back({g});
      continue;
    }
    // Two lines, split at the space nearest the middle.
    size_t best = std::string::npos;
    for (size_t p = g.find(' '); p != std::string::npos;
         p = g.find(' ', p + 1)) {
      if (best == std::string::npos ||
          std::abs(static_cast<double>(p) - g.size() / 2.0) <
              std::abs(static_cast<double>(best) - g.size() / 2.0)) {
        best = p;
      }
    }
    if (best != std::string::npos &&
        SvgTextWidth(g.substr(0, best), kLabelFont) <= room &&
        SvgTextWidth(g.substr(best + 1), kLabelFont) <= room) {
      l.lines.push_back({g.substr(0, best), g.substr(best + 1)});
      most_lines = 2;
      continue;
    }
    l.rotated = true;
    break;
  }
  if (!l.rotated) {
    l.height = static_cast<double>(most_lines) * kLineHeight + 10;
    return l;
  }
  l.lines.clear();
  double longest = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const double w = SvgTextWidth(groups[g], kLabelFont);
    longest = std::max(longest, w);
    // From the group's centre, down and to the right.
    const double right =
        (static_cast<double>(g) + 0.5) * group_width + kSin45 * w + 8;
    l.overflow = std::max(
        l.overflow, right - static_cast<double>(groups.size()) * group_width);
  }
  l.height = kSin45 * longest + kLabelFont + 14;
  return l;
}

void DrawLabels(const std::vector<std::string>& groups, const Labels& l,
                const Frame& f, std::string* o) {
  const double gw = groups.empty() ? 0 : f.w / groups.size();
  for (size_t g = 0; g < groups.size(); ++g) {
    const double cx = f.x + (static_cast<double>(g) + 0.5) * gw;
    if (l.rotated) {
      *o +=
          "<text x=\"0\" y=\"0\" class=\"group-label\" transform=\"translate(" +
          SvgNumber(cx) + "," + SvgNumber(f.y + f.h + 8) +
          ") rotate(45)\" text-anchor=\"start\" font-size=\"10\">" +
          HtmlEscape(groups[g]) + "</text>\n";
      continue;
    }
    double y = f.y + f.h + 14;
    for (const auto& line : l.lines[g]) {
      *o += Text(cx, y, "group-label",
                 "text-anchor=\"middle\" font-size=\"10\"", line);
      y += kLineHeight;
    }
  }
}

void DrawGridLines(const Axis& axis, const Frame& f, bool tick_labels,
                   std::string* o) {
  for (auto [v, labelled] : axis.Ticks()) {
    const double y = axis.Y(f, v);
    *o += Line(f.x, f.x + f.w, y, y,
               labelled ? "stroke=\"#dddddd\"" : "stroke=\"#f0f0f0\"");
    if (tick_labels && labelled) {
      *o += Text(f.x - 4, y + 4, "tick", "text-anchor=\"end\"", Short(v));
    }
  }
}

// The bars of `c` (groups side by side, series within each group).
// Each bar's tooltip names `where` (the panel), series, group and values;
// a group without any bar says "no data".
void DrawBars(const BarChart& c, const Axis& axis, const Frame& f,
              const std::string& where, const std::string& marker_label,
              std::string* o) {
  const size_t n = c.groups.size();
  if (n == 0) return;
  const size_t ns = std::max<size_t>(c.series.size(), 1);
  const double gw = f.w / static_cast<double>(n);
  const double bar =
      std::clamp((gw - kGroupGap) / static_cast<double>(ns), 1.0, kMaxBar);
  const double block = bar * static_cast<double>(ns);
  for (size_t g = 0; g < n; ++g) {
    const double gx = f.x + g * gw + (gw - block) / 2;
    bool any = false;
    for (const auto& series : c.series) {
      any = any || std::isfinite(At(series.values, g));
    }
    if (!any) {
      *o += Text(f.x + (g + 0.5) * gw, f.y + f.h - 6, "no-data",
                 "text-anchor=\"middle\" font-size=\"10\" fill=\"#888888\"",
                 "no data");
    }
    for (size_t s = 0; s < c.series.size(); ++s) {
      const BarSeries& series = c.series[s];
      const double v = At(series.values, g);
      if (!std::isfinite(v)) continue;
      const double lo = At(series.low, g), hi = At(series.high, g);
      const double bx = gx + s * bar;
      const double mid = bx + (bar - 1) / 2;
      std::string tip =
          series.name + ", " + where + c.groups[g] + ": " + Sig(v, 4);
      if (std::isfinite(lo) && std::isfinite(hi)) {
        tip += " [" + Sig(lo, 4) + ", " + Sig(hi, 4) + "]";
      }
      const double mark = At(series.marker, g);
      if (std::isfinite(mark)) tip += "; " + marker_label + " " + Sig(mark, 4);
      *o += "<rect x=\"" + SvgNumber(bx) + "\" y=\"" + SvgNumber(axis.Y(f, v)) +
            "\" width=\"" + SvgNumber(std::max(bar - 1, 1.0)) + "\" height=\"" +
            SvgNumber(axis.Base(f) - axis.Y(f, v)) + "\" fill=\"" +
            BarColor(c, s, v, lo, hi) + "\"><title>" + HtmlEscape(tip) +
            "</title></rect>\n";
      if (std::isfinite(lo) && std::isfinite(hi)) {
        const std::string st = "stroke=\"#000000\" stroke-width=\"1.2\"";
        const double cap = std::min(3.0, bar / 2);
        *o += Line(mid, mid, axis.Y(f, lo), axis.Y(f, hi), st);
        *o += Line(mid - cap, mid + cap, axis.Y(f, lo), axis.Y(f, lo), st);
        *o += Line(mid - cap, mid + cap, axis.Y(f, hi), axis.Y(f, hi), st);
      }
      if (std::isfinite(mark)) {
        *o += Line(bx - 2, bx + bar + 1, axis.Y(f, mark), axis.Y(f, mark),
                   "stroke=\"#000000\" stroke-width=\"2.5\"");
      }
    }
  }
  *o += Line(f.x, f.x + f.w, axis.Base(f), axis.Base(f), "stroke=\"#333333\"");
}

// Legend entries, wrapped into rows within a width.
struct LegendItem {
  std::string swatch;  // A colour for a square, or empty for the marker tick.
  std::string text;
};

double ItemWidth(const LegendItem& it) {
  return 14 + SvgTextWidth(it.text, kFont) + 16;
}

int LegendRows(const std::vector<LegendItem>& items, double width) {
  if (items.empty()) return 0;
  int rows = 1;
  double x = 0;
  for (const auto& it : items) {
    if (x > 0 && x + ItemWidth(it) > width) {
      ++rows;
      x = 0;
    }
    x += ItemWidth(it);
  }
  return rows;
}

void DrawLegend(const std::vector<LegendItem>& items, double x0, double y0,
                double width, std::string* o) {
  double x = 0, y = y0 + 12;
  for (const auto& it : items) {
    if (x > 0 && x + ItemWidth(it) > width) {
      x = 0;
      y += kLegendRow;
    }
    const double lx = x0 + x;
    if (it.swatch.empty()) {
      *o += Line(lx, lx + 10, y - 4, y - 4,
                 "stroke=\"#000000\" stroke-width=\"2.5\"");
    } else {
      *o += "<rect x=\"" + SvgNumber(lx) + "\" y=\"" + SvgNumber(y - 9) +
            "\" width=\"10\" height=\"10\" fill=\"" + it.swatch + "\"/>\n";
    }
    *o += Text(lx + 14, y, "legend", "", it.text);
    x += ItemWidth(it);
  }
}

std::string Open(double width, double height, const std::string& title,
                 bool standalone) {
  std::string o = "<svg ";
  if (standalone) o += "xmlns=\"http://www.w3.org/2000/svg\" ";
  o += "width=\"" + SvgNumber(width) + "\" height=\"" + SvgNumber(height) +
       "\" viewBox=\"0 0 " + SvgNumber(width) + " " + SvgNumber(height) +
       "\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o += "<title>" + HtmlEscape(title) + "</title>\n";
  o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o += Text(width / 2, 20, "title", "text-anchor=\"middle\" font-size=\"14\"",
            title);
  return o;
}

std::string VerticalText(double x, double y, const std::string& cls,
                         const std::string& attrs, const std::string& text) {
  return "<text x=\"0\" y=\"0\" class=\"" + cls + "\" transform=\"translate(" +
         SvgNumber(x) + "," + SvgNumber(y) +
         ") rotate(-90)\" text-anchor=\"middle\"" +
         (attrs.empty() ? "" : " " + attrs) + ">" + HtmlEscape(text) +
         "</text>\n";
}

std::string AxisTitle(const std::string& label, bool log) {
  return label + (log ? " (log scale)" : "");
}

}  // namespace

std::string RenderSvg(const BarChart& chart, bool standalone) {
  const double n =
      static_cast<double>(std::max<size_t>(chart.groups.size(), 1));
  const double ns =
      static_cast<double>(std::max<size_t>(chart.series.size(), 1));
  const double plot_w =
      std::max(kChartWidth - kLeft - kMargin, n * (ns * kMinBar + kGroupGap));
  const Labels labels = LayOutLabels(chart.groups, plot_w / n);
  const double width = kLeft + plot_w + std::max(kMargin, labels.overflow);

  std::vector<LegendItem> items;
  const bool single = chart.threshold && chart.series.size() == 1;
  for (size_t s = 0; s < chart.series.size() && !single; ++s) {
    items.push_back({kPalette[s % std::size(kPalette)], chart.series[s].name});
  }
  if (single) {
    items.push_back({kPass, "passes"});
    items.push_back({kFail, "fails"});
    if (chart.color_noise) {
      items.push_back({kNoise, "within noise (interval contains the bound)"});
    }
  }
  if (!chart.marker_label.empty()) items.push_back({"", chart.marker_label});
  const double legend_w = width - kLeft - kMargin;
  const double legend_h = LegendRows(items, legend_w) * kLegendRow;
  const Frame f{kLeft, kTitleHeight + legend_h + 16, plot_w, kPlotHeight};
  const double height = f.y + f.h + labels.height + kMargin;
  const Axis axis({&chart}, chart.log_scale, chart.threshold);

  std::string o = Open(width, height, chart.title, standalone);
  DrawLegend(items, kLeft, kTitleHeight, legend_w, &o);
  DrawGridLines(axis, f, /*tick_labels=*/true, &o);
  o += VerticalText(16, f.y + f.h / 2, "axis-title", "",
                    AxisTitle(chart.y_label, chart.log_scale));
  DrawBars(chart, axis, f, "", chart.marker_label, &o);
  DrawLabels(chart.groups, labels, f, &o);
  if (chart.threshold) {
    const double ty = axis.Y(f, *chart.threshold);
    o += Line(f.x, f.x + f.w, ty, ty,
              "stroke=\"#000000\" stroke-dasharray=\"6 3\"");
    o += Text(f.x + f.w, ty - 4, "threshold", "text-anchor=\"end\"",
              chart.threshold_label);
  }
  o += "</svg>\n";
  return o;
}

std::string RenderSvg(const BarGrid& grid, bool standalone) {
  const size_t rows = grid.panels.size();
  size_t cols = 0;
  for (const auto& row : grid.panels) cols = std::max(cols, row.size());
  const double nc = static_cast<double>(std::max<size_t>(cols, 1));
  const double ns =
      static_cast<double>(std::max<size_t>(grid.series_names.size(), 1));
  size_t most_groups = 1;
  std::vector<const BarChart*> all;
  for (const auto& row : grid.panels) {
    for (const auto& p : row) {
      most_groups = std::max(most_groups, p.groups.size());
      all.push_back(&p);
    }
  }
  const double panel_w =
      std::max((kChartWidth - kLeft - kMargin - (nc - 1) * kPanelGap) / nc,
               static_cast<double>(most_groups) * (ns * kMinBar + kGroupGap));
  // Each row's labels, laid out for its widest-labelled panel.
  std::vector<Labels> row_labels(rows);
  double overflow = 0;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < grid.panels[r].size(); ++c) {
      const BarChart& p = grid.panels[r][c];
      Labels l = LayOutLabels(
          p.groups,
          panel_w / static_cast<double>(std::max<size_t>(p.groups.size(), 1)));
      if (l.height > row_labels[r].height) row_labels[r].height = l.height;
      if (c + 1 == cols) overflow = std::max(overflow, l.overflow);
    }
  }
  const double width =
      kLeft + nc * panel_w + (nc - 1) * kPanelGap + std::max(kMargin, overflow);

  std::vector<LegendItem> items;
  for (size_t s = 0; s < grid.series_names.size(); ++s) {
    items.push_back({kPalette[s % std::size(kPalette)], grid.series_names[s]});
  }
  if (!grid.marker_label.empty()) items.push_back({"", grid.marker_label});
  const double legend_w = width - kLeft - kMargin;
  const double legend_h = LegendRows(items, legend_w) * kLegendRow;
  const double first_y = kTitleHeight + legend_h + 8 + kColumnHead;
  double height = first_y;
  for (size_t r = 0; r < rows; ++r) {
    height += kPanelHeight + row_labels[r].height + kRowGap;
  }
  height += kMargin;
  const Axis axis(all, grid.log_scale, std::nullopt);

  std::string o = Open(width, height, grid.title, standalone);
  DrawLegend(items, kLeft, kTitleHeight, legend_w, &o);
  for (size_t c = 0; c < cols && c < grid.column_labels.size(); ++c) {
    const double x = kLeft + c * (panel_w + kPanelGap) + panel_w / 2;
    o += Text(x, first_y - 6, "column-label",
              "text-anchor=\"middle\" font-weight=\"bold\"",
              grid.column_labels[c]);
  }
  double y = first_y;
  for (size_t r = 0; r < rows; ++r) {
    if (r < grid.row_labels.size()) {
      o += VerticalText(14, y + kPanelHeight / 2, "row-label",
                        "font-weight=\"bold\" font-size=\"12\"",
                        grid.row_labels[r]);
    }
    o += VerticalText(32, y + kPanelHeight / 2, "axis-title", "",
                      AxisTitle(grid.y_label, grid.log_scale));
    for (size_t c = 0; c < grid.panels[r].size(); ++c) {
      const BarChart& p = grid.panels[r][c];
      const Frame f{kLeft + c * (panel_w + kPanelGap), y, panel_w,
                    kPanelHeight};
      DrawGridLines(axis, f, /*tick_labels=*/c == 0, &o);
      std::string where;
      if (r < grid.row_labels.size()) where += grid.row_labels[r] + ", ";
      if (c < grid.column_labels.size()) where += grid.column_labels[c] + ", ";
      DrawBars(p, axis, f, where, grid.marker_label, &o);
      DrawLabels(
          p.groups,
          LayOutLabels(p.groups, panel_w / static_cast<double>(std::max<size_t>(
                                               p.groups.size(), 1))),
          f, &o);
    }
    y += kPanelHeight + row_labels[r].height + kRowGap;
  }
  o += "</svg>\n";
  return o;
}

}  // namespace flatbench::report
