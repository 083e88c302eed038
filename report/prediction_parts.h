#pragma once
// Sections of the prediction report, shared by prediction_document.cc and
// prediction_sections.cc only.

#include <map>
#include <string>
#include <vector>

#include "datagen/spec.h"
#include "report/document.h"
#include "report/prediction.h"

namespace flatbench::report {

// The ratios against size: one table of every gated cell, one chart per
// check, table and kind.
Section TrendSection(const SweepInput& sweep, const datagen::Spec& full,
                     const std::vector<PredictedCheck>& checks);

// The geometric model: its inputs per size, its predictions against the
// measured reads per read at every size (error shown), and at full scale
// on the required RAM. Sets *full_geometry to each modelled backend's
// geometry grown to `full` from the largest size.
Section ModelSection(const SweepInput& sweep, const datagen::Spec& full,
                     std::map<std::string, BackendGeometry>* full_geometry);

}  // namespace flatbench::report
