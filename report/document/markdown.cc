#include "report/document/markdown.h"

#include "report/document/links.h"

namespace flatbench::report {
namespace {

// Keeps input text from turning into markup: raw HTML and, in tables,
// column breaks.
std::string Escape(const std::string& s, bool in_table) {
  std::string out;
  for (char c : s) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (in_table && c == '|') {
      out += "\\|";
    } else {
      out += c;
    }
  }
  return out;
}

void RenderMarkdownTable(const Table& t, const std::string& docs_root,
                         std::string* o) {
  *o += "|";
  for (const auto& h : t.header) {
    o->append(" ").append(Escape(h, true)).append(" |");
  }
  *o += "\n|";
  for (size_t i = 0; i < t.header.size(); ++i) {
    *o += t.RightAligned(i) ? "---:|" : "---|";
  }
  *o += "\n";
  for (const auto& row : t.rows) {
    *o += "|";
    for (const auto& cell : row) {
      bool fail = cell.style == TableCell::Style::kFail;
      // Failures in bold, so they stand out without colour.
      o->append(fail ? " **" : " ")
          .append(LinkDocsMarkdown(Escape(cell.text, true), docs_root))
          .append(fail ? "** |" : " |");
    }
    *o += "\n";
  }
  *o += "\n";
}

void MarkdownBlock(const Block& b, const std::string& docs_root,
                   std::string* o) {
  auto text = [&](const std::string& s) {
    return LinkDocsMarkdown(Escape(s, false), docs_root);
  };
  switch (b.kind) {
    case Block::Kind::kParagraph:
      *o += text(b.text) + "\n\n";
      break;
    case Block::Kind::kList:
      for (const auto& item : b.items) *o += "- " + text(item) + "\n";
      *o += "\n";
      break;
    case Block::Kind::kBox:
      // A quoted block: its title, then one line per item.
      *o += "> **" + Escape(b.text, false) + "**\n>\n";
      for (const auto& item : b.items) *o += "> - " + text(item) + "\n";
      *o += "\n";
      break;
    case Block::Kind::kTable:
      RenderMarkdownTable(b.table, docs_root, o);
      break;
    case Block::Kind::kChart:
      *o += "![" + Escape(b.chart.title, false) + "](" + b.chart_file + ")\n\n";
      break;
  }
}

// Links to every section, opening the page: paragraphs of links, each
// kept under kMaxParagraph bytes.
std::string MarkdownContents(const Document& doc) {
  std::string out, line = "Contents:";
  for (const auto& s : doc.sections) {
    const std::string link = "[" + Escape(TocLabel(doc, s), false) + "](#" +
                             Anchor(Heading(doc, s)) + ")";
    if (line.size() + link.size() + 3 > kMaxParagraph) {
      out += line + "\n\n";
      line = "Contents, continued:";
    }
    line += (line.back() == ':' ? " " : " · ") + link;
  }
  return out + line + "\n\n";
}

}  // namespace

std::string RenderMarkdown(const Document& doc) {
  std::string o = "# " + Escape(doc.title, false) + "\n\n";
  if (doc.sections.size() > 1) o += MarkdownContents(doc);
  for (const auto& section : doc.sections) {
    o += "## " + Escape(Heading(doc, section), false) + "\n\n";
    for (const auto& b : section.blocks) MarkdownBlock(b, doc.docs_root, &o);
  }
  return o;
}

}  // namespace flatbench::report
