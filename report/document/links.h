#pragma once
// Links within and out of a report: each heading's anchor, and references
// in the text to the project's documents (RESEARCH.md, with its section
// when the text names one, and the format documents) turned into links
// relative to the report's folder.

#include <string>
#include <string_view>

namespace flatbench::report {

// The anchor of a heading, as GitHub derives it: lower case, spaces to
// hyphens, other punctuation dropped ("Verdict: GO" -> "verdict-go").
std::string Anchor(std::string_view heading);

// RESEARCH.md's numbered sections by number ("7", "8a"), each the title of
// its "## N. Title" heading; empty for a number it does not have.
std::string ResearchSection(std::string_view number);

// `text`, already escaped for its format, with every document reference
// made a link under `docs_root` ("../../"): "RESEARCH.md §7" and
// "RESEARCH.md, section 7" link to that section, "RESEARCH.md, Storage
// that is not uniform" to the section of that title, a bare "RESEARCH.md"
// to the file; "FORMAT.md" (arena/), "RESULTS_FORMAT.md" and
// "SWEEP_FORMAT.md" (bench/) to theirs. An empty `docs_root` leaves the
// text as it is.
std::string LinkDocsMarkdown(const std::string& text,
                             const std::string& docs_root);
std::string LinkDocsHtml(const std::string& text, const std::string& docs_root);

// HTML text (escaped) with each `code` span, between a pair of backticks,
// set as <code>.
std::string CodeSpansHtml(const std::string& text);

}  // namespace flatbench::report
