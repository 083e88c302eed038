#include "report/document/document.h"

#include <set>
#include <string_view>
#include <utility>

#include "report/document/document_context.h"
#include "report/document/document_parts.h"
#include "report/document/links.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using Style = TableCell::Style;

Section GateSection(const Verdict& v) {
  Section s{kGatesTitle, {}, kGatesAnchor};
  Table t;
  t.header = {"gate", "result", "figure"};
  Block details;
  details.kind = Block::Kind::kList;
  for (const auto& g : v.gates) {
    t.rows.push_back({{g.name},
                      {g.passed ? "passed" : "FAILED",
                       g.passed ? Style::kPass : Style::kFail},
                      {g.figure}});
    for (const auto& d : g.details) details.items.push_back(g.name + ": " + d);
  }
  s.blocks.push_back(TableBlock(std::move(t)));
  if (!details.items.empty()) {
    s.blocks.push_back(Paragraph("What the failing gates found:"));
    details.fold =
        "Each finding (" + std::to_string(details.items.size()) + ")";
    s.blocks.push_back(std::move(details));
  }
  return s;
}

// What the ratio table's two ceilings are, in two paragraphs.
void AddCeilingParagraphs(Section* s) {
  s->blocks.push_back(Paragraph(
      "Each hit check has two ceilings, with their " + Percent(kConfidence) +
      " bootstrap intervals. n = P (1 − e^(−r/P)) / r is the 4 KiB pages "
      "per hit a one-page format must read for a pass of r reads over the "
      "table's P pages (never more than the read path measured), and D its "
      "own files' device rate at T threads. The device ceiling, D / n "
      "reads/s over the baseline's reads/s, is what a one-page format with "
      "no CPU time of its own would reach on this device: each device read "
      "is a pread of one page of the same files, so its time already holds "
      "a read's system call."));
  s->blocks.push_back(Paragraph(
      "The own ceiling, T / (n T / D + c) reads/s over the same, adds c, "
      "the read path's CPU time per read (the smaller of its measured CPU "
      "time and its time per read less its storage waits): what its CPU "
      "per read allows on this device. Where in every repetition c is the "
      "time per read less the storage waits, and n the pages the read path "
      "measured, the own ceiling is the measured ratio by construction, "
      "and the table says \"" +
      std::string(kOwnIsMeasured) + "\"."));
  s->blocks.push_back(Paragraph(
      "A check whose bound lies above the device ceiling's interval is "
      "beyond this device's limit for any one-page format; where the "
      "measured ratio lies above that interval, the ceiling did not hold "
      "and the check is never marked beyond (RESEARCH.md §7)."));
}

Section CellSection(const Verdict& v, const ResultSet& res) {
  const std::string& mode = v.thresholds.gate_mode;
  Section s{
      std::string(kCellsTitle) + " (" + mode + " mode)", {}, kCellsAnchor};
  s.blocks.push_back(Paragraph(
      "Each ratio against its threshold. Hit checks compare median reads/s "
      "(higher is better). Miss checks compare the median cost per miss: "
      "threads / reads_per_s of each pass, the mean time one reader thread "
      "spends per miss read (lower is better). The interval is the " +
      Percent(kConfidence) +
      " bootstrap interval of the ratio; the margin is the ratio's distance "
      "from the bound in the passing direction."));
  s.blocks.push_back(TableBlock(RatioTable(v)));
  AddCeilingParagraphs(&s);
  for (Block& b : PassingLatencyBlocks(v, res))
    s.blocks.push_back(std::move(b));
  for (const auto& variant : v.variants) {
    s.blocks.push_back(Paragraph("Read path " + variant.thresholds.candidate +
                                 ", judged by the same thresholds (" +
                                 OutcomeName(variant.outcome) + "):"));
    s.blocks.push_back(TableBlock(RatioTable(variant)));
  }
  s.blocks.push_back(Paragraph(
      "Each backend's figures per cell: medians over the repetitions, the "
      "min–max spread of reads/s, p99 latency, major faults and bytes read "
      "from storage per read, mean and peak reads in flight, and for cold "
      "hits two figures against the backend's own files' device rate at "
      "the same thread count. Warm cells show minor faults per read "
      "instead (near zero in steady state)."));
  s.blocks.push_back(Paragraph(
      "The device-side efficiency is storage reads/s (the device's read "
      "requests per hit × hits/s) over the own files' device rate, at most "
      "about 1 when the pass is storage-bound; the hit rate ÷ device rate "
      "is hits/s over that rate, above 1 when a pass reads fewer pages "
      "than it has hits. A request is one whatever its size: a 12 KiB "
      "block read is one, as a device cell's 4 KiB read is."));
  s.blocks.push_back(TableBlock(CellTable(v, mode, false)));
  if (r::IsColdMode(mode)) {
    s.blocks.push_back(Paragraph(
        "Own-file device rates: 4 KiB O_DIRECT random reads at "
        "extent-weighted offsets inside each backend's files for the table, "
        "one read in flight per thread, measured in the backend's process "
        "just before its hit pass (median over repetitions). The storage "
        "uniformity gate requires their max/min per row to stay within " +
        Ratio(v.thresholds.max_device_rate_spread) + "."));
    s.blocks.push_back(TableBlock(DeviceRateTable(v, mode)));
  }
  for (Block& b : ReadCostBlocks(v, res)) s.blocks.push_back(std::move(b));
  s.blocks.push_back(Paragraph(
      "Preloaded bytes: what each backend's files had resident right after "
      "its open, before the pass (median over passes; in cold modes, what "
      "the open itself read)."));
  s.blocks.push_back(TableBlock(PreloadTable(v, res)));
  s.blocks.push_back(Paragraph(
      "The schedule: when each backend's passes ran, in seconds from the "
      "start of the run, and their positions in the run's order. With "
      "interleaved repetitions every backend's passes span the whole run. "
      "The order the run recorded is flatbench.schedule, under Dataset and "
      "run parameters."));
  s.blocks.push_back(TableBlock(ScheduleTable(v, res)));
  std::set<std::string> other;
  for (const auto& [key, st] : v.cells) {
    if (key.mode != mode && r::IsReadKind(key.kind)) other.insert(key.mode);
  }
  for (const auto& m : other) {
    s.blocks.push_back(Paragraph(
        "Mode " + m + " (informational; the verdict uses " + mode + " only):"));
    s.blocks.push_back(TableBlock(CellTable(v, m, true)));
  }
  return s;
}

}  // namespace

std::string Heading(const Document& doc, const Section& section) {
  return section.title == "Verdict" ? doc.verdict_line : section.title;
}

std::string TocLabel(const Document& doc, const Section& section) {
  return section.toc.empty() ? Heading(doc, section) : section.toc;
}

std::string SectionId(const Document& doc, const Section& section) {
  return section.anchor.empty() ? Anchor(Heading(doc, section))
                                : section.anchor;
}

// Sections' labels in the table of contents, by the start of the title.
constexpr std::pair<std::string_view, std::string_view> kTocLabels[] = {
    {"Verdict", "Verdict"},
    {"What the run says", "Findings"},
    {"Validity gates", "Gates"},
    {"Why this verdict", "Why"},
    {"Per-cell results", "Per cell"},
    {"Reads/s and latency", "Reads/s and p99"},
    {"Batched lookups", "Batches"},
    {"Reads during upkeep", "Writing"},
    {"The stores' shape", "Shape"},
    {"The upkeep as a choice", "Upkeep"},
    {"Memory and open time", "Memory"},
    {"Build time and on-disk size", "Build"},
    {"Backend settings", "Settings"},
    {"Dataset and run parameters", "Dataset"},
    {"Thresholds used", "Thresholds"},
};

// The order a decision-maker reads in: the bottom line and the card, what
// the run says, the ratio charts, the gates and why, the per-cell tables,
// then everything else.
Document BuildDocument(const Verdict& v, const ResultSet& results,
                       const DocumentOptions& options) {
  Document d;
  d.title = "flatbench go/no-go report";
  d.outcome = v.outcome;
  d.verdict_line = std::string("Verdict: ") + OutcomeName(v.outcome);
  Section card = CardSection(v, ShapeBrief(results), DeviceLine(results));
  card.blocks.insert(card.blocks.begin(), BottomLineBlock(v, results));
  d.sections.push_back(std::move(card));
  d.sections.push_back(FindingsSection(v));
  d.sections.push_back(RatioChartSection(v));
  d.sections.push_back(GateSection(v));
  d.sections.push_back(WhySection(v));
  d.sections.push_back(CellSection(v, results));
  d.sections.push_back(CellChartSection(v));
  d.sections.push_back(OpsSection(v, results));
  d.sections.push_back(BatchSection(v));
  Section writing = WritingSection(results);
  if (!writing.blocks.empty()) d.sections.push_back(std::move(writing));
  if (!results.shapes.empty()) {
    d.sections.push_back(ShapeSection(results));
    Section upkeep = UpkeepChoiceSection(results, options.drive_tbw);
    if (!upkeep.blocks.empty()) d.sections.push_back(std::move(upkeep));
  }
  AddContextSections(v, results, &d);
  // Short labels keep the table of contents to a line or two.
  for (Section& s : d.sections) {
    for (const auto& [title, label] : kTocLabels) {
      if (s.title.rfind(title, 0) == 0) s.toc = label;
    }
  }
  return d;
}

}  // namespace flatbench::report
