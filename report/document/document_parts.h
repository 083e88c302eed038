#pragma once
// Internal to the report's layout: the row model shared by the tables
// (document_tables.cc) and charts (document_charts.cc) of document.cc.

#include <string>
#include <vector>

#include "report/document/document.h"

namespace flatbench::report {

// A table x kind x threads cell, without backend and mode.
struct Row {
  std::string table;
  std::string kind;
  int threads = 0;
  auto operator<=>(const Row&) const = default;
  std::string Label() const {
    return table + " " + kind + " " + std::to_string(threads) + "t";
  }
};

// Read-kind rows seen in `mode`, plus, for the gate mode, every required
// one (so a missing cell shows as a row of dashes).
std::vector<Row> Rows(const Verdict& v, const std::string& mode);

// The cell's stats, or nullptr if absent or without a good pass.
const CellStats* Find(const Verdict& v, const std::string& backend,
                      const Row& row, const std::string& mode);

// The backend's own-file device rate for a row's table and threads (median
// over repetitions), NaN if not measured.
double OwnDeviceRate(const Verdict& v, const std::string& backend,
                     const Row& row, const std::string& mode);

Block ChartBlock(BarChart chart, std::string file);

// Each ratio against its threshold, with interval and margin.
Table RatioTable(const Verdict& v);
// One row per backend per cell: the figures behind every ratio.
Table CellTable(const Verdict& v, const std::string& mode,
                bool with_mode_column);
// Per-backend own-file device rates: backend x table x threads, with the
// max/min spread per (table, threads).
Table DeviceRateTable(const Verdict& v, const std::string& mode);
// Median preloaded bytes per backend per mode.
Table PreloadTable(const Verdict& v, const ResultSet& r);
// First and last pass start per backend, and its share of the schedule.
Table ScheduleTable(const Verdict& v, const ResultSet& r);

// Sections the card's terms line points at: the start of each title and
// its heading's HTML anchor.
inline constexpr char kWhyTitle[] = "Why this verdict";
inline constexpr char kWhyAnchor[] = "why-this-verdict";
inline constexpr char kGatesTitle[] = "Validity gates";
inline constexpr char kGatesAnchor[] = "validity-gates";
inline constexpr char kCellsTitle[] = "Per-cell results";
inline constexpr char kCellsAnchor[] = "per-cell-results";

// document_device.cc: the device class a run's figures are for, in words
// (report/device_class.h), and under the ceilings table, the device latency
// at which each hit check passes per read path, with the terms behind it
// (report/verdict/passing_latency.h); no blocks outside a cold gate mode.
std::string DeviceLine(const ResultSet& res);
std::vector<Block> PassingLatencyBlocks(const Verdict& v, const ResultSet& res);

// document_card.cc: the decision card, the report's first section. In
// markdown, everything up to its end fits in kCardLines lines.
inline constexpr int kCardLines = 40;
// `shape`: the stores' shape in a few words (ShapeBrief), on one line with
// `device`, the device class (DeviceLine).
Section CardSection(const Verdict& v, const std::string& shape,
                    const std::string& device);

// document_findings.cc: what the run says, in sentences from its figures.
struct PagesPerHit {
  double measured = 0;  // 4 KiB pages per hit, median over thread counts.
  double model = 0;     // The one-page model's P (1 - e^(-r/P)) / r.
};
// A backend's pages per hit on `table` in the gate mode (NaN if absent).
PagesPerHit PagesPerHitOf(const Verdict& v, const std::string& backend,
                          const std::string& table);
// A backend's hit cells against their own files' device rate
// (verdict/efficiency.h): medians over the tables' cells.
struct DeviceFigures {
  double device_side = 0;  // Storage reads/s over the device rate.
  double hit_rate = 0;     // Hits/s over the device rate.
};
// The backend's figures at `threads` in the gate mode, NaN if not measured.
DeviceFigures EfficiencyOf(const Verdict& v, const std::string& backend,
                           int threads);
// The sentences, in order: pages per hit per table, each read path's
// device-side efficiency and hit rate ÷ device rate, the checks beyond the
// device's limit, and any device ceiling that did not hold.
std::vector<std::string> Findings(const Verdict& v);
Section FindingsSection(const Verdict& v);

// document_charts.cc: each check's ratios per read path against its bound,
// and the backends' reads/s and p99 latency as small multiples.
Section RatioChartSection(const Verdict& v);
Section CellChartSection(const Verdict& v);
// document_why.cc: why the verdict is what it is, a bullet per failed gate
// and per check that did not pass clear of its bound, per read path.
Section WhySection(const Verdict& v);

// prose.cc: `text` as one paragraph, or when it is longer than
// kMaxParagraph, as its lead (up to its first ": ") and a list of the
// parts after it (split at "; ", or else at the top-level ", " and " and "
// of a list), so no paragraph of the report runs past kMaxParagraph.
std::vector<Block> Prose(const std::string& text);

// document_bottom_line.cc: the bottom line, a box under the badge in plain
// words from the run's figures: the decision; what the numbers say per
// judged read path (against each baseline, and misses); the one thing that
// limits the result, when the figures say so (the scale, the host or the
// device); and the next step as a command.
struct BottomLine {
  std::string decision;
  std::vector<std::string> paths;  // One per judged read path.
  std::string limit;               // Empty when nothing limits it.
  std::string next;
};
BottomLine BottomLineOf(const Verdict& v, const ResultSet& r);
// The box: "The bottom line", then its sentences in that order.
Block BottomLineBlock(const Verdict& v, const ResultSet& r);
// document_ops.cc: scans and startup, every backend, every mode measured.
Section OpsSection(const Verdict& v, const ResultSet& r);
// document_batch.cc: batched lookups, every backend, every mode measured,
// beside the same backend's point hits at the most threads.
Section BatchSection(const Verdict& v);

// document_shape.cc: the shape the run's stores were in, in words ("the
// stores aged by N blocks ..."), and the section with each aged store's
// upkeep and the arena's merge priced at full scale.
std::string ShapeLine(const ResultSet& r);
// The same in under 60 characters, for the card: "bulk-loaded", "aged by N
// blocks (flatbench age)", "N blocks' state, bulk-loaded", "mixed shapes".
std::string ShapeBrief(const ResultSet& r);
Section ShapeSection(const ResultSet& r);
// document_upkeep.cc: the arena's upkeep at full scale per merge interval,
// modelled from an aged run's rates (report/upkeep.h), beside the other
// aged stores' measured write amplification, for a drive rated
// `drive_tbw` TB written. No blocks when the run has no aged arena.
Section UpkeepChoiceSection(const ResultSet& r, double drive_tbw);

// document_writing.cc: reads during upkeep (bench --write-while-reading):
// each writing pass beside the same store's quiet hit reads, a chart per
// mode, table and thread count, and the modelled full-scale merge line
// (empty when no pass measured a merge rate). No blocks without writing
// passes.
Section WritingSection(const ResultSet& rs);
std::string ModelledMergeLine(const ResultSet& rs,
                              const std::vector<const Pass*>& passes);
// svg_series.cc: the chart of `group`'s read p99 series, one line per
// store, the merge windows shaded.
Block WritingChartBlock(const std::string& title, const std::string& file,
                        const std::vector<const Pass*>& group);

// document_read_cost.cc: for the per-cell section, each cold read cell's
// cost in its backend's own counts (read_cost.h) per read and per level,
// and beside it the levels of those backends' stores; empty when no pass
// carried such counts.
std::vector<Block> ReadCostBlocks(const Verdict& v, const ResultSet& r);

}  // namespace flatbench::report
