// Whether a rerun may resume a journal: the same run (dataset, request,
// build and host) and a gap short enough; and the request of a journal
// written before the header held one.
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "bench/journal.h"
#include "bench/plan.h"
#include "common/results_schema.h"

namespace flatbench::bench {
namespace {

using nlohmann::json;

constexpr char kResumeOrFresh[] =
    "; to resume, rerun with the journal's flags, or add --fresh to start "
    "over (it removes the journal)";

// A value as a message shows it: a list comma-separated, as on the
// command line.
std::string Shown(const json& v) {
  if (v.is_null()) return "(none)";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_array()) {
    std::string list;
    for (const json& item : v) {
      list += (list.empty() ? "" : ",") +
              (item.is_string() ? item.get<std::string>() : item.dump());
    }
    return list.empty() ? "(not given)" : list;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    return s.empty() ? "(not given)" : s;
  }
  return v.dump();
}

// The items of a comma-separated list ("" is none).
std::vector<std::string> Items(const std::string& list) {
  std::vector<std::string> items;
  size_t at = 0;
  while (!list.empty()) {
    const size_t comma = list.find(',', at);
    items.push_back(list.substr(at, comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return items;
}

// A whole number written by std::to_string, or nullopt.
std::optional<uint64_t> WholeNumber(const std::string& text) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return {};
  return v;
}

// The request fields of a header's "flags" (each shaping flag's value as
// text), as JSON; kCorruption naming the first flag whose text does not
// read.
Result<json> FieldsOfFlags(const json& flags) {
  if (!flags.is_object()) return Status::Corruption("flags: not an object");
  json r = json::object();
  for (const auto& [flag, value] : flags.items()) {
    if (!value.is_string() || flag.rfind("--", 0) != 0) {
      return Status::Corruption("flag " + flag + ": " + value.dump());
    }
    const std::string field = flag.substr(2), text = value.get<std::string>();
    const auto bad = [&] {
      return Status::Corruption("flag " + flag + ": '" + text + "'");
    };
    if (field == "backends" || field == "modes" || field == "tables" ||
        field == "kinds") {
      r[field] = Items(text);
    } else if (field == "threads") {
      json threads = json::array();
      for (const std::string& t : Items(text)) {
        const auto v = WholeNumber(t);
        if (!v) return bad();
        threads.push_back(*v);
      }
      r[field] = threads;
    } else if (field == "device-reads") {
      // "none (--no-device)", "as --reads" (its default) or a count.
      r["no-device"] = text == "none (--no-device)";
      const auto v = WholeNumber(text);
      if (!v && text != "as --reads" && !r["no-device"].get<bool>()) {
        return bad();
      }
      r[field] = v.value_or(0);
    } else if (field == "batch-size") {
      // "32 (batch threads 1,2)": the batch cells ran at the threads asked
      // for when --threads was given, else at the default.
      const size_t open = text.find(" (batch threads ");
      const auto v = WholeNumber(text.substr(0, open));
      if (!v || open == std::string::npos || text.back() != ')') return bad();
      r[field] = *v;
      r["batch threads"] = text.substr(open + 16, text.size() - open - 17);
    } else if (field == "full-reference") {
      if (text != "yes" && text != "no") return bad();
      r[field] = text == "yes";
    } else if (field == "evict" || field == "thresholds" ||
               field == "device-profile") {
      r[field] = text;
    } else {
      const auto v = WholeNumber(text);
      if (!v) return bad();
      r[field] = *v;
    }
  }
  return r;
}

}  // namespace

Result<RunRequest> RequestFromFlags(const json& flags) {
  FLATBENCH_ASSIGN_OR_RETURN(json r, FieldsOfFlags(flags));
  // The threads were given when the batch cells ran at them; the journal
  // kept them resolved either way.
  if (r.contains("batch threads")) {
    const std::string batch = r["batch threads"].get<std::string>();
    r.erase("batch threads");
    if (r.contains("threads") && batch != Shown(r["threads"])) {
      r["threads"] = json::array();
    }
  }
  return RunRequestFromJson(r);
}

Status CheckSameRun(const std::string& path, const JournalHeader& j,
                    const JournalHeader& now) {
  auto id = [](const JournalHeader& h, const results::ContextKey& k) {
    return h.identity.value(std::string(k.name), json());
  };
  for (const auto* k :
       {&results::kDatasetDir, &results::kSpec, &results::kFingerprint}) {
    if (id(j, *k) == id(now, *k)) continue;
    return Status::Corruption(
        "--dir: dataset " + Shown(id(now, results::kDatasetDir)) +
        " (fingerprint " + Shown(id(now, results::kFingerprint)) +
        ") is not the dataset journal " + path + " was written for (" +
        Shown(id(j, results::kDatasetDir)) + ", fingerprint " +
        Shown(id(j, results::kFingerprint)) + ")" + kResumeOrFresh);
  }
  const json was = RunRequestToJson(j.request),
             is = RunRequestToJson(now.request);
  for (std::string_view field : RunRequestFields()) {
    const std::string f(field);
    if (was.at(f) == is.at(f)) continue;
    return Status::Corruption("--" + f + ": " + Shown(is.at(f)) +
                              " differs from the " + Shown(was.at(f)) +
                              " of journal " + path + kResumeOrFresh);
  }
  json keys = j.identity;
  for (auto& [k, v] : now.identity.items()) keys[k] = v;
  for (auto& [k, unused] : keys.items()) {
    const json a = j.identity.value(k, json()),
               b = now.identity.value(k, json());
    if (a == b) continue;
    return Status::Corruption("journal " + path + " was written with " + k +
                              " " + Shown(a) + ", this run has " + Shown(b) +
                              kResumeOrFresh);
  }
  return Status::Ok();
}

Status CheckGap(const std::string& path, const JournalState& s, double now) {
  const double gap = now - s.last;
  if (gap <= results::kMaxInterruptionSeconds) return Status::Ok();
  return Status::Corruption(
      "journal " + path + ": its last pass finished " + FormatDuration(gap) +
      " ago, more than the " +
      FormatDuration(results::kMaxInterruptionSeconds) +
      " a run may be interrupted for (RESEARCH.md, section 6); add --fresh "
      "to start over (it removes the journal)");
}

}  // namespace flatbench::bench
