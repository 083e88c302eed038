#include "report/document/report.h"

#include <filesystem>
#include <optional>
#include <utility>

#include "common/files.h"
#include "report/document/document.h"
#include "report/document/html.h"
#include "report/document/markdown.h"
#include "report/document/shape_compare.h"
#include "report/document/svg.h"
#include "report/thresholds.h"

namespace flatbench::report {

namespace {

RenderedReport Render(Document doc, const std::string& docs_root) {
  doc.docs_root = docs_root;
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

// Two inputs of one content in two shapes (fresh, aged), in that order;
// nullopt for anything else, which is merged as one run.
Result<std::optional<std::pair<ResultSet, ResultSet>>> ShapePair(
    const std::vector<std::string>& inputs) {
  using Pair = std::optional<std::pair<ResultSet, ResultSet>>;
  if (inputs.size() != 2) return Pair();
  auto a = LoadResults({inputs[0]});
  auto b = LoadResults({inputs[1]});
  if (!a.ok() || !b.ok() || !LooksLikeShapePair(a.value(), b.value())) {
    return Pair();
  }
  bool a_fresh = false;
  for (const auto& [backend, shape] : a->shapes) {
    a_fresh = shape.value("kind", "") == "fresh";
  }
  std::pair<ResultSet, ResultSet> p =
      a_fresh ? std::make_pair(std::move(a).value(), std::move(b).value())
              : std::make_pair(std::move(b).value(), std::move(a).value());
  FLATBENCH_RETURN_IF_ERROR(ComparableShapes(p.first, p.second));
  return Pair(std::move(p));
}

}  // namespace

std::string DocsRoot(const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path root(FLATBENCH_DOCS_ROOT);
  if (!fs::exists(root / "RESEARCH.md", ec)) return "";
  const fs::path dir = fs::weakly_canonical(fs::absolute(out_dir, ec), ec);
  const fs::path rel = fs::relative(fs::canonical(root, ec), dir, ec);
  if (ec || rel.empty()) return "";
  return rel.generic_string() + "/";
}

RenderedReport RenderReport(const Verdict& verdict, const ResultSet& results,
                            const std::string& docs_root, double drive_tbw) {
  return Render(BuildDocument(verdict, results, {.drive_tbw = drive_tbw}),
                docs_root);
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
  FLATBENCH_ASSIGN_OR_RETURN(auto pair, ShapePair(options.inputs));
  Verdict verdict;
  RenderedReport rendered;
  const std::string docs_root = DocsRoot(options.out_dir);
  if (pair) {
    Verdict fresh = ComputeVerdict(pair->first, thresholds);
    verdict = ComputeVerdict(pair->second, thresholds);
    rendered =
        Render(BuildShapeComparison(pair->first, fresh, pair->second, verdict,
                                    {.drive_tbw = options.drive_tbw}),
               docs_root);
  } else {
    FLATBENCH_ASSIGN_OR_RETURN(ResultSet results, LoadResults(options.inputs));
    verdict = ComputeVerdict(results, thresholds);
    rendered = RenderReport(verdict, results, docs_root, options.drive_tbw);
  }

  const fs::path dir(options.out_dir);
  const fs::path md = dir / "report.md";
  const fs::path html = dir / "report.html";
  FLATBENCH_RETURN_IF_ERROR(PrepareOutputDir(options.out_dir, options.force));
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
