#pragma once
// Sections of the prediction report and their helpers, shared by the
// prediction's .cc files only.

#include <map>
#include <string>
#include <vector>

#include "dataset/spec.h"
#include "report/document/document.h"
#include "report/interval.h"
#include "report/prediction/prediction.h"

namespace flatbench::report {

// A ratio with its interval: "1.832 [1.701, 1.950]".
std::string RangeText(double v, const Interval& iv);

// The ratios against size: one table of every gated cell, one chart per
// check, table and kind.
Section TrendSection(const SweepInput& sweep, const dataset::Spec& full,
                     const std::vector<PredictedCheck>& checks);

// The geometric model: its inputs per size, its predictions against the
// measured reads per read at every size (error shown), and at full scale
// on the required RAM. Sets *full_geometry to each modelled backend's
// geometry grown to `full` from the largest size.
Section ModelSection(const SweepInput& sweep, const dataset::Spec& full,
                     std::map<std::string, BackendGeometry>* full_geometry);

// The structural prediction (structural.h) at full scale beside the trend,
// and its validation at every measured size. `full` is each modelled
// backend's geometry at full scale (ModelSection).
Section StructuralSection(const SweepInput& sweep, const DeviceProfile& profile,
                          const Thresholds& thresholds,
                          const std::map<std::string, BackendGeometry>& full,
                          const std::vector<PredictedCheck>& checks);

// Each check's trend fitted without the largest size, against it.
Section HoldoutSection(const SweepInput& sweep,
                       const std::vector<PredictedCheck>& checks);

// The hit checks' ratio of hit rate ÷ device rate per size, and its trend.
Section EfficiencySection(const SweepInput& sweep, const Thresholds& th,
                          double target_pairs);

// The prediction on `profile` against a run measured on its device: how
// many gated hit cells it predicts within 15%, and each model term
// predicted beside measured (measured_section.cc).
struct MeasuredComparison {
  Section section;
  int cells = 0, within = 0;
};
MeasuredComparison MeasuredSection(const SweepInput& sweep,
                                   const DeviceProfile& profile,
                                   const Thresholds& thresholds,
                                   const MeasuredRun& measured);

}  // namespace flatbench::report
