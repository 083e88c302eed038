#include "report/document/markdown.h"

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

void RenderMarkdownTable(const Table& t, std::string* o) {
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
          .append(Escape(cell.text, true))
          .append(fail ? "** |" : " |");
    }
    *o += "\n";
  }
  *o += "\n";
}

}  // namespace

std::string RenderMarkdown(const Document& doc) {
  std::string o = "# " + Escape(doc.title, false) + "\n\n";
  for (const auto& section : doc.sections) {
    if (section.title == "Verdict") {
      o += "## " + Escape(doc.verdict_line, false) + "\n\n";
    } else {
      o += "## " + Escape(section.title, false) + "\n\n";
    }
    for (const auto& b : section.blocks) {
      switch (b.kind) {
        case Block::Kind::kParagraph:
          o += Escape(b.text, false) + "\n\n";
          break;
        case Block::Kind::kList:
          for (const auto& item : b.items) {
            o += "- " + Escape(item, false) + "\n";
          }
          o += "\n";
          break;
        case Block::Kind::kTable:
          RenderMarkdownTable(b.table, &o);
          break;
        case Block::Kind::kChart:
          o += "![" + Escape(b.chart.title, false) + "](" + b.chart_file +
               ")\n\n";
          break;
      }
    }
  }
  return o;
}

}  // namespace flatbench::report
