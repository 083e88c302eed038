#pragma once
// The report's content, independent of its format: sections of paragraphs,
// lists, tables and charts, in the order the reader needs them. markdown.h
// and html.h render the same Document, so the two files never disagree.
//
// All text is plain (unescaped); each renderer escapes for its format.

#include <string>
#include <utility>
#include <vector>

#include "report/document/svg.h"
#include "report/results.h"
#include "report/verdict/verdict.h"

namespace flatbench::report {

struct TableCell {
  // kNoise: within noise (amber in HTML, plain in markdown).
  enum class Style { kPlain, kPass, kFail, kNoise };
  std::string text;
  Style style = Style::kPlain;
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<TableCell>> rows;
  // Per column, or empty: true right-aligns the column (numbers).
  std::vector<bool> right_aligned;
  // The decision card's table: drawn compact and on one line per row.
  bool card = false;
  bool RightAligned(size_t column) const {
    return column < right_aligned.size() && right_aligned[column];
  }
};

// A phrase of a paragraph that links, in HTML, to a section's heading.
struct Link {
  std::string phrase;  // Linked where it first occurs in the text.
  std::string anchor;  // The Section::anchor it points to.
};

struct Block {
  enum class Kind { kParagraph, kList, kTable, kChart };
  Kind kind = Kind::kParagraph;
  std::string text;                // kParagraph.
  std::vector<Link> links;         // kParagraph: links in HTML only.
  std::vector<std::string> items;  // kList.
  Table table;                     // kTable.
  BarChart chart;                  // kChart.
  std::string chart_file;          // kChart: file name for markdown.
  // kChart: when set, this pre-rendered SVG is drawn instead of `chart`
  // (inline form for HTML, standalone form for chart_file).
  std::string svg_inline, svg_standalone;
};

inline Block Paragraph(std::string text) {
  Block b;
  b.text = std::move(text);
  return b;
}

inline Block TableBlock(Table t) {
  Block b;
  b.kind = Block::Kind::kTable;
  b.table = std::move(t);
  return b;
}

struct Section {
  std::string title;
  std::vector<Block> blocks;
  std::string anchor = {};  // The HTML id of its heading; empty: none.
};

struct Document {
  std::string title;
  Outcome outcome = Outcome::kInconclusive;
  std::string verdict_line;  // "Verdict: GO".
  std::vector<Section> sections;
};

// Lays out the whole report for `verdict` over `results`.
Document BuildDocument(const Verdict& verdict, const ResultSet& results);

}  // namespace flatbench::report
