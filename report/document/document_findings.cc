// What the run says, in a few sentences generated from its own figures,
// under the decision card: pages read per hit against the geometric model,
// each read path's device-side efficiency and hit rate ÷ device rate, and
// the checks no one-page format could pass on this device.
#include <cmath>

#include "common/results_schema.h"
#include "report/document/document_context.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/page_share.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

std::string ThreadCount(int threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// Median of the finite values, NaN when there are none.
double FiniteMedian(const std::vector<double>& values) {
  std::vector<double> finite;
  for (double x : values) {
    if (std::isfinite(x)) finite.push_back(x);
  }
  return finite.empty() ? NAN : Median(finite);
}

std::string ListText(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  }
  return out;
}

// Parts that hold commas of their own, one after another: "a; b; c".
std::string Reasons(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

std::string CheckWhere(const RatioCheck& c) {
  return c.threshold.name + " (" + c.candidate.table + " " + c.candidate.kind +
         ", " + ThreadCount(c.candidate.threads) + ")";
}

}  // namespace

PagesPerHit PagesPerHitOf(const Verdict& v, const std::string& backend,
                          const std::string& table) {
  std::vector<double> measured, model;
  for (const auto& [key, st] : v.cells) {
    if (key.backend != backend || key.table != table ||
        key.kind != r::kKindHit || key.mode != v.thresholds.gate_mode ||
        st.repetitions == 0) {
      continue;
    }
    measured.push_back(MeasuredPagesPerRead(st));
    CellKey device = key;
    device.kind = std::string(r::kKindDevice);
    auto dev = v.cells.find(device);
    const double pages =
        dev == v.cells.end() ? NAN : dev->second.Of(r::kFilePages).median;
    const double reads = st.Of(r::kDistinctKeys).median;
    model.push_back(std::isfinite(pages) && std::isfinite(reads)
                        ? PassShare(pages, 1, reads)
                        : NAN);
  }
  return {FiniteMedian(measured), FiniteMedian(model)};
}

DeviceFigures EfficiencyOf(const Verdict& v, const std::string& backend,
                           int threads) {
  std::vector<double> device_side, hit_rate;
  for (const auto& [key, st] : v.cells) {
    if (key.backend == backend && key.kind == r::kKindHit &&
        key.mode == v.thresholds.gate_mode && key.threads == threads &&
        st.repetitions > 0) {
      device_side.push_back(st.device_side.median);
      hit_rate.push_back(st.Of(r::kIoEfficiency).median);
    }
  }
  return {FiniteMedian(device_side), FiniteMedian(hit_rate)};
}

namespace {

// The read path's device-side efficiency and hit rate ÷ device rate at
// each thread count, or "" when it has neither.
std::string EfficiencyFinding(const Verdict& v, const std::string& path) {
  std::vector<std::string> device_side, hit_rate;
  for (int threads : v.thresholds.threads) {
    const DeviceFigures e = EfficiencyOf(v, path, threads);
    if (std::isfinite(e.device_side)) {
      device_side.push_back(Fixed(e.device_side, 2) + " at " +
                            ThreadCount(threads));
    }
    if (std::isfinite(e.hit_rate)) {
      hit_rate.push_back(Fixed(e.hit_rate, 2) + " at " + ThreadCount(threads));
    }
  }
  if (device_side.empty() && hit_rate.empty()) return "";
  std::string text = CandidateLabel(path) + " reached";
  if (!device_side.empty()) {
    text +=
        " a device-side efficiency (storage reads/s, device read requests "
        "per hit × hits/s, over its own files' device rate, median over "
        "the tables) of " +
        ListText(device_side);
  }
  if (!hit_rate.empty()) {
    text += (device_side.empty() ? " a" : "; its") +
            std::string(
                " hit rate ÷ device rate (hits/s over the same rate, above 1 "
                "where a pass reads fewer pages than it has hits) was ") +
            ListText(hit_rate);
  }
  return text + ".";
}

// The checks no one-page format could pass here, and why.
std::string BeyondFinding(const Verdict& v) {
  const std::vector<const RatioCheck*> beyond = v.BeyondCeiling();
  if (beyond.empty()) {
    return "No check is beyond this device's limit: no hit check's bound "
           "lies above its device ceiling's interval, so a one-page format "
           "could pass each of them here.";
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < beyond.size() && i < 4; ++i) {
    const RatioCheck& c = *beyond[i];
    parts.push_back(CheckWhere(c) + " needs " +
                    (c.threshold.HigherIsBetter() ? "≥ " : "≤ ") +
                    Ratio(c.threshold.bound) + ", but reading " +
                    Fixed(c.ceiling.pages_per_hit, 3) +
                    " pages per hit at the device's " +
                    Count(c.ceiling.device_rate) + " reads/s reaches at most " +
                    CeilingFigureText(c.ceiling.device) +
                    " with no CPU time (" + OwnCeilingText(c.ceiling) + ")");
  }
  std::string more;
  if (beyond.size() > 4) {
    more = "; and " + std::to_string(beyond.size() - 4) + " more";
  }
  return "No one-page format could pass " + std::to_string(beyond.size()) +
         " of " + std::to_string(v.checks.size()) +
         " checks on this device: " + Reasons(parts) + more + ".";
}

// The checks whose device ceiling did not hold, or "".
std::string NotHeldFinding(const Verdict& v) {
  std::vector<std::string> not_held;
  for (const RatioCheck* c : v.CeilingNotHeld()) {
    not_held.push_back(CheckWhere(*c) + " measured " + Ratio(c->ratio) +
                       " against a device ceiling of " +
                       CeilingFigureText(c->ceiling.device));
  }
  if (not_held.empty()) return "";
  return "The device ceiling did not hold for " +
         std::to_string(not_held.size()) +
         (not_held.size() == 1 ? " check" : " checks") +
         ", whose measured ratio lies above that ceiling's interval (the "
         "device served those hits faster than its device cells, or the "
         "pass read fewer pages than the model), so it is no limit there and "
         "none of them is marked beyond: " +
         ListText(not_held) + ".";
}

}  // namespace

std::vector<std::string> Findings(const Verdict& v) {
  std::vector<std::string> out;
  // Pages per hit, per table, for every backend with hit cells.
  for (const auto& [table, kinds] : v.thresholds.cells) {
    std::vector<std::string> parts;
    for (const auto& backend : BackendOrder(v)) {
      const PagesPerHit p = PagesPerHitOf(v, backend, table);
      if (!std::isfinite(p.measured) && !std::isfinite(p.model)) continue;
      parts.push_back(backend + " " + Fixed(p.measured, 3) + " (model " +
                      Fixed(p.model, 3) + ")");
    }
    if (parts.empty()) continue;
    out.push_back(
        "Pages read from storage per " + table +
        " hit (4 KiB, bytes read per read / 4096 or major faults per read, "
        "median over the thread counts), with the geometric model's figure "
        "for one page per hit, P (1 − e^(−r/P)) / r over the backend's P "
        "pages of the table and a pass's r reads: " +
        ListText(parts) + ".");
  }
  // Each read path's two figures against its device at each thread count.
  std::vector<std::string> paths = {v.thresholds.candidate};
  for (const auto& variant : v.variants) {
    paths.push_back(variant.thresholds.candidate);
  }
  for (const auto& path : paths) {
    std::string text = EfficiencyFinding(v, path);
    if (!text.empty()) out.push_back(std::move(text));
  }
  out.push_back(BeyondFinding(v));
  std::string not_held = NotHeldFinding(v);
  if (!not_held.empty()) out.push_back(std::move(not_held));
  return out;
}

Section FindingsSection(const Verdict& v) {
  Section s{"What the run says", {}};
  for (const auto& sentence : Findings(v)) {
    for (auto& b : Prose(sentence)) s.blocks.push_back(std::move(b));
  }
  return s;
}

}  // namespace flatbench::report
