// `flatbench report FRESH.json AGED.json`: two runs of the same logical
// content, bulk-loaded fresh (gen --blocks N) and aged through each store's
// write path (age --blocks N), compared cell by cell.
#include "report/document/shape_compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/results_schema.h"
#include "dataset/names.h"
#include "report/document/document_parts.h"
#include "report/interval.h"
#include "report/numbers.h"
#include "report/read_cost.h"
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

// The store whose base is byte-identical in both shapes (a merge writes
// what a fresh gen writes): every read path of it is the control, and its
// aged ÷ fresh ratios are the noise this host adds.
constexpr char kControlStore[] = "arena";

bool IsControl(const std::string& backend) {
  return dataset::StoreOf(backend) == kControlStore;
}

// A per-read figure shown in both shapes, "fresh → aged". A column shows
// only when some row has the figure, so a backend's own counter (RocksDB's
// data blocks or filter probes per read) is one more line here: its
// header, how a cell's median is read (CellStats::Of(counter).median) and
// its decimals; other backends' rows show "–".
struct PerReadColumn {
  const char* header;
  double (*of)(const ResultSet&, const CellKey&, const CellStats&);
  int decimals;
};
constexpr PerReadColumn kPerReadColumns[] = {
    {"pages per read, fresh → aged",
     [](const ResultSet&, const CellKey&, const CellStats& c) {
       return MeasuredPagesPerRead(c);
     },
     2},
    {"data blocks per read, fresh → aged",
     [](const ResultSet& rs, const CellKey& k, const CellStats&) {
       return ReadCostOf(rs, k).data_blocks;
     },
     2},
    {"filter probes per read, fresh → aged",
     [](const ResultSet& rs, const CellKey& k, const CellStats&) {
       return ReadCostOf(rs, k).filter_probes;
     },
     2},
};

// One backend's cell measured in both shapes.
struct Compared {
  CellKey key;
  const CellStats* fresh = nullptr;
  const CellStats* aged = nullptr;
  double ratio = NAN;  // Aged reads/s over fresh, medians.
  Interval interval;   // Its 95% bootstrap interval.
};

// Cells of a table, kind and mode: the control's envelope is per group.
std::string Group(const CellKey& k) {
  return k.table + " " + k.kind + " " + k.mode;
}

// The envelope of the control's intervals: from the lowest low to the
// highest high over every read path and thread count of the control in
// the group.
std::map<std::string, Interval> ControlEnvelopes(
    const std::vector<Compared>& rows) {
  std::map<std::string, Interval> out;
  for (const Compared& c : rows) {
    if (!IsControl(c.key.backend) || !std::isfinite(c.interval.low)) continue;
    const auto it = out.try_emplace(Group(c.key), c.interval).first;
    it->second.low = std::min(it->second.low, c.interval.low);
    it->second.high = std::max(it->second.high, c.interval.high);
  }
  return out;
}

// What the row's interval says against its group's control (RESEARCH.md
// section 11, "Fresh against aged"): a change only when it lies wholly
// outside the control's envelope.
TableCell Call(const Compared& c,
               const std::map<std::string, Interval>& envelopes) {
  if (IsControl(c.key.backend)) return {"control"};
  const auto env = envelopes.find(Group(c.key));
  if (env == envelopes.end() || !std::isfinite(c.interval.low)) {
    return {"no control"};
  }
  if (c.interval.low > env->second.high) {
    return {"change: faster aged", TableCell::Style::kPass};
  }
  if (c.interval.high < env->second.low) {
    return {"change: slower aged", TableCell::Style::kFail};
  }
  return {"within noise", TableCell::Style::kNoise};
}

std::vector<Compared> CompareCells(const Verdict& fresh, const Verdict& aged) {
  std::vector<Compared> out;
  for (const auto& [key, a] : aged.cells) {
    if (!r::IsReadKind(key.kind) || a.repetitions == 0) continue;
    const CellStats* f = MeasuredCell(fresh.cells, key);
    if (f == nullptr) continue;
    out.push_back({key, f, &a, a.reads_per_s.median / f->reads_per_s.median,
                   BootstrapRatioOfMedians(a.rates, f->rates)});
  }
  return out;
}

std::string FreshToAged(double f, double a, int decimals) {
  return Fixed(f, decimals) + " → " + Fixed(a, decimals);
}

Table CompareTable(const ResultSet& fresh_rs, const Verdict& fresh,
                   const ResultSet& aged_rs, const Verdict& aged,
                   const std::vector<Compared>& rows) {
  const auto envelopes = ControlEnvelopes(rows);
  std::vector<const PerReadColumn*> columns;
  for (const PerReadColumn& col : kPerReadColumns) {
    for (const Compared& c : rows) {
      if (std::isfinite(col.of(fresh_rs, c.key, *c.fresh)) ||
          std::isfinite(col.of(aged_rs, c.key, *c.aged))) {
        columns.push_back(&col);
        break;
      }
    }
  }
  Table t;
  t.header = {
      "backend",      "cell",         "fresh reads/s",      "aged reads/s",
      "aged ÷ fresh", "95% interval", "against the control"};
  for (const PerReadColumn* col : columns) t.header.push_back(col->header);
  t.header.push_back("own device reads/s, fresh → aged");
  t.header.push_back("aged ÷ fresh per device rate");
  t.right_aligned.assign(t.header.size(), true);
  t.right_aligned[0] = t.right_aligned[1] = t.right_aligned[6] = false;
  for (const Compared& c : rows) {
    const Row row{c.key.table, c.key.kind, c.key.threads};
    const double dev_f = OwnDeviceRate(fresh, c.key.backend, row, c.key.mode);
    const double dev_a = OwnDeviceRate(aged, c.key.backend, row, c.key.mode);
    const bool cold = r::IsColdMode(c.key.mode);
    std::vector<TableCell> cells = {
        {c.key.backend},
        {Cell(c.key)},
        {Count(c.fresh->reads_per_s.median)},
        {Count(c.aged->reads_per_s.median)},
        {Ratio(c.ratio)},
        {Ratio(c.interval.low) + "–" + Ratio(c.interval.high)},
        Call(c, envelopes)};
    for (const PerReadColumn* col : columns) {
      const double f = col->of(fresh_rs, c.key, *c.fresh);
      const double a = col->of(aged_rs, c.key, *c.aged);
      cells.push_back({std::isfinite(f) || std::isfinite(a)
                           ? FreshToAged(f, a, col->decimals)
                           : "–"});
    }
    cells.push_back({cold ? Count(dev_f) + " → " + Count(dev_a) : "–"});
    cells.push_back({cold ? Ratio(c.ratio / (dev_a / dev_f)) : "–"});
    t.rows.push_back(std::move(cells));
  }
  return t;
}

// The control's envelope per table, kind and mode, as list items.
std::vector<std::string> EnvelopeLines(const std::vector<Compared>& rows) {
  std::vector<std::string> out;
  for (const auto& [group, env] : ControlEnvelopes(rows)) {
    out.push_back(group + ": " + Ratio(env.low) + "–" + Ratio(env.high));
  }
  return out;
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
  const std::vector<Compared> rows = CompareCells(vf, va);
  cells.blocks.push_back(Paragraph(
      "Each ratio has its 95% bootstrap interval over the repetitions "
      "(RESEARCH.md §7). The arena's base is byte-identical in both shapes, "
      "so its read paths are the control: their ratios are the noise this "
      "host adds. A backend's ratio is called a change only when its "
      "interval lies wholly outside the control's envelope for the same "
      "table, kind and mode (from the lowest to the highest bound of the "
      "control's intervals at every thread count; RESEARCH.md §11); "
      "otherwise it is within noise. The control's envelopes:"));
  const std::vector<std::string> envelopes = EnvelopeLines(rows);
  cells.blocks.push_back(
      envelopes.empty()
          ? Paragraph("None: the control was not measured in both shapes, so "
                      "no difference is called a change.")
          : List(envelopes));
  cells.blocks.push_back(TableBlock(CompareTable(fresh, vf, aged, va, rows)));
  d.sections.push_back(std::move(cells));
  d.sections.push_back(ShapeSection(aged));
  Section upkeep = UpkeepChoiceSection(aged, options.drive_tbw);
  if (!upkeep.blocks.empty()) d.sections.push_back(std::move(upkeep));
  return d;
}

}  // namespace flatbench::report
