// The prediction report's layout: headline, the ratios' trends with
// charts, the geometric model with its validation, the assumptions, and
// what each size's run failed besides its scale.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/results_schema.h"
#include "common/text.h"
#include "dataset/spec.h"
#include "report/numbers.h"
#include "report/prediction/prediction.h"
#include "report/prediction/prediction_parts.h"
#include "report/verdict/verdict.h"

namespace flatbench::report {
namespace {

using Style = TableCell::Style;
using Outlook = PredictedCheck::Outlook;

std::string CellName(const PredictedCheck& p) {
  return p.table + " " + p.kind + ", " + std::to_string(p.threads) +
         (p.threads == 1 ? " thread" : " threads");
}

std::string BoundText(const RatioThreshold& t) {
  return std::string(t.HigherIsBetter() ? "≥ " : "≤ ") + Ratio(t.bound);
}

std::string Pairs(double pairs) { return Short(pairs) + " pairs"; }

std::string JoinNames(const std::set<std::string>& names) {
  return Join(std::vector<std::string>(names.begin(), names.end()), ", ");
}

// The worst predicted failures, at most eight, worst first.
Block FailingList(const std::vector<const PredictedCheck*>& failing) {
  std::vector<std::string> items;
  for (size_t i = 0; i < failing.size() && i < 8; ++i) {
    const auto& p = *failing[i];
    items.push_back(
        p.threshold.name + ", " + CellName(p) + ": predicted " +
        Ratio(p.trend.predicted) + " [" + Ratio(p.trend.interval.low) + ", " +
        Ratio(p.trend.interval.high) + "] against " + BoundText(p.threshold) +
        ", " + Percent(-p.margin) + " short");
  }
  if (failing.size() > 8) {
    items.push_back("and " + std::to_string(failing.size() - 8) +
                    " more predicted failures (table below)");
  }
  Block b;
  b.kind = Block::Kind::kList;
  b.items = std::move(items);
  return b;
}

// The assumptions that matter most, with what the model says of each.
Block Assumptions(const SweepSize& last,
                  const std::map<std::string, BackendGeometry>& full_geometry) {
  std::vector<std::string> assumptions = {
      "The trend holds: each ratio keeps moving by the same factor per "
      "decade of pairs beyond the largest size measured. A step it cannot "
      "see (below) breaks this.",
      "Metadata stays resident: on a host with the RAM RESEARCH.md requires "
      "(" +
          Bytes(static_cast<double>(kRequiredRamBytes)) +
          "), the model "
          "says:"};
  const uint64_t reads_per_pass = static_cast<uint64_t>(
      last.results.Integer(results::kReadsPerPass.name).value_or(0));
  for (const auto& [backend, g] : full_geometry) {
    const ModelPrediction m = Predict(g, kRequiredRamBytes, reads_per_pass);
    const double step = PairsWhereMetadataStopsFitting(g, kRequiredRamBytes);
    assumptions.push_back(
        backend + " needs " + Bytes(static_cast<double>(m.metadata_bytes)) +
        " of read metadata at full scale: " +
        (m.resident_fraction >= 1
             ? "it fits (it would stop fitting near " +
                   (std::isfinite(step) ? Pairs(step) : std::string("never")) +
                   ")"
             : "it does NOT fit (" + Percent(m.resident_fraction) +
                   " resident): a step up in reads per hit that the measured "
                   "trend cannot show"));
  }
  assumptions.push_back(
      "The storage is this host's: storage-bound ratios depend on the "
      "device's latency and parallelism, and a full-scale host's device "
      "differs. Each size's own validity gates (below) say where this host "
      "falls short. The structural prediction (below) prices each "
      "backend's reads on a device profile; `flatbench report SWEEP.json "
      "--device-profile P.json` prices them on another host's.");
  Block b;
  b.kind = Block::Kind::kList;
  b.items = std::move(assumptions);
  return b;
}

Section Headline(const SweepInput& sweep, const dataset::Spec& full,
                 const std::vector<PredictedCheck>& checks,
                 const std::map<std::string, BackendGeometry>& full_geometry) {
  Section s{"Prediction (predicted, not a verdict)", {}};
  const auto& first = sweep.sizes.front();
  const auto& last = sweep.sizes.back();
  int fail = 0, pass = 0, undecided = 0, unfitted = 0;
  std::vector<const PredictedCheck*> failing;
  std::set<std::string> paths;  // The candidate's other read paths.
  const std::string candidate = checks.empty() ? "" : checks.front().read_path;
  for (const auto& p : checks) {
    if (p.read_path != candidate) {
      paths.insert(p.read_path);
      continue;
    }
    if (!p.fitted) {
      ++unfitted;
      continue;
    }
    if (p.outlook == Outlook::kFail) failing.push_back(&p);
    fail += p.outlook == Outlook::kFail;
    pass += p.outlook == Outlook::kPass;
    undecided += p.outlook == Outlook::kUndecided;
  }
  std::sort(failing.begin(), failing.end(),
            [](auto* a, auto* b) { return a->margin < b->margin; });
  s.blocks.push_back(Paragraph(
      "Predicted, not a verdict. Each gated ratio was measured at " +
      std::to_string(sweep.sizes.size()) + " dataset sizes, from " +
      Pairs(static_cast<double>(first.pairs)) + " to " +
      Pairs(static_cast<double>(last.pairs)) +
      ", on one host, and its trend against log(size) extrapolated to full "
      "scale (" +
      Short(static_cast<double>(full.accounts)) + " accounts × " +
      std::to_string(full.slots_per_account) + " slots = " +
      Pairs(static_cast<double>(full.accounts + full.storage_slots())) +
      "), a factor of " +
      Short(static_cast<double>(full.accounts + full.storage_slots()) /
            static_cast<double>(last.pairs)) +
      " beyond the largest size measured. Of " +
      std::to_string(fail + pass + undecided) + " gated cells with a trend, " +
      std::to_string(fail) +
      " are predicted to fail (their whole 95% "
      "interval on the failing side), " +
      std::to_string(pass) + " to pass, and " + std::to_string(undecided) +
      " have an interval that holds the bound" +
      (unfitted > 0 ? "; " + std::to_string(unfitted) +
                          " cells lacked two measured sizes"
                    : "") +
      ". Only a valid full-scale run (flatbench gonogo --scale full) gives a "
      "verdict." +
      (paths.empty()
           ? std::string()
           : " These counts are " + candidate +
                 "'s; its other read paths measured (" + JoinNames(paths) +
                 ") are predicted beside it below, each check "
                 "named for its read path.")));
  if (!failing.empty()) s.blocks.push_back(FailingList(failing));
  s.blocks.push_back(Assumptions(last, full_geometry));
  return s;
}

}  // namespace

Document BuildPredictionDocument(const SweepInput& sweep,
                                 const Thresholds& thresholds,
                                 const DeviceProfile* profile,
                                 const MeasuredRun* measured) {
  Document doc;
  doc.title = "flatbench prediction: full scale from a scale sweep";
  doc.outcome = Outcome::kInconclusive;
  doc.verdict_line = "Predicted, not a verdict";
  auto full = dataset::MakeSpec("full", 0, 0, sweep.seed);
  const dataset::Spec f = full.ok() ? full.value() : dataset::Spec();
  const double target = static_cast<double>(f.accounts + f.storage_slots());
  const auto checks = PredictChecks(sweep, thresholds, target);
  std::map<std::string, BackendGeometry> full_geometry;
  Section model = ModelSection(sweep, f, &full_geometry);
  doc.sections.push_back(Headline(sweep, f, checks, full_geometry));
  if (profile != nullptr && measured != nullptr) {
    doc.sections.push_back(
        MeasuredSection(sweep, *profile, thresholds, *measured).section);
  }
  if (profile != nullptr) {
    doc.sections.push_back(
        StructuralSection(sweep, *profile, thresholds, full_geometry, checks));
  } else {
    doc.sections.push_back(Section{
        "Structural prediction",
        {Paragraph("This sweep holds no device profile (it ran with "
                   "--no-device): give one with `flatbench report SWEEP.json "
                   "--device-profile P.json` (P.json from `flatbench device "
                   "--dir D --out P.json` on the storage to predict for).")}});
  }
  doc.sections.push_back(TrendSection(sweep, f, checks));
  doc.sections.push_back(HoldoutSection(sweep, checks));
  doc.sections.push_back(EfficiencySection(sweep, thresholds, target));
  doc.sections.push_back(std::move(model));

  Section sizes{"Sizes measured, and the validity gates each failed", {}};
  sizes.blocks.push_back(Paragraph(
      "Every size below full scale fails the scale gate by design; the other "
      "gates it failed qualify its ratios. Thresholds: " +
      thresholds.source + " (XXH3-64 " + thresholds.digest + ")."));
  Table t;
  t.header = {"accounts", "pairs", "spec", "repetitions",
              "gates failed "
              "(besides scale)"};
  for (const auto& s : sweep.sizes) {
    const Verdict v = ComputeVerdict(s.results, thresholds);
    std::string failed;
    for (const Gate* g : v.FailedGates()) {
      if (g->name.find("scale") != std::string::npos) continue;
      failed += (failed.empty() ? "" : "; ") + g->name + ": " + g->figure;
    }
    t.rows.push_back({{Count(static_cast<double>(s.accounts))},
                      {Count(static_cast<double>(s.pairs))},
                      {s.spec},
                      {s.results.Context(results::kRepetitions)},
                      {failed.empty() ? "none" : failed,
                       failed.empty() ? Style::kPass : Style::kFail}});
  }
  sizes.blocks.push_back(TableBlock(std::move(t)));
  doc.sections.push_back(std::move(sizes));
  return doc;
}

}  // namespace flatbench::report
