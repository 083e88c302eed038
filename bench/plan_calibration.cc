#include "bench/plan_calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "common/files.h"
#include "common/results_schema.h"
#include "common/text.h"

namespace flatbench::bench {
namespace {

using nlohmann::json;
namespace r = results;

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Number(const json& e, std::string_view key) {
  auto it = e.find(std::string(key));
  return it != e.end() && it->is_number() ? it->get<double>() : std::nan("");
}

std::string Text(const json& ctx, const r::ContextKey& key) {
  auto it = ctx.find(std::string(key.name));
  if (it == ctx.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// One entry of the results, as the calibration reads it.
struct Entry {
  r::CellName cell;
  double start = 0;  // pass_start_s.
  double loop = 0;   // iterations / reads_per_s: the timed loop.
  double open = 0;   // open_seconds (0 for a device cell).
  double rate = 0;   // reads_per_s.
  bool after_gap = false;
};

std::vector<Entry> Entries(const json& results) {
  std::vector<std::pair<double, Entry>> out;
  const json& list = results.value("benchmarks", json::array());
  for (const json& e : list) {
    auto name = r::ParseCellName(e.value("name", std::string()));
    const double start = Number(e, r::kPassStartS.name);
    const double order = Number(e, r::kPassOrder.name);
    if (!name || !std::isfinite(start) || !std::isfinite(order)) continue;
    Entry x;
    x.cell = *name;
    x.start = start;
    x.rate = Number(e, r::kReadsPerS.name);
    const double iterations = Number(e, "iterations");
    if (x.rate > 0 && iterations > 0) x.loop = iterations / x.rate;
    const double open = Number(e, r::kOpenSeconds.name);
    x.open = std::isfinite(open) ? open : 0;
    x.after_gap = e.contains(std::string(r::kInterruptedBeforeS.name));
    out.push_back({order, x});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.first < b.first;
  });
  std::vector<Entry> entries;
  for (auto& [order, e] : out) entries.push_back(std::move(e));
  return entries;
}

// One step: a pass, with the device cell before it.
struct StepTime {
  r::CellName cell;        // The pass's.
  double start = 0;        // Its first entry's.
  double measured = 0;     // Device loop, open and pass loop.
  double seconds = -1;     // To the next step's start; < 0: unknown.
  bool read = false;       // A point-read pass (hit or miss).
  bool after_gap = false;  // The run was interrupted just before it.
};

std::vector<StepTime> Steps(const std::vector<Entry>& entries) {
  std::vector<StepTime> steps;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    StepTime s;
    s.start = e.start;
    s.measured = e.loop + e.open;
    s.cell = e.cell;
    s.after_gap = e.after_gap;
    if (e.cell.kind == r::kKindDevice && i + 1 < entries.size()) {
      const Entry& pass = entries[i + 1];
      if (pass.cell.kind != r::kKindDevice &&
          pass.cell.backend == e.cell.backend &&
          pass.cell.mode == e.cell.mode && pass.cell.rep == e.cell.rep &&
          pass.cell.table == e.cell.table && !pass.after_gap) {
        s.cell = pass.cell;
        s.measured += pass.loop + pass.open;
        ++i;
      }
    }
    s.read = r::IsReadKind(s.cell.kind);
    steps.push_back(s);
  }
  // A step's wall time: up to the next step's start, unless a new mode
  // (its warm hold) or an interruption came between them.
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    const StepTime& next = steps[i + 1];
    if (next.cell.mode != steps[i].cell.mode || next.after_gap) continue;
    steps[i].seconds = next.start - steps[i].start;
  }
  return steps;
}

std::string KeyOf(r::CellName cell) {
  cell.rep = 0;
  return r::FormatCellName(cell);
}

// The device's median rate at each depth its cells measured.
std::vector<DeviceRate> DeviceRates(const std::vector<Entry>& entries) {
  std::map<int, std::vector<double>> by_depth;
  for (const Entry& e : entries) {
    if (e.cell.kind == r::kKindDevice && e.rate > 0) {
      by_depth[e.cell.threads].push_back(e.rate);
    }
  }
  std::vector<DeviceRate> out;
  for (auto& [depth, rates] : by_depth) {
    out.push_back({depth, Median(rates)});
  }
  return out;
}

// The step overheads: a warm step's beyond its loop, a cold step's beyond
// its device cell, open and loop (the eviction's, less the warm figure).
void Overheads(const std::vector<StepTime>& steps, Calibration* c) {
  std::vector<double> warm, cold;
  for (const StepTime& s : steps) {
    if (!s.read || s.seconds < 0) continue;
    const double rest = std::max(0.0, s.seconds - s.measured);
    (s.cell.mode == r::kModeWarm ? warm : cold).push_back(rest);
  }
  if (!warm.empty()) c->step_s = Median(warm);
  if (!cold.empty()) {
    c->evict_s =
        std::max(0.0, Median(cold) - c->step_s.value_or(HostCost().step_s));
  }
}

void StepSeconds(const std::vector<StepTime>& steps, Calibration* c) {
  std::map<std::string, std::vector<double>> by_key;
  std::set<std::string> backends;
  for (const StepTime& s : steps) {
    backends.insert(s.cell.backend);
    if (s.seconds >= 0) by_key[KeyOf(s.cell)].push_back(s.seconds);
  }
  for (auto& [key, v] : by_key) c->step_seconds[key] = Median(v);
  if (!steps.empty() && !backends.empty()) {
    // The first step's start holds every worker's start and sanity check,
    // and that step's own eviction.
    const double before = steps.front().start - c->evict_s.value_or(0);
    c->start_s = std::max(0.0, before) / static_cast<double>(backends.size());
  }
}

// Each backend's start and warm begin, as the run recorded them (results
// of an older bench have neither: start_s stands for them).
void BackendStarts(const json& ctx, Calibration* c) {
  const std::string prefix(r::kBackendPrefix);
  const std::string start = "." + std::string(r::kStartSeconds.name);
  for (const auto& [key, value] : ctx.items()) {
    if (key.rfind(prefix, 0) != 0 || !value.is_number() ||
        key.size() <= prefix.size() + start.size() ||
        key.compare(key.size() - start.size(), start.size(), start) != 0) {
      continue;
    }
    const std::string b =
        key.substr(prefix.size(), key.size() - prefix.size() - start.size());
    const json warm =
        ctx.value(r::BackendKey(b, r::kWarmBeginSeconds), json(0.0));
    c->start_by_backend[b] =
        value.get<double>() + (warm.is_number() ? warm.get<double>() : 0.0);
  }
}

// The measured depths as measured; the model's other depths scaled as the
// nearest depth measured (in log2) differs from the model there.
std::vector<DeviceRate> MergedDevice(const std::vector<DeviceRate>& measured,
                                     const HostCost& model) {
  std::map<int, double> rates;
  for (const DeviceRate& m : measured) rates[m.depth] = m.reads_per_s;
  for (const DeviceRate& d : model.device) {
    if (rates.count(d.depth) != 0) continue;
    const DeviceRate* nearest = &measured.front();
    for (const DeviceRate& m : measured) {
      if (std::abs(std::log2(m.depth) - std::log2(d.depth)) <
          std::abs(std::log2(nearest->depth) - std::log2(d.depth))) {
        nearest = &m;
      }
    }
    rates[d.depth] =
        d.reads_per_s * nearest->reads_per_s / model.ReadsPerS(nearest->depth);
  }
  std::vector<DeviceRate> out;
  for (const auto& [depth, rate] : rates) out.push_back({depth, rate});
  return out;
}

}  // namespace

std::string StepKey(const Step& step) {
  return PassName(CellNameOf(step.backend, step.cell, step.mode, 0));
}

std::optional<Calibration> CalibrationFrom(const json& results,
                                           const std::string& source,
                                           const CalibrationTarget& target) {
  if (!results.is_object()) return std::nullopt;
  const json ctx = results.value("context", json::object());
  if (!ctx.is_object()) return std::nullopt;
  const std::string host = Text(ctx, r::kMachineIdHash);
  if (target.machine_id_hash.empty() || host != target.machine_id_hash) {
    return std::nullopt;
  }
  Calibration c;
  c.source = source;
  c.run_start = Text(ctx, r::kRunStart);
  const std::vector<Entry> entries = Entries(results);
  const std::vector<StepTime> steps = Steps(entries);
  if (target.device.empty() || Text(ctx, r::kDevice) == target.device) {
    c.device = DeviceRates(entries);
  }
  Overheads(steps, &c);
  c.evict = Text(ctx, r::kEvictMethod);
  if (c.evict != target.evict) c.evict_s.reset();
  c.same_run =
      Text(ctx, r::kSpec) == target.spec &&
      Text(ctx, r::kReadsPerPass) == std::to_string(target.reads_per_pass) &&
      Text(ctx, r::kDeviceReadsPerPass) == std::to_string(target.device_reads);
  if (c.same_run) {
    StepSeconds(steps, &c);
    BackendStarts(ctx, &c);
  }
  return c;
}

std::optional<Calibration> NewestCalibration(
    const std::vector<std::string>& files, const CalibrationTarget& target) {
  std::optional<Calibration> best;
  for (const std::string& f : files) {
    auto text = ReadSmallFile(f);
    if (!text.ok()) continue;
    const json doc = json::parse(text.value(), nullptr, false);
    if (doc.is_discarded()) continue;
    auto c = CalibrationFrom(doc, f, target);
    if (c && (!best || c->run_start >= best->run_start)) best = std::move(c);
  }
  return best;
}

std::vector<std::string> DefaultResultsFiles(const std::string& results_root,
                                             const std::string& out) {
  namespace fs = std::filesystem;
  std::set<std::string> files;
  std::error_code ec;
  if (!results_root.empty()) {
    for (const auto& d : fs::directory_iterator(results_root, ec)) {
      const fs::path f = d.path() / "bench.json";
      if (fs::is_regular_file(f, ec)) files.insert(f.string());
    }
  }
  if (!out.empty() && out != "-") {
    const fs::path parent = fs::absolute(out, ec).parent_path();
    for (const auto& d : fs::directory_iterator(parent, ec)) {
      if (d.path().extension() == ".json" && fs::is_regular_file(d, ec)) {
        files.insert(d.path().string());
      }
    }
  }
  return {files.begin(), files.end()};
}

HostCost Calibrated(const Calibration& c, HostCost host) {
  if (!c.device.empty()) host.device = MergedDevice(c.device, host);
  if (c.step_s) host.step_s = *c.step_s;
  if (c.evict_s) {
    (c.evict == "drop_caches" ? host.drop_caches_s : host.fadvise_s) =
        *c.evict_s;
  }
  return host;
}

std::string Describe(const Calibration& c) {
  std::vector<std::string> what;
  if (!c.device.empty()) {
    std::vector<int> depths;
    for (const DeviceRate& d : c.device) depths.push_back(d.depth);
    what.push_back("device rates at depth " + Join(depths, ", "));
  }
  char buf[96];
  if (c.step_s) {
    std::snprintf(buf, sizeof(buf), "a step's overhead (%.3f s)", *c.step_s);
    what.push_back(buf);
  }
  if (c.evict_s) {
    std::snprintf(buf, sizeof(buf), "an eviction by %s (%.3f s)",
                  c.evict.c_str(), *c.evict_s);
    what.push_back(buf);
  }
  if (c.same_run) {
    what.push_back("the measured time of each step it ran (" +
                   std::to_string(c.step_seconds.size()) +
                   " kinds of step) and the workers' start");
  }
  std::string out = "calibrated from " + c.source + " (this host's run of " +
                    (c.run_start.empty() ? "unknown date" : c.run_start) +
                    "): ";
  if (what.empty()) return out + "nothing it could use";
  for (size_t i = 0; i < what.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == what.size() ? " and " : ", ") + what[i];
  }
  return out;
}

}  // namespace flatbench::bench
