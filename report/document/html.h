#pragma once
// Renders a Document as one self-contained HTML page (report.html): inline
// CSS and inline SVG only, no script, no external stylesheet, font, image
// or URL, every input string escaped.

#include <string>

#include "report/document/document.h"

namespace flatbench::report {

std::string RenderHtml(const Document& doc);

}  // namespace flatbench::report
