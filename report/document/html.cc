#include "report/document/html.h"

#include <map>

#include "report/document/links.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

// Any screen: the page is never wider than the window (long words wrap,
// tables and charts scroll inside their own box); charts keep their drawn
// size, so their text stays legible, and scroll rather than shrink.
const char kStyle[] = R"css(
body { font-family: sans-serif; max-width: 1248px; margin: 1em auto;
       padding: 0 1em; color: #222; }
p, li, summary, nav { overflow-wrap: anywhere; }
h1 { font-size: 1.4em; margin: 0.2em 0; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
nav.toc { font-size: 0.8em; line-height: 1.4; }
nav.toc a { white-space: nowrap; }
code { background: #f2f2f2; padding: 0 0.2em; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left;
         vertical-align: top; }
th { background: #f2f2f2; }
td.pass { color: #1a7f1a; }
td.fail { color: #b00020; font-weight: bold; }
td.noise { color: #8a5300; }
th.num, td.num { text-align: right; }
section.card { font-size: 0.85em; }
section.card ul { margin: 0.3em 0; }
section.card p { margin: 0.3em 0; }
table.card { font-size: 0.82em; margin: 0.3em 0 0.4em; }
table.card th, table.card td { padding: 0.05em 0.3em; white-space: nowrap;
                                font-variant-numeric: tabular-nums; }
table.card td.pass { background: #e8f5e8; }
table.card td.fail { background: #fbe3e6; }
table.card td.noise { background: #fff1d6; }
h2.card { margin: 0.4em 0 0.3em; }
.verdict { display: inline-block; padding: 0.2em 0.7em; border-radius: 4px;
           color: #fff; }
.go { background: #1a7f1a; }
.nogo { background: #b00020; }
.inconclusive { background: #b36b00; }
div.box { border: 2px solid #555; border-radius: 6px; background: #f7f7f7;
          padding: 0.2em 0.8em; margin: 0.3em 0 0.4em; }
div.box p { margin: 0.1em 0; font-weight: bold; }
div.box ul { margin: 0.1em 0; padding-left: 1.2em; }
details { margin: 0.4em 0 0.8em; }
summary { cursor: pointer; color: #0645ad; }
figure { margin: 1em 0; overflow-x: auto; }
figure svg { max-width: none; }
)css";

const char* OutcomeClass(Outcome o) {
  switch (o) {
    case Outcome::kGo:
      return "go";
    case Outcome::kNoGo:
      return "nogo";
    case Outcome::kInconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

// Text as HTML: escaped, `code` spans set, document references linked.
std::string Inline(const std::string& text, const std::string& docs_root) {
  return LinkDocsHtml(CodeSpansHtml(HtmlEscape(text)), docs_root);
}

const char* CellClass(TableCell::Style style) {
  switch (style) {
    case TableCell::Style::kPass:
      return "pass";
    case TableCell::Style::kFail:
      return "fail";
    case TableCell::Style::kNoise:
      return "noise";
    case TableCell::Style::kPlain:
      break;
  }
  return "";
}

void RenderHtmlTable(const Table& t, const std::string& docs_root,
                     std::string* o) {
  *o += t.card ? "<div class=\"scroll\"><table class=\"card\">\n<thead><tr>"
               : "<div class=\"scroll\"><table>\n<thead><tr>";
  for (size_t i = 0; i < t.header.size(); ++i) {
    *o += (t.RightAligned(i) ? "<th class=\"num\">" : "<th>") +
          HtmlEscape(t.header[i]) + "</th>";
  }
  *o += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    *o += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      const TableCell& cell = row[i];
      std::string cls = CellClass(cell.style);
      if (t.RightAligned(i)) cls += cls.empty() ? "num" : " num";
      *o += (cls.empty() ? std::string("<td>") : "<td class=\"" + cls + "\">") +
            Inline(cell.text, docs_root) + "</td>";
    }
    *o += "</tr>\n";
  }
  *o += "</tbody>\n</table></div>\n";
}

// The paragraph's text as HTML (Inline), with each link's phrase (where it
// first occurs) pointing at its section.
std::string LinkedHtml(const Block& b, const std::string& docs_root) {
  std::map<size_t, const Link*> at;
  for (const Link& link : b.links) {
    const size_t pos = b.text.find(link.phrase);
    if (pos != std::string::npos && !link.phrase.empty()) at[pos] = &link;
  }
  std::string o;
  size_t done = 0;
  for (const auto& [pos, link] : at) {
    if (pos < done) continue;  // Overlaps the previous link.
    o += Inline(b.text.substr(done, pos - done), docs_root) + "<a href=\"#" +
         HtmlEscape(link->anchor) + "\">" + HtmlEscape(link->phrase) + "</a>";
    done = pos + link->phrase.size();
  }
  return o + Inline(b.text.substr(done), docs_root);
}

// The summary a block folds under, or "" when it stays open.
std::string FoldSummary(const Block& b) {
  if (b.kind == Block::Kind::kTable && !b.table.card &&
      b.table.rows.size() > kFoldRows) {
    return (b.fold.empty() ? std::string("Show the table") : b.fold) + " (" +
           std::to_string(b.table.rows.size()) + " rows)";
  }
  return b.fold;
}

void HtmlBlock(const Block& b, const std::string& docs_root, std::string* o) {
  const std::string fold = FoldSummary(b);
  if (!fold.empty()) {
    *o += "<details><summary>" + HtmlEscape(fold) + "</summary>\n";
  }
  switch (b.kind) {
    case Block::Kind::kParagraph:
      *o += "<p>" + LinkedHtml(b, docs_root) + "</p>\n";
      break;
    case Block::Kind::kList:
      *o += "<ul>\n";
      for (const auto& item : b.items) {
        *o += "<li>" + Inline(item, docs_root) + "</li>\n";
      }
      *o += "</ul>\n";
      break;
    case Block::Kind::kBox:
      *o += "<div class=\"box\">\n<p>" + HtmlEscape(b.text) + "</p>\n<ul>\n";
      for (const auto& item : b.items) {
        *o += "<li>" + Inline(item, docs_root) + "</li>\n";
      }
      *o += "</ul>\n</div>\n";
      break;
    case Block::Kind::kTable:
      RenderHtmlTable(b.table, docs_root, o);
      break;
    case Block::Kind::kChart:
      *o += "<figure>\n" +
            (b.svg_inline.empty() ? RenderSvg(b.chart, /*standalone=*/false)
                                  : b.svg_inline) +
            "</figure>\n";
      break;
  }
  if (!fold.empty()) *o += "</details>\n";
}

// A line of links to every section, opening the page.
std::string HtmlContents(const Document& doc) {
  std::string o = "<nav class=\"toc\"><strong>Contents:</strong>\n";
  for (size_t i = 0; i < doc.sections.size(); ++i) {
    const Section& s = doc.sections[i];
    o += std::string(i == 0 ? "" : " ·\n") + "<a href=\"#" +
         HtmlEscape(SectionId(doc, s)) + "\">" + HtmlEscape(TocLabel(doc, s)) +
         "</a>";
  }
  return o + "\n</nav>\n";
}

}  // namespace

std::string RenderHtml(const Document& doc) {
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
      "charset=\"utf-8\">\n<meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\">\n<title>" +
      HtmlEscape(doc.title) + "</title>\n<style>" + kStyle +
      "</style>\n</head>\n<body>\n<h1>" + HtmlEscape(doc.title) + "</h1>\n";
  if (doc.sections.size() > 1) o += HtmlContents(doc);
  for (const auto& section : doc.sections) {
    const std::string heading = Heading(doc, section);
    const bool card = section.title == "Verdict";
    o += "<section id=\"" + HtmlEscape(SectionId(doc, section)) + "\"" +
         (card ? " class=\"card\"" : "") + ">\n";
    if (card) {
      o += "<h2 class=\"card\">Verdict: <span class=\"verdict " +
           std::string(OutcomeClass(doc.outcome)) + "\">" +
           HtmlEscape(OutcomeName(doc.outcome)) + "</span></h2>\n";
    } else {
      o += "<h2>" + HtmlEscape(heading) + "</h2>\n";
    }
    if (section.folded) {
      o += "<details><summary>Show the section</summary>\n";
    }
    for (const auto& b : section.blocks) HtmlBlock(b, doc.docs_root, &o);
    if (section.folded) o += "</details>\n";
    o += "</section>\n";
  }
  o += "</body>\n</html>\n";
  return o;
}

}  // namespace flatbench::report
