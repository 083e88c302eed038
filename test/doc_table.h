#pragma once
// Reads text out of a document or a command's output: a markdown table,
// for tests that hold a document's table to the code's, and how often a
// string occurs.

#include <sstream>
#include <string>
#include <vector>

namespace flatbench::testing {

// Occurrences of `needle` in `haystack`, overlapping ones included.
inline size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// One line of a markdown table ("| a | b |") split into trimmed cells;
// empty when the line is not a table row.
inline std::vector<std::string> TableCells(const std::string& line) {
  std::vector<std::string> cells;
  if (line.rfind("|", 0) != 0) return cells;
  std::stringstream ss(line.substr(1));
  std::string cell;
  while (std::getline(ss, cell, '|')) {
    const size_t a = cell.find_first_not_of(' ');
    const size_t b = cell.find_last_not_of(' ');
    cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
  }
  return cells;
}

// The body rows of the first table in `text` whose header row is exactly
// `header` (the separator row "|---|" skipped), in order; empty when there
// is no such table.
inline std::vector<std::vector<std::string>> MarkdownTable(
    const std::string& text, const std::vector<std::string>& header) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::vector<std::string> cells = TableCells(line);
    if (!inside) {
      inside = cells == header;
      continue;
    }
    if (cells.empty()) break;  // The table ends at its first other line.
    if (cells[0].find_first_not_of("-: ") == std::string::npos) continue;
    rows.push_back(std::move(cells));
  }
  return rows;
}

}  // namespace flatbench::testing
