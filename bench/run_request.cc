#include "bench/run_request.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace flatbench::bench {
namespace {

using nlohmann::json;

// Every field with its JSON name, in command-line order: the one list the
// JSON round trip and RunRequestFields read. `R` is RunRequest or const
// RunRequest.
template <typename R, typename Visit>
void VisitFields(R& r, Visit&& v) {
  v("dir", r.dir);
  v("backends", r.backends);
  v("out", r.out);
  v("force", r.force);
  v("quiet", r.quiet);
  v("modes", r.modes);
  v("tables", r.tables);
  v("kinds", r.kinds);
  v("threads", r.threads);
  v("reads", r.reads);
  v("repetitions", r.repetitions);
  v("draw-seed", r.draw_seed);
  v("evict", r.evict);
  v("no-device", r.no_device);
  v("device-reads", r.device_reads);
  v("device-profile", r.device_profile);
  v("thresholds", r.thresholds);
  v("full-reference", r.full_reference);
  v("calibration", r.calibration);
  v("results-root", r.results_root);
  v("scan-length", r.scan_length);
  v("scans", r.scans);
  v("startup-probes", r.startup_probes);
  v("batch-size", r.batch_size);
  v("check-samples", r.check_samples);
  v("cache-mib", r.cache_mib);
  v("write-while-reading", r.write_while_reading);
  v("block-rate", r.block_rate);
  v("merge-every", r.merge_every);
  v("writing-repetitions", r.writing_repetitions);
  v("fresh", r.fresh);
  v("plan", r.plan);
}

template <typename T>
constexpr const char* TypeName() {
  if constexpr (std::is_same_v<T, bool>) return "true or false";
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return "an array of strings";
  }
  if constexpr (std::is_same_v<T, std::vector<int>>) {
    return "an array of integers";
  }
  if constexpr (std::is_signed_v<T>) return "an integer";
  return "a whole number";
}

// Whether `j` holds a T (an integer within T's range).
template <typename T>
bool Fits(const json& j) {
  if constexpr (std::is_same_v<T, bool>) return j.is_boolean();
  if constexpr (std::is_same_v<T, std::string>) return j.is_string();
  if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (!j.is_array()) return false;
    for (const json& e : j) {
      if (!e.is_string()) return false;
    }
    return true;
  }
  if constexpr (std::is_same_v<T, std::vector<int>>) {
    if (!j.is_array()) return false;
    for (const json& e : j) {
      if (!Fits<int>(e)) return false;
    }
    return true;
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (j.is_number_unsigned()) {
      return j.get<uint64_t>() <=
             static_cast<uint64_t>(std::numeric_limits<T>::max());
    }
    if (!j.is_number_integer()) return false;
    const int64_t v = j.get<int64_t>();
    if constexpr (std::is_signed_v<T>) {
      return v >= std::numeric_limits<T>::min() &&
             v <= std::numeric_limits<T>::max();
    } else {
      return v >= 0 && static_cast<uint64_t>(v) <=
                           uint64_t{std::numeric_limits<T>::max()};
    }
  }
  return false;
}

}  // namespace

std::vector<std::string_view> RunRequestFields() {
  std::vector<std::string_view> names;
  const RunRequest r;
  VisitFields(
      r, [&](std::string_view name, const auto&) { names.push_back(name); });
  return names;
}

json RunRequestToJson(const RunRequest& r) {
  json j = json::object();
  VisitFields(r, [&](const char* name, const auto& field) { j[name] = field; });
  return j;
}

Result<RunRequest> RunRequestFromJson(const json& j) {
  if (!j.is_object()) {
    return Status::Usage("run request: not a JSON object: " +
                         j.dump().substr(0, 80));
  }
  RunRequest r;
  Status st;
  size_t known = 0;
  VisitFields(r, [&](const char* name, auto& field) {
    using T = std::remove_reference_t<decltype(field)>;
    const auto it = j.find(name);
    if (it == j.end()) return;
    ++known;
    if (!Fits<T>(*it)) {
      if (st.ok()) {
        st = Status::Usage("run request: field '" + std::string(name) +
                           "': " + it->dump() + " is not " + TypeName<T>());
      }
      return;
    }
    field = it->template get<T>();
  });
  if (!st.ok()) return st;
  if (known != j.size()) {
    const std::vector<std::string_view> names = RunRequestFields();
    for (const auto& [key, unused] : j.items()) {
      if (std::find(names.begin(), names.end(), key) == names.end()) {
        return Status::Usage("run request: no field '" + key + "'");
      }
    }
  }
  return r;
}

}  // namespace flatbench::bench
