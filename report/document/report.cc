#include "report/document/report.h"

#include <filesystem>

#include "common/files.h"
#include "report/document/document.h"
#include "report/document/html.h"
#include "report/document/markdown.h"
#include "report/document/svg.h"
#include "report/thresholds.h"

namespace flatbench::report {

RenderedReport RenderReport(const Verdict& verdict, const ResultSet& results) {
  Document doc = BuildDocument(verdict, results);
  RenderedReport out;
  out.markdown = RenderMarkdown(doc);
  out.html = RenderHtml(doc);
  for (const auto& section : doc.sections) {
    for (const auto& b : section.blocks) {
      if (b.kind == Block::Kind::kChart) {
        out.charts[b.chart_file] = b.svg_standalone.empty()
                                       ? RenderSvg(b.chart, /*standalone=*/true)
                                       : b.svg_standalone;
      }
    }
  }
  return out;
}

Status PrepareOutputDir(const std::string& out_dir, bool force) {
  namespace fs = std::filesystem;
  const fs::path dir(out_dir);
  const fs::path md = dir / "report.md";
  std::error_code ec;
  if (fs::exists(md, ec) && !force) {
    return Status::RefuseOverwrite(md.string() +
                                   " exists; pass --force to overwrite it");
  }
  fs::create_directories(dir, ec);
  if (ec) {
    return Status::IOError(dir.string() + ": cannot create: " + ec.message());
  }
  return Status::Ok();
}

Result<ReportSummary> WriteReport(const ReportOptions& options) {
  namespace fs = std::filesystem;
  if (options.inputs.empty()) {
    return Status::Usage("report: no results file given");
  }
  FLATBENCH_ASSIGN_OR_RETURN(Thresholds thresholds,
                             options.thresholds_path.empty()
                                 ? BuiltInThresholds()
                                 : LoadThresholdsFile(options.thresholds_path));
  FLATBENCH_ASSIGN_OR_RETURN(ResultSet results, LoadResults(options.inputs));

  const fs::path dir(options.out_dir);
  const fs::path md = dir / "report.md";
  const fs::path html = dir / "report.html";
  FLATBENCH_RETURN_IF_ERROR(PrepareOutputDir(options.out_dir, options.force));

  Verdict verdict = ComputeVerdict(results, thresholds);
  RenderedReport rendered = RenderReport(verdict, results);
  for (const auto& [name, svg] : rendered.charts) {
    FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic((dir / name).string(), svg));
  }
  FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic(html.string(), rendered.html));
  // report.md last: its presence means the report is complete.
  FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic(md.string(), rendered.markdown));

  ReportSummary s;
  s.outcome = verdict.outcome;
  s.reason = verdict.reason;
  s.lines = VerdictLines(verdict);
  s.thresholds_source = verdict.thresholds.source;
  s.thresholds_digest = verdict.thresholds.digest;
  s.markdown_path = md.string();
  s.html_path = html.string();
  return s;
}

}  // namespace flatbench::report
