#include "report/prediction/prediction.h"

#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

#include "common/files.h"
#include "common/text.h"
#include "dataset/spec.h"
#include "report/document/html.h"
#include "report/document/markdown.h"
#include "report/document/report.h"
#include "report/document/svg.h"
#include "report/prediction/prediction_parts.h"
#include "report/verdict/verdict.h"

namespace flatbench::report {

std::vector<PredictedCheck> PredictChecks(const SweepInput& sweep,
                                          const Thresholds& thresholds,
                                          double target_pairs) {
  // The candidate first ("arena" sorts before "arena+cache").
  using Key = std::tuple<std::string, size_t, std::string, std::string, int>;
  std::map<Key, PredictedCheck> by_cell;
  for (const auto& size : sweep.sizes) {
    const Verdict verdict = ComputeVerdict(size.results, thresholds);
    std::vector<const Verdict*> judged = {&verdict};
    for (const Verdict& v : verdict.variants) judged.push_back(&v);
    for (const Verdict* v : judged) {
      for (size_t i = 0; i < v->checks.size(); ++i) {
        const RatioCheck& c = v->checks[i];
        const std::string& path = v->thresholds.candidate;
        PredictedCheck& p = by_cell[Key{path, i, c.candidate.table,
                                        c.candidate.kind, c.candidate.threads}];
        p.read_path = path;
        p.threshold = c.threshold;
        p.table = c.candidate.table;
        p.kind = c.candidate.kind;
        p.threads = c.candidate.threads;
        if (!c.available || !(c.ratio > 0)) continue;
        p.points.push_back(
            {static_cast<double>(size.pairs), c.ratio, c.interval});
      }
    }
  }
  std::vector<PredictedCheck> out;
  for (auto& [key, p] : by_cell) {
    auto t = FitTrend(p.points, target_pairs);
    if (t.ok()) {
      p.fitted = true;
      p.trend = t.value();
      const double bound = p.threshold.bound;
      const bool higher = p.threshold.HigherIsBetter();
      const Interval& iv = p.trend.interval;
      const bool pass_all = higher ? iv.low >= bound : iv.high <= bound;
      const bool fail_all = higher ? iv.high < bound : iv.low > bound;
      p.outlook = pass_all   ? PredictedCheck::Outlook::kPass
                  : fail_all ? PredictedCheck::Outlook::kFail
                             : PredictedCheck::Outlook::kUndecided;
      p.margin = higher ? (p.trend.predicted - bound) / bound
                        : (bound - p.trend.predicted) / bound;
    }
    out.push_back(std::move(p));
  }
  return out;
}

Result<PredictionSummary> WritePredictionReport(
    const PredictionOptions& options) {
  namespace fs = std::filesystem;
  FLATBENCH_ASSIGN_OR_RETURN(Thresholds thresholds,
                             options.thresholds_path.empty()
                                 ? BuiltInThresholds()
                                 : LoadThresholdsFile(options.thresholds_path));
  FLATBENCH_ASSIGN_OR_RETURN(auto text, ReadSmallFile(options.input));
  FLATBENCH_ASSIGN_OR_RETURN(auto sweep, ParseSweep(text, options.input));
  if (sweep.sizes.size() < 2) {
    return Status::Corruption(
        "sweep " + options.input + ": " + std::to_string(sweep.sizes.size()) +
        " measured size(s); a trend needs at least two (run or resume "
        "flatbench sweep)");
  }
  const fs::path dir(options.out_dir);
  const fs::path md = dir / "report.md";
  const fs::path html = dir / "report.html";
  sweep.own_device_profile = sweep.device_profile;
  if (!options.device_profile_path.empty()) {
    FLATBENCH_ASSIGN_OR_RETURN(
        auto loaded, LoadDeviceProfileFile(options.device_profile_path));
    sweep.device_profile = std::move(loaded.profile);
  }
  std::optional<MeasuredRun> measured;
  if (!options.measured_paths.empty()) {
    if (!sweep.device_profile.has_value()) {
      return Status::Usage(
          "--measured: the sweep " + options.input +
          " holds no device profile to price the prediction on; give the "
          "measured device's with --device-profile");
    }
    FLATBENCH_ASSIGN_OR_RETURN(auto results,
                               LoadResults(options.measured_paths));
    measured =
        MeasuredRun{Join(options.measured_paths, ", "), std::move(results)};
  }
  FLATBENCH_RETURN_IF_ERROR(PrepareOutputDir(options.out_dir, options.force));
  const DeviceProfile* profile =
      sweep.device_profile.has_value() ? &*sweep.device_profile : nullptr;
  Document doc = BuildPredictionDocument(sweep, thresholds, profile,
                                         measured ? &*measured : nullptr);
  doc.docs_root = DocsRoot(options.out_dir);
  for (const auto& section : doc.sections) {
    for (const auto& b : section.blocks) {
      if (b.kind != Block::Kind::kChart) continue;
      FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic((dir / b.chart_file).string(),
                                                b.svg_standalone.empty()
                                                    ? RenderSvg(b.chart, true)
                                                    : b.svg_standalone));
    }
  }
  FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic(html.string(), RenderHtml(doc)));
  // report.md last: its presence means the report is complete.
  FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic(md.string(), RenderMarkdown(doc)));
  PredictionSummary s;
  if (measured) {
    const MeasuredComparison m =
        MeasuredSection(sweep, *profile, thresholds, *measured);
    s.measured_cells = m.cells;
    s.measured_within = m.within;
  }
  s.markdown_path = md.string();
  s.html_path = html.string();
  const auto full = dataset::MakeSpec("full", 0, 0, sweep.seed);
  const double target =
      full.ok() ? static_cast<double>(full->accounts + full->storage_slots())
                : 0;
  for (const auto& p : PredictChecks(sweep, thresholds, target)) {
    if (!p.fitted || p.read_path != thresholds.candidate) continue;
    if (p.outlook == PredictedCheck::Outlook::kPass) ++s.predicted_pass;
    if (p.outlook == PredictedCheck::Outlook::kFail) ++s.predicted_fail;
    if (p.outlook == PredictedCheck::Outlook::kUndecided) ++s.undecided;
  }
  return s;
}

}  // namespace flatbench::report
