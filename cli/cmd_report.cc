// flatbench report: bench results JSON -> go/no-go verdict report.
#include <cmath>
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/exit.h"
#include "cli/report_summary.h"
#include "common/files.h"
#include "report/document/report.h"
#include "report/prediction/prediction.h"

namespace flatbench::cli {
namespace {

// A sweep document (flatbench sweep) gets the prediction report, which is
// never a verdict: exit 2 whatever it predicts.
int RunPrediction(const report::ReportOptions& o,
                  const std::string& device_profile,
                  const std::vector<std::string>& measured) {
  auto s =
      report::WritePredictionReport({o.inputs[0], o.out_dir, o.thresholds_path,
                                     o.force, device_profile, measured});
  if (!s.ok()) return Fail(s.status());
  if (!measured.empty()) {
    std::printf(
        "against the measured run: %d of %d gated hit cells predicted "
        "within 15%%\n",
        s->measured_within, s->measured_cells);
  }
  std::printf(
      "prediction (not a verdict): %d gated cells predicted to fail, %d to "
      "pass, %d with an interval holding the bound\n",
      s->predicted_fail, s->predicted_pass, s->undecided);
  std::printf("report: %s\n", s->markdown_path.c_str());
  std::printf("report: %s\n", s->html_path.c_str());
  return report::OutcomeExitCode(report::Outcome::kInconclusive);
}

int RunReport(const report::ReportOptions& o, const std::string& device_profile,
              const std::vector<std::string>& measured) {
  if (o.inputs.size() == 1) {
    auto text = ReadSmallFile(o.inputs[0]);
    if (text.ok() && report::LooksLikeSweep(text.value())) {
      return RunPrediction(o, device_profile, measured);
    }
  }
  if (!measured.empty()) {
    return Fail(Status::Usage(
        "--measured applies to a sweep document (the prediction report), "
        "not to bench results"));
  }
  if (!device_profile.empty()) {
    return Fail(Status::Usage(
        "--device-profile applies to a sweep document (the prediction "
        "report), not to bench results"));
  }
  Result<report::ReportSummary> s = report::WriteReport(o);
  if (!s.ok()) return Fail(s.status());
  PrintReportSummary(s.value());
  return report::OutcomeExitCode(s->outcome);
}

}  // namespace

void PrintReportSummary(const report::ReportSummary& s) {
  std::printf("verdict: %s\n", report::OutcomeName(s.outcome));
  for (const auto& line : s.lines) std::printf("  %s\n", line.c_str());
  std::printf("thresholds: %s (XXH3-64 %s)\n", s.thresholds_source.c_str(),
              s.thresholds_digest.c_str());
  std::printf("report: %s\n", s.markdown_path.c_str());
  std::printf("report: %s\n", s.html_path.c_str());
}

namespace {

// A rated endurance: a finite number of TB above 0.
CLI::Validator PositiveTb() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        double v = 0;
        if (CLI::detail::lexical_cast(input, v) && std::isfinite(v) && v > 0) {
          return "";
        }
        return "'" + input + "' is not a number of TB above 0";
      },
      "TB > 0");
}

}  // namespace

void AddDriveTbwOption(CLI::App* sub, double* tbw) {
  sub->add_option(
         "--drive-tbw", *tbw,
         "A drive's rated endurance in TB written, for the aged arena's "
         "upkeep at full scale: the years each merge interval leaves such a "
         "drive, beside RocksDB's and LMDB's (default 1200: a 2 TB Samsung "
         "990 PRO's rating)")
      ->check(PositiveTb())
      ->capture_default_str();
}

Command AddReport(CLI::App& app) {
  auto o = std::make_shared<report::ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report",
      "Turn bench results JSON into the verdict report: DIR/report.md and a "
      "self-contained DIR/report.html. Every read path of the candidate in "
      "the results (arena, arena+pread, arena+cache, ...) gets a verdict "
      "line; the candidate's own (arena: the mmap reader) sets the exit "
      "code (GO, NO-GO or INCONCLUSIVE, below). An existing report.md is "
      "replaced only with --force. Given one sweep document "
      "(flatbench sweep's DIR/sweep.json), writes the prediction report "
      "instead: each gated ratio's trend over dataset size extrapolated to "
      "full scale, the geometric model's reads per hit and per miss, and, "
      "with the sweep's device profile or --device-profile, the structural "
      "prediction of each backend's reads/s validated at every measured "
      "size, and with --measured, against a bench run on the profile's "
      "device; predicted, not a verdict, so it exits 2.");
  sub->add_option("results", o->inputs,
                  "bench results JSON files (one per backend process), or one "
                  "sweep.json")
      ->required();
  sub->add_option("--out", o->out_dir, "Report directory")->required();
  sub->add_option("--thresholds", o->thresholds_path,
                  "Thresholds JSON (default: the built-in thresholds.json)");
  auto profile = std::make_shared<std::string>();
  sub->add_option("--device-profile", *profile,
                  "With a sweep: predict for this device profile (flatbench "
                  "device --out) instead of the sweep's own");
  auto measured = std::make_shared<std::vector<std::string>>();
  sub->add_option("--measured", *measured,
                  "With a sweep: bench results JSON measured on the device "
                  "the prediction is priced for (--device-profile); the "
                  "report compares each gated hit cell's predicted ratio with "
                  "the measured one, and each model term per cell");
  sub->add_flag("--force", o->force, "Overwrite an existing report");
  AddDriveTbwOption(sub, &o->drive_tbw);
  return {sub, [o, profile, measured] {
            return RunReport(*o, *profile, *measured);
          }};
}

}  // namespace flatbench::cli
