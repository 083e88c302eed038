// The drawing pieces of the SVG charts (svg_parts.h).
#include <algorithm>
#include <cmath>

#include "report/document/svg_parts.h"
#include "report/numbers.h"

namespace flatbench::report::svg_detail {

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

Axis::Axis(const std::vector<const BarChart*>& charts, bool log,
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

bool JudgedColors(const BarChart& chart) {
  return chart.threshold && (chart.judge || chart.series.size() == 1);
}

std::vector<size_t> VisibleSeries(const std::vector<const BarChart*>& charts) {
  std::vector<size_t> out;
  size_t most = 0;
  for (const BarChart* c : charts) most = std::max(most, c->series.size());
  for (size_t s = 0; s < most; ++s) {
    bool any = false;
    for (const BarChart* c : charts) {
      if (s >= c->series.size()) continue;
      for (double v : c->series[s].values) any = any || std::isfinite(v);
    }
    if (any) out.push_back(s);
  }
  return out;
}

std::string SeriesStyle(size_t rank, const std::string& color) {
  const std::string fill = "fill=\"" + color + "\"";
  switch (rank % 4) {
    case 0:
      return fill;
    case 1:
      return fill + " fill-opacity=\"0.35\" stroke=\"" + color +
             "\" stroke-width=\"1.5\"";
    case 2:
      return fill + " stroke=\"#000000\" stroke-width=\"1\"";
    default:
      return fill + " fill-opacity=\"0.35\" stroke=\"" + color +
             "\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"";
  }
}

std::string BarColor(const BarChart& chart, size_t s, double v, double lo,
                     double hi) {
  if (!JudgedColors(chart)) return kPalette[s % std::size(kPalette)];
  double t = *chart.threshold;
  if (chart.color_noise && lo < t && t < hi) return kNoise;
  bool pass = chart.higher_is_better ? v >= t : v <= t;
  return pass ? kPass : kFail;
}

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

namespace {

// A bar's whisker from lo to hi, over a white halo so that it shows on a
// marker at the same value.
void DrawWhisker(const Axis& axis, const Frame& f, double mid, double cap,
                 double lo, double hi, std::string* o) {
  for (const char* st : {"stroke=\"#ffffff\" stroke-width=\"3.2\"",
                         "stroke=\"#000000\" stroke-width=\"1.2\""}) {
    *o += Line(mid, mid, axis.Y(f, lo), axis.Y(f, hi), st);
    *o += Line(mid - cap, mid + cap, axis.Y(f, lo), axis.Y(f, lo), st);
    *o += Line(mid - cap, mid + cap, axis.Y(f, hi), axis.Y(f, hi), st);
  }
}

// "n/a", upright along an empty bar's place, for a series without a bar
// in a group where others have one.
std::string NotAvailable(double cx, double base, const std::string& tip) {
  return "<text x=\"0\" y=\"0\" class=\"n-a\" transform=\"translate(" +
         SvgNumber(cx + 3) + "," + SvgNumber(base - 3) +
         ") rotate(-90)\" font-size=\"9\" fill=\"#888888\">n/a<title>" +
         HtmlEscape(tip) + "</title></text>\n";
}

}  // namespace

void DrawBars(const BarChart& c, const Axis& axis, const Frame& f,
              const std::string& where, const std::string& marker_label,
              const std::vector<size_t>& visible, std::string* o) {
  const size_t n = c.groups.size();
  if (n == 0) return;
  const size_t ns = std::max<size_t>(visible.size(), 1);
  const double gw = f.w / static_cast<double>(n);
  const double bar =
      std::clamp((gw - kGroupGap) / static_cast<double>(ns), 1.0, kMaxBar);
  const double block = bar * static_cast<double>(ns);
  for (size_t g = 0; g < n; ++g) {
    const double gx = f.x + g * gw + (gw - block) / 2;
    bool any = false;
    for (size_t s : visible) {
      any = any ||
            (s < c.series.size() && std::isfinite(At(c.series[s].values, g)));
    }
    if (!any) {
      *o += Text(f.x + (g + 0.5) * gw, f.y + f.h - 6, "no-data",
                 "text-anchor=\"middle\" font-size=\"10\" fill=\"#888888\"",
                 "no data");
    }
    for (size_t k = 0; k < visible.size(); ++k) {
      if (visible[k] >= c.series.size()) continue;
      const BarSeries& series = c.series[visible[k]];
      const double v = At(series.values, g);
      const double bx = gx + k * bar;
      if (!std::isfinite(v)) {
        if (any) {
          *o += NotAvailable(bx + (bar - 1) / 2, axis.Base(f),
                             series.name + ", " + where + c.groups[g] +
                                 ": no bar (not measured)");
        }
        continue;
      }
      const double lo = At(series.low, g), hi = At(series.high, g);
      const double mid = bx + (bar - 1) / 2;
      std::string tip =
          series.name + ", " + where + c.groups[g] + ": " + Sig(v, 4);
      if (std::isfinite(lo) && std::isfinite(hi)) {
        tip += " [" + Sig(lo, 4) + ", " + Sig(hi, 4) + "]";
      }
      const double mark = At(series.marker, g);
      if (std::isfinite(mark)) tip += "; " + marker_label + " " + Sig(mark, 4);
      const std::string color = BarColor(c, visible[k], v, lo, hi);
      *o +=
          "<rect x=\"" + SvgNumber(bx) + "\" y=\"" + SvgNumber(axis.Y(f, v)) +
          "\" width=\"" + SvgNumber(std::max(bar - 1, 1.0)) + "\" height=\"" +
          SvgNumber(axis.Base(f) - axis.Y(f, v)) + "\" " +
          (JudgedColors(c) ? SeriesStyle(k, color) : "fill=\"" + color + "\"") +
          "><title>" + HtmlEscape(tip) + "</title></rect>\n";
      // The marker first: the whisker is drawn over it.
      if (std::isfinite(mark)) {
        *o += Line(bx - 2, bx + bar + 1, axis.Y(f, mark), axis.Y(f, mark),
                   "stroke=\"" + std::string(kMarker) +
                       "\" stroke-width=\"2.5\" class=\"marker\"");
      }
      if (std::isfinite(lo) && std::isfinite(hi)) {
        DrawWhisker(axis, f, mid, std::min(3.0, bar / 2), lo, hi, o);
      }
    }
  }
  *o += Line(f.x, f.x + f.w, axis.Base(f), axis.Base(f), "stroke=\"#333333\"");
}

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
    if (!it.style.empty()) {
      *o += "<rect x=\"" + SvgNumber(lx) + "\" y=\"" + SvgNumber(y - 9) +
            "\" width=\"10\" height=\"10\" " + it.style + "/>\n";
    } else if (it.swatch.empty()) {
      *o +=
          Line(lx, lx + 10, y - 4, y - 4,
               "stroke=\"" + std::string(kMarker) + "\" stroke-width=\"2.5\"");
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

std::vector<std::string> AxisTitle(const std::string& label, bool log) {
  std::vector<std::string> lines;
  size_t at = 0;
  for (size_t nl = label.find('\n'); nl != std::string::npos;
       nl = label.find('\n', at)) {
    lines.push_back(label.substr(at, nl - at));
    at = nl + 1;
  }
  lines.push_back(label.substr(at));
  if (log) {
    // On the last line while it stays short, else a line of its own.
    if (SvgTextWidth(lines.back() + " (log scale)", kFont) <= 150) {
      lines.back() += " (log scale)";
    } else {
      lines.push_back("(log scale)");
    }
  }
  return lines;
}

std::string DrawAxisTitle(const std::vector<std::string>& lines, double x,
                          double y) {
  std::string o;
  for (size_t i = 0; i < lines.size(); ++i) {
    o += VerticalText(x + 13 * static_cast<double>(i), y, "axis-title", "",
                      lines[i]);
  }
  return o;
}

}  // namespace flatbench::report::svg_detail
