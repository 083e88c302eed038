#include "bench/report/document_context.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "bench/report/format.h"

namespace flatbench::report {
namespace {

Block List(std::vector<std::string> items) {
  Block b;
  b.kind = Block::Kind::kList;
  b.items = std::move(items);
  return b;
}

std::string Or(const std::string& s, const char* fallback) {
  return s.empty() ? fallback : s;
}

// A context value that should be a number, formatted by `fmt`; the raw
// text if it is not one.
std::string NumberField(const std::string& raw, std::string (*fmt)(double)) {
  if (raw.empty()) return "not recorded";
  char* end = nullptr;
  double v = std::strtod(raw.c_str(), &end);
  if (end == raw.c_str() || *end != '\0') return raw;
  return fmt(v);
}

std::string MedianRange(const Spread& s, std::string (*fmt)(double)) {
  if (s.n == 0) return "–";
  return fmt(s.median) + " (" + fmt(s.min) + "–" + fmt(s.max) + ")";
}

Section MemorySection(const Verdict& v, const ResultSet& r) {
  Section s{"Memory and open time", {}};
  s.blocks.push_back(Paragraph(
      "Per backend and mode, over every pass: median (min–max). Resident "
      "metadata is what each backend holds after open: the arena's index "
      "and filter, RocksDB's table readers and block cache, 0 for LMDB."));
  Table t;
  t.header = {
      "backend",           "mode",      "RSS after open", "RSS after pass",
      "resident metadata", "open time", "passes"};
  std::set<std::string> modes;
  for (const auto& p : r.passes) modes.insert(p.cell.mode);
  for (const auto& backend : BackendOrder(v)) {
    for (const auto& mode : modes) {
      std::vector<double> open_rss, pass_rss, meta, open_s;
      for (const auto& p : r.passes) {
        if (p.error || p.cell.backend != backend || p.cell.mode != mode) {
          continue;
        }
        open_rss.push_back(p.rss_after_open_bytes);
        pass_rss.push_back(p.rss_after_pass_bytes);
        meta.push_back(p.metadata_bytes);
        open_s.push_back(p.open_seconds);
      }
      if (open_s.empty()) continue;
      t.rows.push_back({{backend},
                        {mode},
                        {MedianRange(Summarize(open_rss), Bytes)},
                        {MedianRange(Summarize(pass_rss), Bytes)},
                        {MedianRange(Summarize(meta), Bytes)},
                        {MedianRange(Summarize(open_s), Seconds)},
                        {std::to_string(open_s.size())}});
    }
  }
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

Section BuildSection(const Verdict& v, const ResultSet& r) {
  Section s{"Build time and on-disk size", {}};
  Table t;
  t.header = {"backend", "build time", "on-disk size"};
  for (const auto& backend : BackendOrder(v)) {
    const std::string pre = "flatbench.backend." + backend;
    t.rows.push_back({{backend},
                      {NumberField(r.Context(pre + ".build_seconds"), Seconds)},
                      {NumberField(r.Context(pre + ".disk_bytes"), Bytes)}});
  }
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

Section EnvironmentSection(const ResultSet& r) {
  Section s{"Environment", {}};
  Table t;
  t.header = {"key", "value"};
  auto wanted = [](const std::string& key) {
    for (const char* prefix : {"flatbench.env.", "flatbench.lib."}) {
      if (key.rfind(prefix, 0) == 0) return true;
    }
    for (const char* k :
         {"flatbench.version", "flatbench.build_type", "flatbench.asserts",
          "host_name", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
          "library_build_type", "date", "executable"}) {
      if (key == k) return true;
    }
    return false;
  };
  for (const auto& [key, values] : r.context) {
    if (!wanted(key)) continue;
    // google-benchmark's key describes the library Debian built, not ours.
    std::string label = key == "library_build_type"
                            ? "library_build_type (google-benchmark)"
                            : key;
    t.rows.push_back({{label}, {r.Context(key)}});
  }
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

Section SettingsSection(const Verdict& v, const ResultSet& r) {
  Section s{"Backend settings", {}};
  for (const auto& backend : BackendOrder(v)) {
    std::string raw = r.Context("flatbench.backend." + backend + ".settings");
    if (raw.empty()) {
      s.blocks.push_back(Paragraph(backend + ": settings not recorded."));
      continue;
    }
    s.blocks.push_back(Paragraph(backend + ":"));
    auto j = nlohmann::json::parse(raw, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      s.blocks.push_back(List({raw}));
      continue;
    }
    Table t;
    t.header = {"setting", "value"};
    for (const auto& [key, value] : j.items()) {
      t.rows.push_back(
          {{key},
           {value.is_string() ? value.get<std::string>() : value.dump()}});
    }
    s.blocks.push_back(TableBlock(std::move(t)));
  }
  return s;
}

Section DatasetSection(const ResultSet& r) {
  Section s{"Dataset", {}};
  Table t;
  t.header = {"field", "value"};
  t.rows.push_back({{"scale"}, {r.scale}});
  t.rows.push_back({{"spec"}, {r.spec}});
  t.rows.push_back({{"fingerprint"}, {r.fingerprint}});
  for (const char* key : {"flatbench.dataset_dir", "flatbench.reads_per_pass",
                          "flatbench.repetitions", "flatbench.key_draw",
                          "flatbench.threads", "flatbench.eviction_bound",
                          "flatbench.warm_bound", "flatbench.device"}) {
    t.rows.push_back({{key}, {Or(r.Context(key), "not recorded")}});
  }
  std::string files;
  for (const auto& f : r.files) files += (files.empty() ? "" : ", ") + f;
  t.rows.push_back({{"results files"}, {files}});
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

Section CaveatSection(const Verdict& v, const ResultSet& r) {
  Section s{"Caveats", {}};
  std::vector<std::string> items = {
      "Every backend is a freshly compacted bulk load in ascending key "
      "order. That is an upper bound for both the arena and RocksDB: a live "
      "client's RocksDB carries overlapping levels and tombstones, and an "
      "arena that is rebuilt or patched incrementally would lose locality. "
      "LMDB loaded with MDB_APPEND is likewise at its most compact.",
      "RocksDB runs with cache_index_and_filter_blocks=false, so its index "
      "and filter blocks are pinned in memory outside its block cache as "
      "soon as a table is opened; cold mode therefore does not make RocksDB "
      "fetch them per read. The cold-lazy mode shows the other case "
      "(cache_index_and_filter_blocks=true, a fresh cache, and the arena "
      "reading its index through the map).",
      "Scale: the thresholds apply at " + v.thresholds.gate_scale +
          " scale (300M accounts, 1.2B storage slots, more than 100 GB per "
          "backend), where the data is far larger than RAM. At tiny, smoke "
          "and medium scale each backend is MiB to a few GB: indexes, "
          "filters and B-tree interiors are small, fewer levels and blocks "
          "stand between a key and its value, and the device sees a "
          "different seek pattern, so their ratios do not predict the "
          "full-scale answer and their verdict is INCONCLUSIVE by design. "
          "This run is at " +
          r.scale + " scale.",
      "Cold passes read distinct keys with no warm-up, after eviction that "
      "was verified with mincore; the device row is the physical limit of "
      "the same disk in the same run, so a backend near 1.0 of device has "
      "little left to gain."};
  s.blocks.push_back(List(std::move(items)));
  return s;
}

Section ThresholdSection(const Verdict& v) {
  const Thresholds& t = v.thresholds;
  Section s{"Thresholds used", {}};
  s.blocks.push_back(
      Paragraph("Source: " + t.source + "; XXH3-64 digest " + t.digest + "."));
  Table tab;
  tab.header = {"threshold", "value"};
  tab.rows.push_back({{"gate mode"}, {t.gate_mode}});
  tab.rows.push_back({{"gate scale"}, {t.gate_scale}});
  tab.rows.push_back({{"candidate"}, {t.candidate}});
  for (const auto& c : t.checks) {
    tab.rows.push_back(
        {{c.name},
         {std::string(MetricName(c.metric)) + " vs " + c.baseline +
          (c.HigherIsBetter() ? " ≥ " : " ≤ ") + Ratio(c.bound)}});
  }
  tab.rows.push_back(
      {{"min repetitions"}, {std::to_string(t.min_repetitions)}});
  tab.rows.push_back(
      {{"max resident fraction"}, {Percent(t.max_resident_fraction)}});
  std::string threads;
  for (int n : t.threads) {
    threads += (threads.empty() ? "" : ", ") + std::to_string(n);
  }
  tab.rows.push_back({{"thread counts"}, {threads}});
  for (const auto& [table, kinds] : t.cells) {
    std::string k;
    for (const auto& kind : kinds) k += (k.empty() ? "" : ", ") + kind;
    tab.rows.push_back({{"cells: " + table}, {k}});
  }
  auto yes = [](bool b) { return std::string(b ? "yes" : "no"); };
  tab.rows.push_back(
      {{"require release build"}, {yes(t.require_release_build)}});
  tab.rows.push_back({{"require asserts off"}, {yes(t.require_asserts_off)}});
  tab.rows.push_back(
      {{"require full concurrency"}, {yes(t.require_full_concurrency)}});
  tab.rows.push_back(
      {{"require sanity passed"}, {yes(t.require_sanity_passed)}});
  s.blocks.push_back(TableBlock(std::move(tab)));
  return s;
}

}  // namespace

void AddContextSections(const Verdict& v, const ResultSet& r, Document* doc) {
  doc->sections.push_back(MemorySection(v, r));
  doc->sections.push_back(BuildSection(v, r));
  doc->sections.push_back(EnvironmentSection(r));
  doc->sections.push_back(SettingsSection(v, r));
  doc->sections.push_back(DatasetSection(r));
  doc->sections.push_back(CaveatSection(v, r));
  doc->sections.push_back(ThresholdSection(v));
}

}  // namespace flatbench::report
