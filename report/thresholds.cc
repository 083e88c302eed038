#include "report/thresholds.h"

#include <xxhash.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "common/files.h"
#include "common/hex.h"
#include "common/results_schema.h"
#include "report/thresholds_default.h"

namespace flatbench::report {
namespace {

namespace r = results;

using nlohmann::json;

// Every parse error names the file and the dotted path of the field.
class Parser {
 public:
  explicit Parser(const std::string& source) : source_(source) {}

  Status Bad(const std::string& field, const std::string& what) const {
    return Status::Corruption("thresholds " + source_ + ": field '" + field +
                              "' " + what);
  }

  Status RejectUnknown(const json& obj, const std::string& path,
                       const std::set<std::string>& known) const {
    for (const auto& [key, value] : obj.items()) {
      (void)value;
      if (known.count(key) == 0) {
        return Bad(path + key, "is not a known field");
      }
    }
    return Status::Ok();
  }

  Status Object(const json& parent, const std::string& path,
                const std::string& key, const json** out) const {
    auto it = parent.find(key);
    if (it == parent.end()) return Bad(path + key, "is missing");
    if (!it->is_object()) return Bad(path + key, "must be an object");
    *out = &*it;
    return Status::Ok();
  }

  Status String(const json& parent, const std::string& path,
                const std::string& key, std::string* out) const {
    auto it = parent.find(key);
    if (it == parent.end()) return Bad(path + key, "is missing");
    if (!it->is_string() || it->get<std::string>().empty()) {
      return Bad(path + key, "must be a non-empty string");
    }
    *out = it->get<std::string>();
    return Status::Ok();
  }

  Status Number(const json& parent, const std::string& path,
                const std::string& key, double* out) const {
    auto it = parent.find(key);
    if (it == parent.end()) return Bad(path + key, "is missing");
    if (!it->is_number()) return Bad(path + key, "must be a number");
    double v = it->get<double>();
    if (!std::isfinite(v) || v <= 0) {
      return Bad(path + key, "must be a positive finite number");
    }
    *out = v;
    return Status::Ok();
  }

  Status Integer(const json& parent, const std::string& path,
                 const std::string& key, int* out) const {
    auto it = parent.find(key);
    if (it == parent.end()) return Bad(path + key, "is missing");
    if (!it->is_number_integer() || it->get<long long>() < 1 ||
        it->get<long long>() > 1000000) {
      return Bad(path + key, "must be a positive integer");
    }
    *out = static_cast<int>(it->get<long long>());
    return Status::Ok();
  }

  Status Bool(const json& parent, const std::string& path,
              const std::string& key, bool* out) const {
    auto it = parent.find(key);
    if (it == parent.end()) return Bad(path + key, "is missing");
    if (!it->is_boolean()) return Bad(path + key, "must be true or false");
    *out = it->get<bool>();
    return Status::Ok();
  }

 private:
  std::string source_;
};

Status ParseCheck(const Parser& p, const json& c, const std::string& path,
                  RatioThreshold* out) {
  if (!c.is_object()) return p.Bad(path, "must be an object");
  const std::string pre = path + ".";
  FLATBENCH_RETURN_IF_ERROR(p.RejectUnknown(
      c, pre, {"name", "metric", "baseline", "min_ratio", "max_ratio"}));
  FLATBENCH_RETURN_IF_ERROR(p.String(c, pre, "name", &out->name));
  FLATBENCH_RETURN_IF_ERROR(p.String(c, pre, "baseline", &out->baseline));
  std::string metric;
  FLATBENCH_RETURN_IF_ERROR(p.String(c, pre, "metric", &metric));
  if (metric == MetricName(Metric::kHitReadsPerS)) {
    out->metric = Metric::kHitReadsPerS;
    if (c.contains("max_ratio")) {
      return p.Bad(pre + "max_ratio", "does not apply to hit_reads_per_s");
    }
    return p.Number(c, pre, "min_ratio", &out->bound);
  }
  if (metric == MetricName(Metric::kMissCost)) {
    out->metric = Metric::kMissCost;
    if (c.contains("min_ratio")) {
      return p.Bad(pre + "min_ratio", "does not apply to miss_cost");
    }
    return p.Number(c, pre, "max_ratio", &out->bound);
  }
  return p.Bad(pre + "metric",
               "must be hit_reads_per_s or miss_cost, not '" + metric + "'");
}

Status ParseValidity(const Parser& p, const json& v, Thresholds* t) {
  const std::string pre = "validity.";
  FLATBENCH_RETURN_IF_ERROR(
      p.RejectUnknown(v, pre,
                      {"min_repetitions", "max_resident_fraction", "threads",
                       "cells", "require_release_build", "require_asserts_off",
                       "require_full_concurrency", "require_sanity_passed",
                       "min_mean_inflight_share", "max_device_rate_spread",
                       "max_device_drift"}));
  FLATBENCH_RETURN_IF_ERROR(
      p.Integer(v, pre, "min_repetitions", &t->min_repetitions));
  FLATBENCH_RETURN_IF_ERROR(
      p.Number(v, pre, "max_resident_fraction", &t->max_resident_fraction));
  if (t->max_resident_fraction > 1) {
    return p.Bad(pre + "max_resident_fraction", "must be at most 1");
  }
  auto threads = v.find("threads");
  if (threads == v.end()) return p.Bad(pre + "threads", "is missing");
  if (!threads->is_array() || threads->empty()) {
    return p.Bad(pre + "threads", "must be a non-empty array of integers");
  }
  for (const auto& n : *threads) {
    if (!n.is_number_integer() || n.get<long long>() < 1 ||
        n.get<long long>() > 65536) {
      return p.Bad(pre + "threads", "must hold positive integers");
    }
    t->threads.push_back(static_cast<int>(n.get<long long>()));
  }
  const json* cells = nullptr;
  FLATBENCH_RETURN_IF_ERROR(p.Object(v, pre, "cells", &cells));
  if (cells->empty()) return p.Bad(pre + "cells", "names no table");
  for (const auto& [table, kinds] : cells->items()) {
    const std::string field = pre + "cells." + table;
    if (!r::IsTable(table)) {
      return p.Bad(field, "is not a table (account or storage)");
    }
    if (!kinds.is_array() || kinds.empty()) {
      return p.Bad(field, "must be a non-empty array of kinds");
    }
    for (const auto& k : kinds) {
      std::string kind = k.is_string() ? k.get<std::string>() : "";
      if (!r::IsReadKind(kind)) {
        return p.Bad(field, "must hold hit, miss-absent or miss-live");
      }
      if (!r::CellExists(table, kind)) {
        return p.Bad(field, "holds " + kind + ", which " + table +
                                " has no cell of (miss-live is storage only)");
      }
      t->cells[table].push_back(kind);
    }
  }
  FLATBENCH_RETURN_IF_ERROR(
      p.Bool(v, pre, "require_release_build", &t->require_release_build));
  FLATBENCH_RETURN_IF_ERROR(
      p.Bool(v, pre, "require_asserts_off", &t->require_asserts_off));
  FLATBENCH_RETURN_IF_ERROR(
      p.Bool(v, pre, "require_full_concurrency", &t->require_full_concurrency));
  FLATBENCH_RETURN_IF_ERROR(
      p.Bool(v, pre, "require_sanity_passed", &t->require_sanity_passed));
  FLATBENCH_RETURN_IF_ERROR(
      p.Number(v, pre, "min_mean_inflight_share", &t->min_mean_inflight_share));
  if (t->min_mean_inflight_share > 1) {
    return p.Bad(pre + "min_mean_inflight_share", "must be at most 1");
  }
  for (auto [key, field] :
       {std::pair{"max_device_rate_spread", &t->max_device_rate_spread},
        std::pair{"max_device_drift", &t->max_device_drift}}) {
    FLATBENCH_RETURN_IF_ERROR(p.Number(v, pre, key, field));
    if (*field < 1) return p.Bad(pre + key, "must be at least 1 (max/min)");
  }
  return Status::Ok();
}

}  // namespace

const char* MetricName(Metric metric) {
  switch (metric) {
    case Metric::kHitReadsPerS:
      return "hit_reads_per_s";
    case Metric::kMissCost:
      return "miss_cost";
  }
  return "?";
}

std::vector<std::string> Thresholds::Backends() const {
  std::vector<std::string> out{candidate};
  for (const auto& c : checks) {
    bool seen = false;
    for (const auto& b : out) seen = seen || b == c.baseline;
    if (!seen) out.push_back(c.baseline);
  }
  return out;
}

std::string Xxh3Hex(std::string_view bytes) {
  return Hex64(XXH3_64bits(bytes.data(), bytes.size()));
}

Result<Thresholds> ParseThresholds(std::string_view text,
                                   const std::string& source) {
  Parser p(source);
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::Corruption("thresholds " + source + ": not valid JSON");
  }
  if (!doc.is_object()) return p.Bad("(top level)", "must be an object");
  FLATBENCH_RETURN_IF_ERROR(
      p.RejectUnknown(doc, "",
                      {"flatbench_thresholds", "description", "gate",
                       "candidate", "checks", "validity"}));
  int version = 0;
  FLATBENCH_RETURN_IF_ERROR(
      p.Integer(doc, "", "flatbench_thresholds", &version));
  if (version != 1) {
    return p.Bad("flatbench_thresholds", "is version " +
                                             std::to_string(version) +
                                             "; this build reads version 1");
  }
  Thresholds t;
  const json* gate = nullptr;
  FLATBENCH_RETURN_IF_ERROR(p.Object(doc, "", "gate", &gate));
  FLATBENCH_RETURN_IF_ERROR(p.RejectUnknown(*gate, "gate.", {"mode", "scale"}));
  FLATBENCH_RETURN_IF_ERROR(p.String(*gate, "gate.", "mode", &t.gate_mode));
  if (!results::IsMode(t.gate_mode)) {
    std::string modes;
    for (std::string_view m : results::kModes) {
      modes += (modes.empty() ? "" : ", ") + std::string(m);
    }
    return p.Bad("gate.mode", "must be one of " + modes);
  }
  FLATBENCH_RETURN_IF_ERROR(p.String(*gate, "gate.", "scale", &t.gate_scale));
  FLATBENCH_RETURN_IF_ERROR(p.String(doc, "", "candidate", &t.candidate));
  auto checks = doc.find("checks");
  if (checks == doc.end()) return p.Bad("checks", "is missing");
  if (!checks->is_array() || checks->empty()) {
    return p.Bad("checks", "must be a non-empty array");
  }
  for (size_t i = 0; i < checks->size(); ++i) {
    RatioThreshold r;
    FLATBENCH_RETURN_IF_ERROR(
        ParseCheck(p, (*checks)[i], "checks[" + std::to_string(i) + "]", &r));
    if (r.baseline == t.candidate) {
      return p.Bad("checks[" + std::to_string(i) + "].baseline",
                   "is the candidate itself");
    }
    t.checks.push_back(std::move(r));
  }
  const json* validity = nullptr;
  FLATBENCH_RETURN_IF_ERROR(p.Object(doc, "", "validity", &validity));
  FLATBENCH_RETURN_IF_ERROR(ParseValidity(p, *validity, &t));
  t.source = source;
  t.text = std::string(text);
  t.digest = Xxh3Hex(text);
  return t;
}

Result<Thresholds> LoadThresholdsFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Status::MissingInput("thresholds " + path + ": no such file");
  }
  FLATBENCH_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path));
  return ParseThresholds(text, path);
}

std::string_view BuiltInThresholdsText() {
  return std::string_view(kBuiltInThresholds, sizeof(kBuiltInThresholds) - 1);
}

Result<Thresholds> BuiltInThresholds() {
  return ParseThresholds(BuiltInThresholdsText(),
                         "built-in (thresholds.json at build time)");
}

}  // namespace flatbench::report
