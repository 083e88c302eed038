// The stores' shape (bulk-loaded, or aged by the stream of blocks) and the
// upkeep that aging cost each of them (RESEARCH.md section 11); the
// arena's upkeep at full scale is document_upkeep.cc's.
#include <cmath>

#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/upkeep.h"

namespace flatbench::report {
namespace {

using nlohmann::json;

std::string Text(const json& j, const std::string& key) {
  if (!j.contains(key)) return "";
  const json& v = j.at(key);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string Kind(const json& shape) { return Text(shape, "kind"); }

// A read variant ("STORE+HOW") reads its store's files: its shape is the
// store's, listed once under the store.
bool IsReadVariant(const std::string& backend) {
  return backend.find('+') != std::string::npos;
}

// The engine's own figures: the shape's "engine.*" keys, without the prefix.
json EngineOf(const json& shape) {
  json out = json::object();
  const std::string prefix = "engine.";
  for (const auto& [k, v] : shape.items()) {
    if (k.rfind(prefix, 0) == 0) out[k.substr(prefix.size())] = v;
  }
  return out;
}

// The arena's merges: their count, and pairs/s and MB/s at the jobs age ran
// them with and, when that was more than one, at one job.
std::string MergeRates(const json& engine) {
  std::string out = "merges: " + Text(engine, "merges");
  const std::string jobs = engine.contains("merge_jobs")
                               ? Text(engine, "merge_jobs")
                               : std::string("?");
  const auto rates = [&](const std::string& prefix, const std::string& at) {
    if (!(ShapeNumber(engine, prefix + "merge_pairs_per_s") > 0)) return;
    out += "; at " + at + ": " +
           Count(ShapeNumber(engine, prefix + "merge_pairs_per_s")) +
           " pairs/s, " + Sig(ShapeNumber(engine, prefix + "merge_mb_per_s")) +
           " MB/s";
  };
  rates("", jobs == "1" ? "1 job" : jobs + " jobs");
  rates("one_job_", "1 job");
  return out;
}

// The engine's own figures in a few words.
std::string EngineShape(const std::string& backend, const json& engine) {
  if (engine.contains("merges")) return MergeRates(engine);
  if (engine.contains("account.levels")) {
    return "account " + Text(engine, "account.levels") + "; storage " +
           Text(engine, "storage.levels") + " (level:files/bytes); " +
           "compaction wrote " +
           Bytes(ShapeNumber(engine, "compaction_bytes_written"));
  }
  if (engine.contains("free_pages")) {
    return Text(engine, "pages") + " pages, " + Text(engine, "free_pages") +
           " free; depth " + Text(engine, "account.depth") + "/" +
           Text(engine, "storage.depth");
  }
  std::string out;
  for (const auto& [k, v] : engine.items()) {
    out += (out.empty() ? "" : ", ") + k + " " +
           (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out.empty() ? backend : out;
}

Table UpkeepTable(const ResultSet& r) {
  Table t;
  t.header = {"store",     "blocks",  "ms per block", "changed", "written",
              "write amp", "on disk", "space amp",    "shape"};
  t.right_aligned = {false, true, true, true, true, true, true, true, false};
  for (const auto& [backend, shape] : r.shapes) {
    if (Kind(shape) != "aged" || IsReadVariant(backend)) continue;
    const double blocks =
        ShapeNumber(shape, "blocks") - ShapeNumber(shape, "from_blocks");
    t.rows.push_back({{backend},
                      {Count(blocks)},
                      {Fixed(1e3 * ShapeNumber(shape, "seconds_per_block"), 2)},
                      {Bytes(ShapeNumber(shape, "logical_bytes"))},
                      {Bytes(ShapeNumber(shape, "written_bytes"))},
                      {Fixed(ShapeNumber(shape, "write_amp"), 2)},
                      {Bytes(ShapeNumber(shape, "disk_bytes"))},
                      {Fixed(ShapeNumber(shape, "space_amp"), 2)},
                      {EngineShape(backend, EngineOf(shape))}});
  }
  return t;
}

}  // namespace

std::string ShapeLine(const ResultSet& r) {
  if (r.shapes.empty()) {
    return "the stores as bulk-loaded in ascending key order, a shape no "
           "running node has";
  }
  std::string kind;
  for (const auto& [backend, shape] : r.shapes) {
    if (kind.empty()) kind = Kind(shape);
    if (Kind(shape) != kind) kind = "mixed";
  }
  const json& any = r.shapes.begin()->second;
  const std::string blocks = Text(any, "blocks");
  if (kind == "aged") {
    const std::string from = Text(any, "from_blocks");
    return "the stores aged by " + blocks +
           " blocks of the stream through their own write paths (flatbench "
           "age" +
           (from.empty() || from == "0"
                ? std::string()
                : "; blocks " + from + " to " + blocks +
                      " through the write paths, the first " + from +
                      " bulk-loaded") +
           "), the shape a running node's stores have";
  }
  if (kind == "fresh") {
    return "the state after " + blocks +
           " blocks, bulk-loaded fresh (gen --blocks " + blocks + ")";
  }
  std::string parts;
  for (const auto& [backend, shape] : r.shapes) {
    parts += (parts.empty() ? "" : ", ") + backend + " " + Kind(shape);
  }
  return "stores of mixed shapes (" + parts + ")";
}

std::string ShapeBrief(const ResultSet& r) {
  if (r.shapes.empty()) return "bulk-loaded, ascending (no live node's shape)";
  std::string kind;
  for (const auto& [backend, shape] : r.shapes) {
    if (kind.empty()) kind = Kind(shape);
    if (Kind(shape) != kind) return "mixed shapes (see the shape section)";
  }
  const std::string blocks = Text(r.shapes.begin()->second, "blocks");
  const std::string from = Text(r.shapes.begin()->second, "from_blocks");
  if (kind == "aged" && !from.empty() && from != "0") {
    return "aged from block " + from + " to " + blocks + " (flatbench age)";
  }
  if (kind == "aged") return "aged by " + blocks + " blocks (flatbench age)";
  return blocks + " blocks' state, bulk-loaded (gen --blocks)";
}

Section ShapeSection(const ResultSet& r) {
  Section s{"The stores' shape and upkeep", {}};
  s.blocks.push_back(Paragraph("These figures are for " + ShapeLine(r) + "."));
  Table t = UpkeepTable(r);
  if (t.rows.empty()) return s;
  s.blocks.push_back(Paragraph(
      "What aging cost each store (RESEARCH.md section 11): the wall time "
      "per block; the logical bytes the blocks changed (keys and values); "
      "the bytes the store had the storage write (/proc/self/io, its "
      "background flushes and compactions included); write amplification, "
      "written over changed; space amplification, bytes on disk over the "
      "aged state's live keys and values."));
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

}  // namespace flatbench::report
