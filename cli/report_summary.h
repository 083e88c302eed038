#pragma once
// The verdict as `flatbench report` and `gonogo` print it on stdout, and
// the report's options both commands take.

#include <CLI/CLI.hpp>

#include "report/document/report.h"

namespace flatbench::cli {

// "verdict: NO-GO", one line per judged read path, the thresholds and the
// report's files.
void PrintReportSummary(const report::ReportSummary& s);

// --drive-tbw TB: the rated endurance the aged arena's upkeep is priced
// for, into *tbw (default report::kDefaultDriveTbw).
void AddDriveTbwOption(CLI::App* sub, double* tbw);

}  // namespace flatbench::cli
