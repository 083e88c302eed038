// The writing passes' chart: each store's read p99 per interval through
// its pass as a line, the arena's merge windows shaded, on one time axis.
#include <algorithm>
#include <cmath>

#include "report/document/document_parts.h"
#include "report/document/html.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

constexpr double kSeriesWidth = 720, kSeriesHeight = 280;
constexpr double kSeriesLeft = 70, kSeriesRight = 150, kSeriesTop = 30,
                 kSeriesBottom = 40;
constexpr const char* kSeriesColors[] = {"#1f77b4", "#d62728", "#2ca02c",
                                         "#9467bd", "#ff7f0e", "#8c564b"};

std::string SeriesNum(double v) { return SvgNumber(v); }

std::string RenderSeries(const std::string& title,
                         const std::vector<const Pass*>& group,
                         bool standalone) {
  double t_max = 0, p_max = 0;
  for (const Pass* p : group) {
    for (const auto& pt : p->series) {
      t_max = std::max(
          t_max, pt.value("t_s", 0.0) + p->Get(results::kSeriesIntervalS));
      p_max = std::max(p_max, pt.value("p99_ns", 0.0));
    }
    for (const auto& w : p->windows)
      t_max = std::max(t_max, w.value("end_s", 0.0));
  }
  t_max = std::max(t_max, 1e-3);
  p_max = std::max(p_max, 1.0) * 1.1;
  const double w = kSeriesWidth - kSeriesLeft - kSeriesRight;
  const double h = kSeriesHeight - kSeriesTop - kSeriesBottom;
  auto x = [&](double t) { return kSeriesLeft + w * t / t_max; };
  auto y = [&](double ns) { return kSeriesTop + h * (1 - ns / p_max); };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    SeriesNum(kSeriesWidth) + "\" height=\"" +
                    SeriesNum(kSeriesHeight) + "\" viewBox=\"0 0 " +
                    SeriesNum(kSeriesWidth) + " " + SeriesNum(kSeriesHeight) +
                    "\" role=\"img\">";
  if (standalone) svg += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>";
  svg += "<title>" + HtmlEscape(title) + "</title>";
  svg += "<text x=\"" + SeriesNum(kSeriesLeft) +
         "\" y=\"18\" font-size=\"13\">" + HtmlEscape(title) + "</text>";
  for (const Pass* p : group) {
    for (const auto& win : p->windows) {
      const double a = x(win.value("start_s", 0.0));
      const double b = x(win.value("end_s", 0.0));
      svg += "<rect x=\"" + SeriesNum(a) + "\" y=\"" + SeriesNum(kSeriesTop) +
             "\" width=\"" + SeriesNum(std::max(1.0, b - a)) + "\" height=\"" +
             SeriesNum(h) + "\" fill=\"#f2c94c\" fill-opacity=\"0.35\"/>";
    }
  }
  svg += "<line x1=\"" + SeriesNum(kSeriesLeft) + "\" y1=\"" +
         SeriesNum(kSeriesTop + h) + "\" x2=\"" + SeriesNum(kSeriesLeft + w) +
         "\" y2=\"" + SeriesNum(kSeriesTop + h) + "\" stroke=\"#333\"/>";
  svg += "<line x1=\"" + SeriesNum(kSeriesLeft) + "\" y1=\"" +
         SeriesNum(kSeriesTop) + "\" x2=\"" + SeriesNum(kSeriesLeft) +
         "\" y2=\"" + SeriesNum(kSeriesTop + h) + "\" stroke=\"#333\"/>";
  for (int i = 0; i <= 4; ++i) {
    const double ns = p_max * i / 4;
    svg += "<text x=\"" + SeriesNum(kSeriesLeft - 6) + "\" y=\"" +
           SeriesNum(y(ns) + 4) + "\" font-size=\"11\" text-anchor=\"end\">" +
           Micros(ns) + "</text>";
    const double t = t_max * i / 4;
    svg += "<text x=\"" + SeriesNum(x(t)) + "\" y=\"" +
           SeriesNum(kSeriesTop + h + 16) +
           "\" font-size=\"11\" text-anchor=\"middle\">" + Sig(t, 3) +
           " s</text>";
  }
  svg += "<text x=\"" + SeriesNum(kSeriesLeft + w / 2) + "\" y=\"" +
         SeriesNum(kSeriesHeight - 6) +
         "\" font-size=\"11\" text-anchor=\"middle\">seconds from the first "
         "read; read p99 per interval (lower is better)</text>";
  size_t i = 0;
  for (const Pass* p : group) {
    const std::string color = kSeriesColors[i % std::size(kSeriesColors)];
    std::string points;
    for (const auto& pt : p->series) {
      points += SeriesNum(x(pt.value("t_s", 0.0))) + "," +
                SeriesNum(y(pt.value("p99_ns", 0.0))) + " ";
    }
    svg += "<polyline fill=\"none\" stroke=\"" + color +
           "\" stroke-width=\"2\" points=\"" + points + "\"/>";
    const double ly = kSeriesTop + 14 + 18 * static_cast<double>(i);
    svg += "<line x1=\"" + SeriesNum(kSeriesLeft + w + 10) + "\" y1=\"" +
           SeriesNum(ly - 4) + "\" x2=\"" + SeriesNum(kSeriesLeft + w + 30) +
           "\" y2=\"" + SeriesNum(ly - 4) + "\" stroke=\"" + color +
           "\" stroke-width=\"2\"/><text x=\"" +
           SeriesNum(kSeriesLeft + w + 34) + "\" y=\"" + SeriesNum(ly) +
           "\" font-size=\"11\">" + HtmlEscape(p->cell.backend) + "</text>";
    ++i;
  }
  return svg + "</svg>";
}

}  // namespace

Block WritingChartBlock(const std::string& title, const std::string& file,
                        const std::vector<const Pass*>& group) {
  Block b;
  b.kind = Block::Kind::kChart;
  b.chart.title = title;
  b.chart_file = file;
  b.svg_inline = RenderSeries(title, group, /*standalone=*/false);
  b.svg_standalone = RenderSeries(title, group, /*standalone=*/true);
  return b;
}

}  // namespace flatbench::report
