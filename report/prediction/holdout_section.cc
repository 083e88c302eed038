// The prediction report's holdout and hit-rate ÷ device-rate sections:
// each check's trend against the largest size it was not fitted on, and
// the hit checks' ratio of hit rate ÷ device rate per size.
#include <algorithm>
#include <cmath>

#include "common/results_schema.h"
#include "report/numbers.h"
#include "report/prediction/prediction_parts.h"
#include "report/prediction/structural_parts.h"
#include "report/prediction/trend.h"

namespace flatbench::report {

namespace {
using Style = TableCell::Style;
}  // namespace

Section HoldoutSection(const SweepInput& sweep,
                       const std::vector<PredictedCheck>& checks) {
  Section s{"The trend's holdout: the largest size from the smaller ones", {}};
  const SweepSize& last = sweep.sizes.back();
  if (sweep.sizes.size() < 3) {
    s.blocks.push_back(Paragraph(
        "A holdout needs three measured sizes: two to fit, one to predict. "
        "This sweep has " +
        std::to_string(sweep.sizes.size()) + "."));
    return s;
  }
  Table t;
  t.header = {"check",
              "cell",
              "predicted at " + Short(static_cast<double>(last.accounts)) +
                  " acc (95%)",
              "measured",
              "error",
              "measured inside"};
  for (const auto& p : checks) {
    std::vector<TrendPoint> fit;
    const TrendPoint* held = nullptr;
    for (const auto& pt : p.points) {
      if (pt.pairs == static_cast<double>(last.pairs)) {
        held = &pt;
      } else {
        fit.push_back(pt);
      }
    }
    if (held == nullptr) continue;
    auto tr = FitTrend(fit, held->pairs);
    if (!tr.ok()) continue;
    const double err = tr->predicted / held->ratio - 1;
    const bool inside =
        tr->interval.low <= held->ratio && held->ratio <= tr->interval.high;
    t.rows.push_back(
        {{p.threshold.name},
         {p.table + " " + p.kind + ", " + structural::Threads(p.threads)},
         {RangeText(tr->predicted, tr->interval)},
         {Ratio(held->ratio)},
         {structural::Signed(err),
          std::abs(err) <= 0.15 ? Style::kPass : Style::kFail},
         {inside ? "yes" : "no", inside ? Style::kPass : Style::kFail}});
  }
  s.blocks.push_back(Paragraph(
      "Each gated ratio's trend fitted on every size but the largest and "
      "extrapolated to the largest, against what was measured there: how "
      "well the trend would have predicted a size it had not seen."));
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

Section EfficiencySection(const SweepInput& sweep, const Thresholds& th,
                          double target_pairs) {
  Section s{"Hit rate ÷ device rate against dataset size", {}};
  s.blocks.push_back(Paragraph(
      "Each hit cell's hit rate ÷ device rate (hits/s over its own files' "
      "device cell at the same moment, io_efficiency; not a fraction: a "
      "pass reading fewer pages than it has hits exceeds 1) as the "
      "candidate's over the "
      "baseline's, per size, fitted and extrapolated like the raw ratios. A "
      "device that serves one backend's files slower than another's moves "
      "the raw ratio but not this one; where the two trends disagree, the "
      "device drifted."));
  Table t;
  t.header = {"check", "cell"};
  for (const auto& size : sweep.sizes) {
    t.header.push_back(Short(static_cast<double>(size.accounts)) + " acc");
  }
  t.header.insert(t.header.end(), {"per decade", "full scale (95%)"});
  bool any = false;
  for (const auto& c : th.checks) {
    if (c.metric != Metric::kHitReadsPerS) continue;
    for (const auto& [table, kinds] : th.cells) {
      if (std::find(kinds.begin(), kinds.end(), results::kKindHit) ==
          kinds.end())
        continue;
      for (int threads : th.threads) {
        std::vector<TableCell> row = {
            {c.name}, {table + " hit, " + structural::Threads(threads)}};
        std::vector<TrendPoint> pts;
        for (const auto& size : sweep.sizes) {
          const double a =
              structural::MedianCounter(size.results, th.candidate, table,
                                        threads, results::kIoEfficiency);
          const double b = structural::MedianCounter(
              size.results, c.baseline, table, threads, results::kIoEfficiency);
          if (std::isfinite(a) && std::isfinite(b)) {
            // No bootstrap here: an uncertainty of about 5% (one standard
            // deviation) per size weights the sizes alike.
            const double r = a / b;
            pts.push_back(
                {static_cast<double>(size.pairs), r, {r / 1.1, r * 1.1}});
            row.push_back({Ratio(r)});
          } else {
            row.push_back({"–"});
          }
        }
        auto tr = FitTrend(pts, target_pairs);
        row.push_back({tr.ok() ? Ratio(tr->per_decade) : "–"});
        row.push_back({tr.ok() ? RangeText(tr->predicted, tr->interval) : "–"});
        any = any || !pts.empty();
        t.rows.push_back(std::move(row));
      }
    }
  }
  if (!any) {
    s.blocks.push_back(Paragraph(
        "This sweep has no device cells (it ran with --no-device), so no "
        "hit rate ÷ device rate was measured."));
    return s;
  }
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

}  // namespace flatbench::report
