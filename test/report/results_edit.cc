// Edits of a built results document, by benchmark name or name prefix:
// the tests' way to craft one defect at a time.
#include <set>
#include <stdexcept>
#include <string>

#include "test/report/results_builder.h"

namespace flatbench::report::testing {

using nlohmann::json;

namespace {

// An entry's name, not copied: each edit walks every entry. "" when it
// has none.
const std::string& NameOf(const json& e) {
  static const std::string kNone;
  auto it = e.find("name");
  return it != e.end() && it->is_string() ? it->get_ref<const std::string&>()
                                          : kNone;
}

bool Starts(const json& e, const std::string& prefix) {
  return NameOf(e).starts_with(prefix);
}

}  // namespace

json& Entry(json& doc, const std::string& name) {
  for (auto& e : doc["benchmarks"]) {
    if (NameOf(e) == name) return e;
  }
  throw std::runtime_error("no benchmark " + name);
}

void SplitEntries(const json& doc, const std::string& prefix, json* with,
                  json* rest) {
  *with = doc;
  *rest = doc;
  (*with)["benchmarks"] = json::array();
  (*rest)["benchmarks"] = json::array();
  for (const auto& e : doc["benchmarks"]) {
    (Starts(e, prefix) ? *with : *rest)["benchmarks"].push_back(e);
  }
}

int RemoveEntries(json& doc, const std::string& prefix) {
  json kept = json::array();
  int removed = 0;
  for (auto& e : doc["benchmarks"]) {
    if (Starts(e, prefix)) {
      ++removed;
    } else {
      kept.push_back(e);
    }
  }
  doc["benchmarks"] = kept;
  return removed;
}

int SetCounter(json& doc, const std::string& prefix, const std::string& counter,
               double value) {
  int n = 0;
  for (auto& e : doc["benchmarks"]) {
    if (Starts(e, prefix)) {
      e[counter] = value;
      ++n;
    }
  }
  return n;
}

int SetRate(json& doc, const std::string& prefix, double value) {
  int n = 0;
  std::set<std::string> hits;  // Cold hits whose device cell changed.
  for (auto& e : doc["benchmarks"]) {
    const std::string& name = NameOf(e);
    if (!name.starts_with(prefix)) continue;
    e["reads_per_s"] = value;
    if (e.contains("io_efficiency")) {
      e["io_efficiency"] = value / e["device_reads_per_s"].get<double>();
    }
    const size_t at = name.find("/device/");
    if (at != std::string::npos) {
      hits.insert(name.substr(0, at) + "/hit/" + name.substr(at + 8));
    }
    ++n;
  }
  // A cold hit copies its adjacent device cell's rate.
  for (auto& e : doc["benchmarks"]) {
    if (!hits.count(NameOf(e)) || !e.contains("device_reads_per_s")) {
      continue;
    }
    e["device_reads_per_s"] = value;
    e["io_efficiency"] = e["reads_per_s"].get<double>() / value;
  }
  return n;
}

int ScaleCounter(json& doc, const std::string& prefix,
                 const std::string& counter, double factor) {
  int n = 0;
  for (auto& e : doc["benchmarks"]) {
    if (Starts(e, prefix)) {
      e[counter] = e[counter].get<double>() * factor;
      ++n;
    }
  }
  return n;
}

}  // namespace flatbench::report::testing
