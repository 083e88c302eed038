#include "report/document/html.h"

#include <map>

#include "report/format.h"

namespace flatbench::report {
namespace {

const char kStyle[] = R"css(
body { font-family: sans-serif; max-width: 1200px; margin: 1em auto;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left;
         vertical-align: top; }
th { background: #f2f2f2; }
td.pass { color: #1a7f1a; }
td.fail { color: #b00020; font-weight: bold; }
td.noise { color: #8a5300; }
th.num, td.num { text-align: right; }
table.card { font-size: 0.8em; margin-top: 0.3em; }
table.card th, table.card td { padding: 0.12em 0.4em;
                                font-variant-numeric: tabular-nums; }
table.card td:nth-child(-n+5) { white-space: nowrap; }
table.card td.pass { background: #e8f5e8; }
table.card td.fail { background: #fbe3e6; }
table.card td.noise { background: #fff1d6; }
h2.card { margin-top: 0.6em; }
.verdict { display: inline-block; padding: 0.2em 0.7em; border-radius: 4px;
           color: #fff; }
.go { background: #1a7f1a; }
.nogo { background: #b00020; }
.inconclusive { background: #b36b00; }
figure { margin: 1em 0; overflow-x: auto; }
figure svg[viewBox] { max-width: 100%; height: auto; }
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

void RenderHtmlTable(const Table& t, std::string* o) {
  *o += t.card ? "<table class=\"card\">\n<thead><tr>" : "<table>\n<thead><tr>";
  for (size_t i = 0; i < t.header.size(); ++i) {
    *o += (t.RightAligned(i) ? "<th class=\"num\">" : "<th>") +
          HtmlEscape(t.header[i]) + "</th>";
  }
  *o += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    *o += "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      const TableCell& cell = row[i];
      std::string cls;
      switch (cell.style) {
        case TableCell::Style::kPass:
          cls = "pass";
          break;
        case TableCell::Style::kFail:
          cls = "fail";
          break;
        case TableCell::Style::kNoise:
          cls = "noise";
          break;
        case TableCell::Style::kPlain:
          break;
      }
      if (t.RightAligned(i)) cls += cls.empty() ? "num" : " num";
      *o += (cls.empty() ? std::string("<td>") : "<td class=\"" + cls + "\">") +
            HtmlEscape(cell.text) + "</td>";
    }
    *o += "</tr>\n";
  }
  *o += "</tbody>\n</table>\n";
}

// The paragraph's text, escaped, with each link's phrase (where it first
// occurs) pointing at its section.
std::string LinkedHtml(const Block& b) {
  std::map<size_t, const Link*> at;
  for (const Link& link : b.links) {
    const size_t pos = b.text.find(link.phrase);
    if (pos != std::string::npos && !link.phrase.empty()) at[pos] = &link;
  }
  std::string o;
  size_t done = 0;
  for (const auto& [pos, link] : at) {
    if (pos < done) continue;  // Overlaps the previous link.
    o += HtmlEscape(b.text.substr(done, pos - done)) + "<a href=\"#" +
         HtmlEscape(link->anchor) + "\">" + HtmlEscape(link->phrase) + "</a>";
    done = pos + link->phrase.size();
  }
  return o + HtmlEscape(b.text.substr(done));
}

}  // namespace

std::string RenderHtml(const Document& doc) {
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
      "charset=\"utf-8\">\n<title>" +
      HtmlEscape(doc.title) + "</title>\n<style>" + kStyle +
      "</style>\n</head>\n<body>\n<h1>" + HtmlEscape(doc.title) + "</h1>\n";
  for (const auto& section : doc.sections) {
    if (section.title == "Verdict") {
      o += "<h2 class=\"card\">Verdict: <span class=\"verdict " +
           std::string(OutcomeClass(doc.outcome)) + "\">" +
           HtmlEscape(OutcomeName(doc.outcome)) + "</span></h2>\n";
    } else {
      o += (section.anchor.empty()
                ? std::string("<h2>")
                : "<h2 id=\"" + HtmlEscape(section.anchor) + "\">") +
           HtmlEscape(section.title) + "</h2>\n";
    }
    for (const auto& b : section.blocks) {
      switch (b.kind) {
        case Block::Kind::kParagraph:
          o += "<p>" + LinkedHtml(b) + "</p>\n";
          break;
        case Block::Kind::kList:
          o += "<ul>\n";
          for (const auto& item : b.items) {
            o += "<li>" + HtmlEscape(item) + "</li>\n";
          }
          o += "</ul>\n";
          break;
        case Block::Kind::kTable:
          RenderHtmlTable(b.table, &o);
          break;
        case Block::Kind::kChart:
          o += "<figure>\n" +
               (b.svg_inline.empty() ? RenderSvg(b.chart, /*standalone=*/false)
                                     : b.svg_inline) +
               "</figure>\n";
          break;
      }
    }
  }
  o += "</body>\n</html>\n";
  return o;
}

}  // namespace flatbench::report
