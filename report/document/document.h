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
#include "report/run_data.h"
#include "report/upkeep.h"
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
  // HTML folds a table of more than kFoldRows rows into <details> under
  // this summary (default: "the table, N rows"); never the card.
  std::vector<std::vector<TableCell>> rows;
  // Per column, or empty: true right-aligns the column (numbers).
  std::vector<bool> right_aligned;
  std::string summary;
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

// Tables with more rows than this fold into <details> in HTML (Block::fold).
inline constexpr size_t kFoldRows = 12;
// No paragraph or list item of the report is longer than this (characters).
inline constexpr size_t kMaxParagraph = 600;

struct Block {
  // kBox: a framed box titled `text` holding `items` (the bottom line).
  enum class Kind { kParagraph, kList, kTable, kChart, kBox };
  Kind kind = Kind::kParagraph;
  std::string text;                // kParagraph; kBox: its title.
  std::vector<Link> links;         // kParagraph: links in HTML only.
  std::vector<std::string> items;  // kList, kBox.
  Table table;                     // kTable.
  BarChart chart;                  // kChart.
  std::string chart_file;          // kChart: file name for markdown.
  // kChart: when set, this pre-rendered SVG is drawn instead of `chart`
  // (inline form for HTML, standalone form for chart_file).
  std::string svg_inline, svg_standalone;
  // HTML folds the block into <details> under this summary when it is
  // set, and a table of more than kFoldRows rows (never the card) under
  // it or "Show the table".
  std::string fold;
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

inline Block List(std::vector<std::string> items) {
  Block b;
  b.kind = Block::Kind::kList;
  b.items = std::move(items);
  return b;
}

struct Section {
  std::string title;
  std::vector<Block> blocks;
  // The HTML id of its heading; empty: Anchor(Heading(...)) (links.h).
  std::string anchor = {};
  // The table of contents' label (default: the heading), and whether HTML
  // folds the whole section into <details> (environment, settings).
  std::string toc = {};
  bool folded = false;
};

struct Document {
  std::string title;
  Outcome outcome = Outcome::kInconclusive;
  std::string verdict_line;  // "Verdict: GO".
  std::vector<Section> sections;
  // Where the project's documents are, relative to the report's folder
  // ("../../"): references to RESEARCH.md and the format documents become
  // links there. Empty: not known, plain text.
  std::string docs_root;
};

// A section's heading as the renderers write it: the card's is the
// verdict line ("Verdict: GO"). Its anchor is Anchor(Heading(...))
// (links.h) in both formats.
std::string Heading(const Document& doc, const Section& section);
// The table of contents' label of a section: its toc, else its heading.
std::string TocLabel(const Document& doc, const Section& section);
// The section's id in HTML: its anchor, else its heading's (links.h).
std::string SectionId(const Document& doc, const Section& section);

// What the reader asks of a report beyond its results.
struct DocumentOptions {
  // The rated endurance, in TB written, of the drive the arena's upkeep is
  // priced for (report --drive-tbw).
  double drive_tbw = kDefaultDriveTbw;
};

// Lays out the whole report for `verdict` over `results`.
Document BuildDocument(const Verdict& verdict, const ResultSet& results,
                       const DocumentOptions& options = {});

}  // namespace flatbench::report
