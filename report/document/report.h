#pragma once
// `flatbench report` as a library call: load thresholds and results,
// compute the verdict, write report.md, report.html and the chart files.
// The CLI (cli/cmd_report.cc) and the one-command procedure both use it.

#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "report/run_data.h"
#include "report/upkeep.h"
#include "report/verdict/verdict.h"

namespace flatbench::report {

struct ReportOptions {
  std::vector<std::string> inputs;  // bench results JSON files.
  std::string out_dir;              // Created if absent.
  std::string thresholds_path;      // Empty: the built-in thresholds.json.
  bool force = false;               // Overwrite an existing report.md.
  // The drive the arena's upkeep is priced for (DocumentOptions).
  double drive_tbw = kDefaultDriveTbw;
};

// The rendered files, before they are written.
struct RenderedReport {
  std::string markdown;
  std::string html;
  std::map<std::string, std::string> charts;  // File name -> SVG text.
};

// `docs_root`: Document::docs_root, where references to the project's
// documents link to ("" leaves them plain text).
RenderedReport RenderReport(const Verdict& verdict, const ResultSet& results,
                            const std::string& docs_root = "",
                            double drive_tbw = kDefaultDriveTbw);

struct ReportSummary {
  Outcome outcome = Outcome::kInconclusive;
  std::string reason;
  // One line per judged read path, the candidate first (VerdictLines).
  std::vector<std::string> lines;
  std::string thresholds_source;
  std::string thresholds_digest;
  std::string markdown_path;
  std::string html_path;
};

// Errors: kMissingInput (an input or the thresholds file is absent),
// kCorruption (malformed JSON or thresholds, results from two datasets),
// kRefuseOverwrite (out_dir/report.md exists and !force), kIOError.
Result<ReportSummary> WriteReport(const ReportOptions& options);

// Where the project's documents are, relative to `out_dir`, with a
// trailing slash ("../../"), for Document::docs_root; "" when this build's
// source tree (which holds RESEARCH.md) is not on this machine.
std::string DocsRoot(const std::string& out_dir);

// Makes `out_dir` ready for a report: refuses (kRefuseOverwrite) when it
// already holds report.md and `force` is false, else creates it (kIOError
// when it cannot). Shared by the verdict and the prediction report.
Status PrepareOutputDir(const std::string& out_dir, bool force);

}  // namespace flatbench::report
