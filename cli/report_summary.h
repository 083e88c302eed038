#pragma once
// The verdict as `flatbench report` and `gonogo` print it on stdout.

#include "report/document/report.h"

namespace flatbench::cli {

// "verdict: NO-GO", one line per judged read path, the thresholds and the
// report's files.
void PrintReportSummary(const report::ReportSummary& s);

}  // namespace flatbench::cli
