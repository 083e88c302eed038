#pragma once
// The prediction report: where each gated ratio is heading as the data
// grows, extrapolated to full scale with an interval (trend.h), beside the
// geometric model's reads per hit and per miss (model.h), validated
// against every measured size. Predicted, never a verdict: `flatbench
// report SWEEP.json` writes it and exits 2 (INCONCLUSIVE) whatever it says.

#include <string>
#include <vector>

#include "common/status.h"
#include "report/document/document.h"
#include "report/prediction/sweep_input.h"
#include "report/prediction/trend.h"
#include "report/thresholds.h"

namespace flatbench::report {

// One gated cell's ratio over the sweep and at full scale.
struct PredictedCheck {
  // The read path judged: the candidate, or one of its read-path variants
  // ("arena+cache"), whose checks the verdict names for it.
  std::string read_path;
  RatioThreshold threshold;
  std::string table, kind;
  int threads = 0;
  std::vector<TrendPoint> points;  // One per measured size with the cell.
  bool fitted = false;             // At least two sizes.
  Trend trend;
  // Whole interval on the passing side, on the failing side, or neither.
  enum class Outlook { kPass, kFail, kUndecided } outlook = Outlook::kUndecided;
  // Distance of the predicted value from the bound, relative to it, in the
  // passing direction (negative: short of it).
  double margin = 0;
};

// Applies `thresholds` to every size (the verdict's own ratio computation,
// verdict.h) and extrapolates each check's cells to `target_pairs`: the
// candidate's, then each of its read-path variants' in the sweep.
std::vector<PredictedCheck> PredictChecks(const SweepInput& sweep,
                                          const Thresholds& thresholds,
                                          double target_pairs);

// A bench run measured on the device a prediction is priced for
// (`report SWEEP.json --device-profile P.json --measured R.json...`).
struct MeasuredRun {
  std::string name;  // Its files, for the report.
  ResultSet results;
};

// Lays out the whole prediction report; with a device profile, the
// structural prediction and its validation too (structural.h), and with a
// measured run as well, the prediction on that profile against it.
Document BuildPredictionDocument(const SweepInput& sweep,
                                 const Thresholds& thresholds,
                                 const DeviceProfile* profile = nullptr,
                                 const MeasuredRun* measured = nullptr);

struct PredictionOptions {
  std::string input;            // SWEEP.json.
  std::string out_dir;          // Created if absent.
  std::string thresholds_path;  // Empty: the built-in thresholds.json.
  bool force = false;
  // A device profile (flatbench device --out) to predict for instead of the
  // sweep's own; empty: the sweep's, if it has one.
  std::string device_profile_path;
  // Bench results measured on the profile's device, to hold the
  // prediction against; empty: none.
  std::vector<std::string> measured_paths;
};

struct PredictionSummary {
  std::string markdown_path, html_path;
  // The candidate's own gated cells (its read-path variants apart).
  int predicted_fail = 0, predicted_pass = 0, undecided = 0;
  // With measured_paths: the gated hit cells it compared, and how many of
  // them the prediction came within 15% of.
  int measured_cells = 0, measured_within = 0;
};

// Errors: kMissingInput, kCorruption (a malformed sweep, device profile or
// measured results, or a sweep with fewer than two measured sizes), kUsage
// (measured results without a device profile to price them on),
// kRefuseOverwrite (report.md exists, !force), kIOError.
Result<PredictionSummary> WritePredictionReport(
    const PredictionOptions& options);

}  // namespace flatbench::report
