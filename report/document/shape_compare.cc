// `flatbench report FRESH.json AGED.json`: two runs of the same logical
// content, bulk-loaded fresh (gen --blocks N) and aged through each store's
// write path (age --blocks N), compared cell by cell.
#include "report/document/shape_compare.h"

#include <cmath>

#include "common/results_schema.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/verdict/ceiling.h"
#include "report/verdict/cells.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

// "fresh", "aged", "mixed", or "" when no store recorded a shape.
std::string RunKind(const ResultSet& rs) {
  std::string kind;
  for (const auto& [backend, shape] : rs.shapes) {
    const std::string k = shape.value("kind", "");
    if (kind.empty()) kind = k;
    if (k != kind) return "mixed";
  }
  return kind;
}

std::string Cell(const CellKey& k) {
  return k.table + " " + k.kind + " " + std::to_string(k.threads) + "t " +
         k.mode;
}

Table CompareTable(const Verdict& fresh, const Verdict& aged) {
  Table t;
  t.header = {"backend",
              "cell",
              "fresh reads/s",
              "aged reads/s",
              "aged ÷ fresh",
              "pages per read, fresh → aged",
              "own device reads/s, fresh → aged",
              "aged ÷ fresh per device rate"};
  t.right_aligned = {false, false, true, true, true, true, true, true};
  for (const auto& [key, a] : aged.cells) {
    if (!r::IsReadKind(key.kind) || a.repetitions == 0) continue;
    const CellStats* f = MeasuredCell(fresh.cells, key);
    if (f == nullptr) continue;
    const CellStats& fs = *f;
    const double ratio = a.reads_per_s.median / fs.reads_per_s.median;
    const Row row{key.table, key.kind, key.threads};
    const double dev_f = OwnDeviceRate(fresh, key.backend, row, key.mode);
    const double dev_a = OwnDeviceRate(aged, key.backend, row, key.mode);
    const bool cold = r::IsColdMode(key.mode);
    t.rows.push_back({{key.backend},
                      {Cell(key)},
                      {Count(fs.reads_per_s.median)},
                      {Count(a.reads_per_s.median)},
                      {Ratio(ratio)},
                      {Fixed(MeasuredPagesPerRead(fs), 2) + " → " +
                       Fixed(MeasuredPagesPerRead(a), 2)},
                      {cold ? Count(dev_f) + " → " + Count(dev_a) : "–"},
                      {cold ? Ratio(ratio / (dev_a / dev_f)) : "–"}});
  }
  return t;
}

}  // namespace

Status ComparableShapes(const ResultSet& fresh, const ResultSet& aged) {
  for (const r::ContextKey& k : r::AllContextKeys()) {
    if (!k.provenance || k.name == r::kDatasetDir.name) continue;
    if (fresh.Context(k) != aged.Context(k)) {
      return Status::Corruption(
          "results of two shapes compare only the same content on the same "
          "host and build: " +
          fresh.files.front() + " has " + std::string(k.name) + " '" +
          fresh.Context(k) + "' but " + aged.files.front() + " has '" +
          aged.Context(k) + "'");
    }
  }
  if (RunKind(fresh) != "fresh" || RunKind(aged) != "aged") {
    return Status::Corruption(
        "results of two shapes: " + fresh.files.front() + " holds " +
        (RunKind(fresh).empty() ? "no shape" : RunKind(fresh)) +
        " stores and " + aged.files.front() + " " +
        (RunKind(aged).empty() ? "no shape" : RunKind(aged)) +
        " ones; give a run on gen --blocks N's dataset, then one on age "
        "--blocks N's");
  }
  return Status::Ok();
}

bool LooksLikeShapePair(const ResultSet& a, const ResultSet& b) {
  return a.Context(r::kSpec) == b.Context(r::kSpec) &&
         a.Context(r::kFingerprint) == b.Context(r::kFingerprint) &&
         !RunKind(a).empty() && !RunKind(b).empty() && RunKind(a) != RunKind(b);
}

Document BuildShapeComparison(const ResultSet& fresh, const Verdict& vf,
                              const ResultSet& aged, const Verdict& va,
                              const DocumentOptions& options) {
  Document d;
  d.title = "flatbench: fresh and aged stores of the same content";
  d.outcome = va.outcome;
  d.verdict_line = std::string("Verdict on the aged shape: ") +
                   OutcomeName(va.outcome) +
                   " (fresh: " + OutcomeName(vf.outcome) + ")";
  Section top{"One content, two shapes", {}};
  top.blocks.push_back(Paragraph(
      "Dataset " + aged.Context(r::kSpec) + ", fingerprint " +
      aged.Context(r::kFingerprint) + ". Fresh (" + fresh.files.front() +
      "): " + ShapeLine(fresh) + ". Aged (" + aged.files.front() +
      "): " + ShapeLine(aged) +
      ". The exit code is the aged shape's verdict: it is the one a running "
      "node would see."));
  Block lines;
  lines.kind = Block::Kind::kList;
  for (const std::string& l : VerdictLines(va))
    lines.items.push_back("Aged: " + l);
  for (const std::string& l : VerdictLines(vf))
    lines.items.push_back("Fresh: " + l);
  top.blocks.push_back(std::move(lines));
  d.sections.push_back(std::move(top));

  Section cells{"Aged over fresh, per backend and cell", {}};
  cells.blocks.push_back(Paragraph(
      "Medians over each cell's repetitions. Pages per read: 4 KiB pages "
      "read from storage per read. This host's storage serves recently "
      "written files faster than old ones (RESEARCH.md §8a), and aging "
      "rewrites files, so the last column divides the ratio by the ratio of "
      "the two stores' own-file device rates at the same threads: the "
      "ratio normalised by each store's own-file device rate (which also "
      "takes out part of what aging did to the files' layout on disk)."));
  cells.blocks.push_back(TableBlock(CompareTable(vf, va)));
  d.sections.push_back(std::move(cells));
  d.sections.push_back(ShapeSection(aged));
  Section upkeep = UpkeepChoiceSection(aged, options.drive_tbw);
  if (!upkeep.blocks.empty()) d.sections.push_back(std::move(upkeep));
  return d;
}

}  // namespace flatbench::report
