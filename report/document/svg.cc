#include "report/document/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/document/svg_parts.h"
#include "report/numbers.h"

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

using svg_detail::LegendItem;

// A chart's legend: the outcomes when bars are judged (and the series'
// styles when several are), else the visible series; then the marker.
std::vector<LegendItem> ChartLegend(const BarChart& chart,
                                    const std::vector<size_t>& visible) {
  using namespace svg_detail;  // NOLINT: the renderer's own pieces.
  std::vector<LegendItem> items;
  if (JudgedColors(chart)) {
    items.push_back({kPass, "passes", ""});
    if (chart.color_noise) {
      items.push_back(
          {kNoise, "within noise (interval contains the bound)", ""});
    }
    items.push_back({kFail, "fails", ""});
    for (size_t k = 0; k < visible.size() && chart.judge; ++k) {
      items.push_back(
          {kNeutral, chart.series[visible[k]].name, SeriesStyle(k, kNeutral)});
    }
  } else {
    for (size_t s : visible) {
      items.push_back(
          {kPalette[s % std::size(kPalette)], chart.series[s].name, ""});
    }
  }
  if (!chart.marker_label.empty()) {
    items.push_back({"", chart.marker_label, ""});
  }
  return items;
}

// A grid's legend: the visible series in their colours, then the marker.
std::vector<LegendItem> GridLegend(const BarGrid& grid,
                                   const std::vector<size_t>& visible) {
  using namespace svg_detail;  // NOLINT: the renderer's own pieces.
  std::vector<LegendItem> items;
  for (size_t s : visible) {
    if (s >= grid.series_names.size()) continue;
    items.push_back(
        {kPalette[s % std::size(kPalette)], grid.series_names[s], ""});
  }
  if (!grid.marker_label.empty()) items.push_back({"", grid.marker_label, ""});
  return items;
}

// Every panel of the grid, row by row; *most_groups: the most groups of any.
std::vector<const BarChart*> AllPanels(const BarGrid& grid,
                                       size_t* most_groups) {
  std::vector<const BarChart*> all;
  for (const auto& row : grid.panels) {
    for (const auto& p : row) {
      *most_groups = std::max(*most_groups, p.groups.size());
      all.push_back(&p);
    }
  }
  return all;
}

}  // namespace

std::string RenderSvg(const BarChart& chart, bool standalone) {
  using namespace svg_detail;  // NOLINT: the renderer's own pieces.
  const double n =
      static_cast<double>(std::max<size_t>(chart.groups.size(), 1));
  const double ns =
      static_cast<double>(std::max<size_t>(VisibleSeries({&chart}).size(), 1));
  const double plot_w =
      std::max(kChartWidth - kLeft - kMargin, n * (ns * kMinBar + kGroupGap));
  const Labels labels = LayOutLabels(chart.groups, plot_w / n);
  const double width = kLeft + plot_w + std::max(kMargin, labels.overflow);

  const std::vector<size_t> visible = VisibleSeries({&chart});
  const std::vector<LegendItem> items = ChartLegend(chart, visible);
  const double legend_w = width - kLeft - kMargin;
  const double legend_h = LegendRows(items, legend_w) * kLegendRow;
  const Frame f{kLeft, kTitleHeight + legend_h + 16, plot_w, kPlotHeight};
  const double height = f.y + f.h + labels.height + kMargin;
  const Axis axis({&chart}, chart.log_scale, chart.threshold);

  std::string o = Open(width, height, chart.title, standalone);
  DrawLegend(items, kLeft, kTitleHeight, legend_w, &o);
  DrawGridLines(axis, f, /*tick_labels=*/true, &o);
  o += DrawAxisTitle(AxisTitle(chart.y_label, chart.log_scale), 16,
                     f.y + f.h / 2);
  DrawBars(chart, axis, f, "", chart.marker_label, visible, &o);
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
  using namespace svg_detail;  // NOLINT: the renderer's own pieces.
  const size_t rows = grid.panels.size();
  size_t cols = 0;
  for (const auto& row : grid.panels) cols = std::max(cols, row.size());
  const double nc = static_cast<double>(std::max<size_t>(cols, 1));
  size_t most_groups = 1;
  const std::vector<const BarChart*> all = AllPanels(grid, &most_groups);
  // Series without a bar in any panel take no place and no legend entry.
  const std::vector<size_t> visible = VisibleSeries(all);
  const double ns = static_cast<double>(std::max<size_t>(visible.size(), 1));
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

  const std::vector<LegendItem> items = GridLegend(grid, visible);
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
    o += DrawAxisTitle(AxisTitle(grid.y_label, grid.log_scale), 32,
                       y + kPanelHeight / 2);
    for (size_t c = 0; c < grid.panels[r].size(); ++c) {
      const BarChart& p = grid.panels[r][c];
      const Frame f{kLeft + c * (panel_w + kPanelGap), y, panel_w,
                    kPanelHeight};
      DrawGridLines(axis, f, /*tick_labels=*/c == 0, &o);
      std::string where;
      if (r < grid.row_labels.size()) where += grid.row_labels[r] + ", ";
      if (c < grid.column_labels.size()) where += grid.column_labels[c] + ", ";
      DrawBars(p, axis, f, where, grid.marker_label, visible, &o);
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
