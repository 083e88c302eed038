#pragma once
// Renders a Document as GitHub-flavoured Markdown (report.md). Charts are
// referenced as image files named by Block::chart_file, which the caller
// writes beside report.md (see report.h).

#include <string>

#include "report/document/document.h"

namespace flatbench::report {

std::string RenderMarkdown(const Document& doc);

}  // namespace flatbench::report
