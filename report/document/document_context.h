#pragma once
// The report's last sections: caveats, memory, build cost, the thresholds
// used, dataset identity, environment and backend settings.

#include <string>
#include <vector>

#include "report/document/document.h"

namespace flatbench::report {

// The candidate, its other read paths, then the baselines, then any other
// backend in the results.
std::vector<std::string> BackendOrder(const Verdict& verdict);
// The backend's name as tables and charts show it: a backend that is
// neither judged (the candidate or one of its read paths) nor named by a
// threshold is marked "(reference)"; it is shown, never gated.
std::string BackendLabel(const Verdict& verdict, const std::string& backend);

// Appends the context sections to `doc`.
void AddContextSections(const Verdict& verdict, const ResultSet& results,
                        Document* doc);

}  // namespace flatbench::report
