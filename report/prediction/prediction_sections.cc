// The prediction report's trend and model sections.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "common/results_schema.h"
#include "report/interval.h"
#include "report/numbers.h"
#include "report/prediction/model.h"
#include "report/prediction/prediction_parts.h"
#include "report/prediction/trend_chart.h"

namespace flatbench::report {

std::string RangeText(double v, const Interval& iv) {
  return Ratio(v) + " [" + Ratio(iv.low) + ", " + Ratio(iv.high) + "]";
}

namespace {

using Style = TableCell::Style;
using Outlook = PredictedCheck::Outlook;

std::string SizeLabel(double accounts) { return Short(accounts) + " acc"; }

std::string OutlookText(const PredictedCheck& p) {
  if (!p.fitted) return "no trend (fewer than two sizes)";
  switch (p.outlook) {
    case Outlook::kPass:
      return "predicted to pass";
    case Outlook::kFail:
      return "predicted to fail";
    case Outlook::kUndecided:
      return "interval holds the bound";
  }
  return "";
}

Style OutlookStyle(const PredictedCheck& p) {
  if (!p.fitted || p.outlook == Outlook::kUndecided) return Style::kPlain;
  return p.outlook == Outlook::kPass ? Style::kPass : Style::kFail;
}

// Median 4 KiB pages read from storage per read in the cold cells of
// (backend, table, kind), over every thread count and repetition.
double MeasuredPages(const ResultSet& rs, const std::string& backend,
                     const std::string& table, const std::string& kind) {
  std::vector<double> v;
  for (const auto& p : rs.passes) {
    if (p.cell.backend == backend && p.cell.table == table &&
        p.cell.kind == kind && p.cell.mode == results::kModeCold) {
      const double b = p.Get(results::kBytesReadPerRead);
      if (std::isfinite(b)) v.push_back(b / kPageBytes);
    }
  }
  return Median(v);
}

// One gated cell's row: its ratio at each size, the trend per decade and
// at full scale, the bound and the outlook.
std::vector<TableCell> TrendRow(const SweepInput& sweep,
                                const PredictedCheck& p) {
  std::vector<TableCell> row = {
      {p.threshold.name},
      {p.table + " " + p.kind + " " + std::to_string(p.threads) + "t"}};
  for (const auto& size : sweep.sizes) {
    std::string cell = "–";
    for (const auto& pt : p.points) {
      if (pt.pairs == static_cast<double>(size.pairs)) {
        cell = RangeText(pt.ratio, pt.interval);
      }
    }
    row.push_back({cell});
  }
  row.push_back({p.fitted ? Fixed(p.trend.per_decade, 3) : "–"});
  row.push_back({p.fitted ? RangeText(p.trend.predicted, p.trend.interval) +
                                (p.trend.widened ? " (widened)" : "")
                          : "–"});
  row.push_back({std::string(p.threshold.HigherIsBetter() ? "≥ " : "≤ ") +
                 Ratio(p.threshold.bound)});
  row.push_back({OutlookText(p), OutlookStyle(p)});
  return row;
}

Table TrendTable(const SweepInput& sweep,
                 const std::vector<PredictedCheck>& checks) {
  Table t;
  t.header = {"check", "cell"};
  for (const auto& size : sweep.sizes) {
    t.header.push_back(SizeLabel(static_cast<double>(size.accounts)));
  }
  t.header.insert(t.header.end(),
                  {"per decade", "full scale (95%)", "bound", "outlook"});
  for (const auto& p : checks) t.rows.push_back(TrendRow(sweep, p));
  return t;
}

// The checks grouped by check x table x kind, in order of first
// appearance: one chart each.
std::vector<std::vector<const PredictedCheck*>> TrendChartGroups(
    const std::vector<PredictedCheck>& checks) {
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
  std::vector<std::vector<const PredictedCheck*>> groups;
  for (const auto& p : checks) {
    auto key = std::make_tuple(p.threshold.name, p.table, p.kind);
    auto [it, added] = index.emplace(key, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(&p);
  }
  return groups;
}

// One thread count's ratios against pairs, with its fitted trend.
TrendSeries TrendSeriesOf(const PredictedCheck& p) {
  TrendSeries series;
  series.name = std::to_string(p.threads) + " threads";
  for (const auto& pt : p.points) {
    series.x.push_back(pt.pairs);
    series.y.push_back(pt.ratio);
    series.low.push_back(pt.interval.low);
    series.high.push_back(pt.interval.high);
  }
  series.fitted = p.fitted;
  series.predicted = p.trend.predicted;
  series.predicted_low = p.trend.interval.low;
  series.predicted_high = p.trend.interval.high;
  series.per_decade = p.trend.per_decade;
  return series;
}

// The chart of one group, one series per thread count, as trend-N.svg.
Block TrendChartBlock(const std::vector<const PredictedCheck*>& cells,
                      const dataset::Spec& full, int n) {
  const PredictedCheck& first = *cells.front();
  TrendChart c;
  c.title = first.threshold.name + ": " + first.table + " " + first.kind +
            " against dataset size";
  c.y_label = "ratio";
  c.target_x = static_cast<double>(full.accounts + full.storage_slots());
  c.bound = first.threshold.bound;
  for (const PredictedCheck* p : cells) c.series.push_back(TrendSeriesOf(*p));
  Block b;
  b.kind = Block::Kind::kChart;
  b.chart_file = "trend-" + std::to_string(n) + ".svg";
  b.chart.title = c.title;
  b.svg_inline = RenderTrendSvg(c, /*standalone=*/false);
  b.svg_standalone = RenderTrendSvg(c, /*standalone=*/true);
  return b;
}

// The RAM of the host that measured `size`, or the required RAM when it
// was not recorded.
uint64_t MeasuringHostRam(const SweepSize& size) {
  const auto ram = size.results.Integer(results::kRamBytes.name);
  return ram.has_value() && *ram > 0 ? static_cast<uint64_t>(*ram)
                                     : kRequiredRamBytes;
}

uint64_t SizeReadsPerPass(const SweepSize& size) {
  return static_cast<uint64_t>(
      size.results.Integer(results::kReadsPerPass.name).value_or(0));
}

constexpr flatbench::Table kModelTables[] = {flatbench::Table::kAccount,
                                             flatbench::Table::kStorage};

// The model's inputs: each backend's table geometry at every size.
Table ModelInputTable(const SweepInput& sweep) {
  Table geo;
  geo.header = {"accounts",        "backend",   "table",
                "data unit",       "index",     "filter",
                "metadata B/pair", "filter fp", "index levels"};
  for (const auto& size : sweep.sizes) {
    for (const auto& [backend, g] : size.geometry) {
      for (flatbench::Table tb : kModelTables) {
        const ReadGeometry& tg = g.at(tb);
        geo.rows.push_back(
            {{Count(static_cast<double>(size.accounts))},
             {backend},
             {TableName(tb)},
             {tg.data_units > 0 ? Bytes(static_cast<double>(tg.data_bytes) /
                                        static_cast<double>(tg.data_units))
                                : "–"},
             {Bytes(static_cast<double>(tg.index_bytes))},
             {Bytes(static_cast<double>(tg.filter_bytes))},
             {tg.pairs > 0
                  ? Sig(static_cast<double>(tg.index_bytes + tg.filter_bytes) /
                        static_cast<double>(tg.pairs))
                  : "–"},
             {tg.filter_fp_rate < 1 ? Sig(tg.filter_fp_rate) : "no filter"},
             {std::to_string(tg.index_levels)}});
      }
    }
  }
  return geo;
}

// Measured less predicted pages, and as a share of the prediction when it
// is not near zero; "–" when nothing was measured.
std::string PagesError(double measured, double predicted) {
  if (!std::isfinite(measured)) return "–";
  return (measured >= predicted ? "+" : "") + Sig(measured - predicted) +
         " pages" +
         (predicted > 0.05
              ? " (" + Percent((measured - predicted) / predicted) + ")"
              : "");
}

// The model's pages per read against the measured ones, per backend, table
// and read kind at every size, on the measuring host's RAM.
Table ModelValidationTable(const SweepInput& sweep) {
  Table val;
  val.header = {"accounts",        "backend",        "table", "kind",
                "predicted pages", "measured pages", "error"};
  for (const auto& size : sweep.sizes) {
    for (const auto& [backend, g] : size.geometry) {
      const ModelPrediction m =
          Predict(g, MeasuringHostRam(size), SizeReadsPerPass(size));
      for (flatbench::Table tb : kModelTables) {
        const std::string table = TableName(tb);
        for (std::string_view kind_name : results::kKinds) {
          if (!results::IsReadKind(kind_name) ||
              !results::CellExists(table, kind_name)) {
            continue;
          }
          const std::string kind(kind_name);
          const double predicted = kind == results::kKindHit
                                       ? m.at(tb).hit_reads
                                       : m.at(tb).miss_reads;
          const double measured =
              MeasuredPages(size.results, backend, table, kind);
          val.rows.push_back({{Count(static_cast<double>(size.accounts))},
                              {backend},
                              {table},
                              {kind},
                              {Sig(predicted)},
                              {Sig(measured)},
                              {PagesError(measured, predicted)}});
        }
      }
    }
  }
  return val;
}

// The largest size's geometry grown to `full` on the required RAM, per
// backend and table; sets *full_geometry to each grown geometry.
Table ModelFullScaleTable(
    const SweepInput& sweep, const dataset::Spec& full,
    std::map<std::string, BackendGeometry>* full_geometry) {
  Table fs;
  fs.header = {"backend",
               "metadata at full scale",
               "resident on " + Bytes(static_cast<double>(kRequiredRamBytes)),
               "stops fitting at",
               "table",
               "pages per hit",
               "pages per miss",
               "index levels"};
  const auto& last = sweep.sizes.back();
  const uint64_t last_reads = SizeReadsPerPass(last);
  for (const auto& [backend, g] : last.geometry) {
    BackendGeometry grown = ScaleTo(g, full.accounts, full.storage_slots());
    (*full_geometry)[backend] = grown;
    const ModelPrediction m = Predict(grown, kRequiredRamBytes, last_reads);
    const double step = PairsWhereMetadataStopsFitting(g, kRequiredRamBytes);
    for (flatbench::Table tb : kModelTables) {
      fs.rows.push_back(
          {{backend},
           {Bytes(static_cast<double>(m.metadata_bytes))},
           {Percent(m.resident_fraction),
            m.resident_fraction >= 1 ? Style::kPass : Style::kFail},
           {std::isfinite(step) ? Short(step) + " pairs" : "never"},
           {TableName(tb)},
           {Sig(m.at(tb).hit_reads)},
           {Sig(m.at(tb).miss_reads)},
           {std::to_string(grown.at(tb).index_levels)}});
    }
  }
  return fs;
}

}  // namespace

Section TrendSection(const SweepInput& sweep, const dataset::Spec& full,
                     const std::vector<PredictedCheck>& checks) {
  Section s{"Gated ratios against dataset size", {}};
  s.blocks.push_back(Paragraph(
      "Each gated cell's ratio of medians (the verdict's own computation on "
      "each size's results) with its 95% bootstrap interval, fitted as "
      "ln(ratio) = a + b·log10(pairs), weighted by each size's interval "
      "(at least 1%), and extrapolated to full scale. The full-scale "
      "interval propagates the sizes' intervals through the fit and, with "
      "three or more sizes, is widened when the points scatter more than "
      "their intervals allow. Per decade: the factor the ratio moves by for "
      "ten times the pairs."));
  s.blocks.push_back(TableBlock(TrendTable(sweep, checks)));
  int n = 0;
  for (const auto& cells : TrendChartGroups(checks)) {
    s.blocks.push_back(TrendChartBlock(cells, full, n++));
  }
  return s;
}

Section ModelSection(const SweepInput& sweep, const dataset::Spec& full,
                     std::map<std::string, BackendGeometry>* full_geometry) {
  Section s{"The geometric model: storage reads per hit and per miss", {}};
  s.blocks.push_back(Paragraph(
      "Computed from each dataset's own structure, read from the backends "
      "(arena index and filter bytes; RocksDB table properties; LMDB "
      "mdb_stat), never fitted to the measurements: a cold hit reads the "
      "pages of one data unit (arena block, RocksDB block with its trailer "
      "at a random offset, LMDB leaf page), plus one index page and one "
      "filter page each with the probability that the metadata is not "
      "resident; a miss reads a data unit with the filter's false-positive "
      "rate (LMDB, without a filter, always); a pass's reads that land on "
      "pages an earlier read of the same pass brought in are not read again "
      "(significant only while the table has few pages per read of a pass). "
      "Measured: the median "
      "bytes read from storage per read over every cold pass of the cell, "
      "in 4 KiB pages. The model assumes the host's RAM holds all metadata "
      "below the sizes where it says otherwise."));
  s.blocks.push_back(Paragraph("The model's inputs at each size:"));
  s.blocks.push_back(TableBlock(ModelInputTable(sweep)));
  s.blocks.push_back(Paragraph(
      "Validation: predicted against measured 4 KiB storage reads per read, "
      "at every measured size (on the measuring host's RAM):"));
  s.blocks.push_back(TableBlock(ModelValidationTable(sweep)));
  Table fs = ModelFullScaleTable(sweep, full, full_geometry);
  s.blocks.push_back(Paragraph(
      "At full scale, the largest size's geometry grown in proportion to "
      "each table's pairs, on a host with the RAM RESEARCH.md requires (" +
      Bytes(static_cast<double>(kRequiredRamBytes)) + ", of which " +
      Bytes(static_cast<double>(kRamReserveBytes)) +
      " is left to the system and the reader threads). Where the metadata "
      "does not fit, reads per hit step up, which no trend measured on "
      "smaller sizes can show:"));
  s.blocks.push_back(TableBlock(std::move(fs)));
  return s;
}

}  // namespace flatbench::report
