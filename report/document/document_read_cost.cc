// What the cold reads cost in the backend's own counts (RocksDB's perf
// context), per read and per level, beside the levels the store had: at
// the worker's open, and, for an aged store, as aging left them with the
// compaction bytes aging wrote. Informational: no threshold reads them.
#include <cmath>
#include <set>
#include <sstream>

#include "common/results_schema.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/read_cost.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using nlohmann::json;

std::string PerReadText(double v) { return std::isnan(v) ? "–" : Fixed(v, 2); }

Table ReadCostTable(const Verdict& v, const ResultSet& res) {
  Table t;
  t.header = {"backend",
              "cell",
              "data blocks",
              "index blocks",
              "filter blocks",
              "filter probes",
              "false positives",
              "probes per level",
              "false positives per level",
              "blocks read per level"};
  t.right_aligned = {false, false, true,  true,  true,
                     true,  true,  false, false, false};
  for (const auto& [key, stats] : v.cells) {
    if (!r::IsReadKind(key.kind) || !r::IsColdMode(key.mode)) continue;
    const ReadCost c = ReadCostOf(res, key);
    if (c.passes == 0) continue;
    t.rows.push_back({{key.backend},
                      {key.table + " " + key.kind + " " +
                       std::to_string(key.threads) + "t " + key.mode},
                      {PerReadText(c.data_blocks)},
                      {PerReadText(c.index_blocks)},
                      {PerReadText(c.filter_blocks)},
                      {PerReadText(c.filter_probes)},
                      {PerReadText(c.filter_false_positives)},
                      {PerLevelText(c, &LevelReadCost::filter_probes)},
                      {PerLevelText(c, &LevelReadCost::filter_false_positives)},
                      {PerLevelText(c, &LevelReadCost::block_cache_misses)}});
  }
  return t;
}

std::string ShapeField(const json& j, const std::string& key) {
  auto it = j.find(key);
  if (it == j.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// "L0:2/1000 L6:3/95000000" -> "L0 2 files, 1000 B; L6 3 files, 90.6 MiB".
std::string LevelsText(const std::string& levels) {
  std::istringstream in(levels);
  std::string token, out;
  while (in >> token) {
    const size_t colon = token.find(':'), slash = token.find('/');
    if (colon == std::string::npos || slash == std::string::npos ||
        slash < colon) {
      out += (out.empty() ? "" : "; ") + token;
      continue;
    }
    const std::string files = token.substr(colon + 1, slash - colon - 1);
    double bytes = NAN;
    try {
      bytes = std::stod(token.substr(slash + 1));
    } catch (...) {
    }
    out += (out.empty() ? "" : "; ") + token.substr(0, colon) + " " + files +
           (files == "1" ? " file, " : " files, ") + Bytes(bytes);
  }
  return out.empty() ? "–" : out;
}

double LevelShapeNumber(const std::string& text) {
  try {
    return std::stod(text);
  } catch (...) {
    return NAN;
  }
}

// One row per family: its levels, L0 files and SST bytes under `prefix`
// of `shape`, and `compaction` as the last cell.
void AddShapeRows(const std::string& backend, const std::string& when,
                  const json& shape, const std::string& prefix,
                  const std::string& compaction, Table* t) {
  for (std::string_view family : r::kTables) {
    const std::string p = prefix + std::string(family) + ".";
    if (!shape.contains(p + "levels")) continue;
    t->rows.push_back(
        {{backend},
         {std::string(family)},
         {when},
         {LevelsText(ShapeField(shape, p + "levels"))},
         {ShapeField(shape, p + "l0_files")},
         {Bytes(LevelShapeNumber(ShapeField(shape, p + "sst_bytes")))},
         {compaction}});
  }
}

Table LevelTable(const ResultSet& res, const std::set<std::string>& backends) {
  Table t;
  t.header = {"backend",  "table",     "levels as of",      "files and bytes",
              "L0 files", "SST bytes", "compaction written"};
  t.right_aligned = {false, false, false, false, true, true, true};
  for (const std::string& b : backends) {
    auto aged = res.shapes.find(b);
    const bool is_aged =
        aged != res.shapes.end() && ShapeField(aged->second, "kind") == "aged";
    const std::string written =
        is_aged ? Bytes(LevelShapeNumber(ShapeField(
                      aged->second, "engine.compaction_bytes_written")))
                : "–";
    if (auto open = res.open_shapes.find(b); open != res.open_shapes.end()) {
      AddShapeRows(b, "the bench's open", open->second, "", written, &t);
    }
    if (is_aged) {
      AddShapeRows(b, "the end of aging", aged->second, "engine.", written, &t);
    }
  }
  return t;
}

}  // namespace

std::vector<Block> ReadCostBlocks(const Verdict& v, const ResultSet& res) {
  Table cost = ReadCostTable(v, res);
  if (cost.rows.empty()) return {};
  std::set<std::string> backends;
  for (const auto& row : cost.rows) backends.insert(row[0].text);
  std::vector<Block> out;
  out.push_back(Paragraph(
      "What each cold read cost in the backend's own counts (RocksDB's perf "
      "context, summed over the pass's threads; medians over the "
      "repetitions), per read: data, index and filter blocks read from the "
      "files (not found in the block cache, which each cold pass opens "
      "empty), SST files whose filter was probed, and probes that said "
      "\"maybe\" for a key the file does not hold. Per level: probes, false "
      "positives and blocks read in that level's files. Informational: no "
      "threshold reads them (RESEARCH.md, RocksDB)."));
  out.push_back(TableBlock(std::move(cost)));
  Table levels = LevelTable(res, backends);
  if (!levels.rows.empty()) {
    out.push_back(Paragraph(
        "The stores' levels beside those counts: as the bench's open found "
        "them (the read-only store the passes read), and for an aged store "
        "as aging left them, with the bytes its compactions wrote."));
    out.push_back(TableBlock(std::move(levels)));
  }
  return out;
}

}  // namespace flatbench::report
