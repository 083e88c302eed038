// The decision card: the first thing in the report. The verdict, one line
// per judged read path, one table with a row per gated check (each read
// path's ratio, interval and outcome, and each read path's device ceiling,
// beside the check's bound), the failed gates, one line each, and a line
// that says what "beyond", "within noise" and "provisional" mean. In
// markdown everything up to the card's end fits in kCardLines lines,
// whatever the scale.
#include <algorithm>

#include "report/document/document_parts.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

using Style = TableCell::Style;

// "pass", "FAIL" or "within noise", and its style; on a run that failed a
// validity gate, marked provisional.
TableCell CardOutcome(const RatioCheck& c, std::string text, bool valid) {
  if (!c.available) return {"– no data", Style::kFail};
  const std::string mark = valid ? "" : " (provisional)";
  if (c.within_noise) return {text + " within noise" + mark, Style::kNoise};
  if (c.passed) return {text + " pass" + mark, Style::kPass};
  return {text + " FAIL" + mark, Style::kFail};
}

// "1.240 [1.102, 1.351]".
std::string RatioWithInterval(double ratio, const Interval& iv) {
  std::string out = Ratio(ratio);
  out.append(" [")
      .append(Ratio(iv.low))
      .append(", ")
      .append(Ratio(iv.high))
      .append("]");
  return out;
}

// The check's device ceiling for one read path, and whether the check is
// beyond it or the ceiling did not hold.
std::string CeilingCell(const RatioCheck& c, bool valid) {
  if (!c.ceiling.available) {
    return c.threshold.HigherIsBetter() ? "–" : "none (miss)";
  }
  std::string out = CeilingFigureText(c.ceiling.device);
  if (c.ceiling.beyond) out += valid ? " beyond" : " beyond (provisional)";
  if (!c.ceiling.held) out += " did not hold";
  return out;
}

std::string CardBound(const RatioThreshold& th) {
  return (th.HigherIsBetter() ? "≥ " : "≤ ") + Ratio(th.bound);
}

// "vs rocksdb hit reads/s" or "vs lmdb cost per miss".
std::string CheckText(const RatioThreshold& th) {
  return "vs " + th.baseline +
         (th.HigherIsBetter() ? " reads/s" : " cost per miss");
}

Table CardTable(const Verdict& v) {
  Table t;
  t.card = true;
  t.header = {"table", "kind", "threads", "check", "bound"};
  std::vector<const Verdict*> paths = {&v};
  for (const auto& variant : v.variants) paths.push_back(&variant);
  for (const Verdict* p : paths) {
    t.header.push_back(CandidateLabel(p->thresholds.candidate) + " [95%]");
  }
  for (const Verdict* p : paths) {
    t.header.push_back("device ceiling, " +
                       CandidateLabel(p->thresholds.candidate) + " [95%]");
  }
  t.right_aligned.assign(t.header.size(), true);
  t.right_aligned[0] = t.right_aligned[1] = t.right_aligned[3] = false;
  for (size_t i = 0; i < v.checks.size(); ++i) {
    const RatioCheck& c = v.checks[i];
    std::vector<TableCell> row = {{c.candidate.table},
                                  {c.candidate.kind},
                                  {std::to_string(c.candidate.threads)},
                                  {CheckText(c.threshold)},
                                  {CardBound(c.threshold)}};
    // Every read path is judged by the same checks in the same order.
    for (const Verdict* p : paths) {
      if (i >= p->checks.size()) {
        row.push_back({"–"});
        continue;
      }
      const RatioCheck& pc = p->checks[i];
      row.push_back(CardOutcome(pc, RatioWithInterval(pc.ratio, pc.interval),
                                p->Valid()));
    }
    for (const Verdict* p : paths) {
      row.push_back(
          {i < p->checks.size() ? CeilingCell(p->checks[i], p->Valid()) : "–"});
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

// The line under the card that says what its words mean, each pointing
// at the section that explains it.
Block TermsLine() {
  Block b = Paragraph(
      "beyond: the check's bound lies above its read path's device "
      "ceiling, so no one-page format could meet it on this device (see " +
      std::string(kCellsTitle) +
      "); within noise: the check's 95% interval contains its bound, so the "
      "repetitions cannot tell pass from fail (see " +
      kWhyTitle +
      "); provisional: the run failed a validity gate, so an outcome is "
      "what the numbers say, not a verdict (see " +
      kGatesTitle + ").");
  b.links = {{kCellsTitle, kCellsAnchor},
             {kWhyTitle, kWhyAnchor},
             {kGatesTitle, kGatesAnchor}};
  return b;
}

}  // namespace

Section CardSection(const Verdict& v, const std::string& shape,
                    const std::string& device) {
  Section s{"Verdict", {}};
  Block lines;
  lines.kind = Block::Kind::kList;
  lines.items = VerdictLines(v);
  Table table = CardTable(v);
  // Lines the card takes beside its gate lines: the title and its blank,
  // the verdict heading and its blank, the read-path lines and a blank,
  // the shape's line and its blank, the table (header, rule, rows) and a
  // blank, the gate lines' blank and the terms line.
  const int used = 4 + static_cast<int>(lines.items.size()) + 1 + 2 +
                   static_cast<int>(table.rows.size()) + 2 + 1 + 2;
  s.blocks.push_back(std::move(lines));
  s.blocks.push_back(
      Paragraph("Stores: " + shape + ". Device: " + device + "."));
  s.blocks.push_back(TableBlock(std::move(table)));
  Block gates;
  gates.kind = Block::Kind::kList;
  const std::vector<const Gate*> failed = v.FailedGates();
  if (failed.empty()) {
    gates.items.push_back("every validity gate passed");
  }
  const size_t room = static_cast<size_t>(std::max(1, kCardLines - used));
  for (size_t i = 0; i < failed.size(); ++i) {
    if (i + 1 == room && failed.size() > room) {
      std::string rest = "also failed: ";
      for (size_t j = i; j < failed.size(); ++j) {
        rest += (j == i ? "" : ", ") + failed[j]->name;
      }
      gates.items.push_back(rest + " (see Validity gates)");
      break;
    }
    gates.items.push_back("failed: " + failed[i]->name + " (" +
                          failed[i]->figure + ")");
  }
  s.blocks.push_back(std::move(gates));
  s.blocks.push_back(TermsLine());
  return s;
}

}  // namespace flatbench::report
