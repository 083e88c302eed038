#include "bench/report/results.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/files.h"

namespace flatbench::report {
namespace {

using nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Splits "arena/account/hit/cold/threads:8/rep:2" (and tolerates segments
// google-benchmark may append, such as "iterations:N" or "real_time").
bool ParseName(const std::string& name, CellKey* cell, int* rep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t slash = name.find('/', start);
    parts.push_back(name.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() < 4) return false;
  cell->backend = parts[0];
  cell->table = parts[1];
  cell->kind = parts[2];
  cell->mode = parts[3];
  bool have_threads = false;
  bool have_rep = false;
  for (size_t i = 4; i < parts.size(); ++i) {
    auto number = [&](const char* prefix, int* out) {
      size_t n = std::char_traits<char>::length(prefix);
      if (parts[i].compare(0, n, prefix) != 0) return false;
      std::string digits = parts[i].substr(n);
      if (digits.empty() || digits.size() > 6 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        return false;
      }
      *out = std::stoi(digits);
      return true;
    };
    have_threads = number("threads:", &cell->threads) || have_threads;
    have_rep = number("rep:", rep) || have_rep;
  }
  for (const auto& p : parts) {
    if (p.empty()) return false;
  }
  return have_threads && have_rep && cell->threads > 0;
}

struct CounterSpec {
  const char* name;
  double Pass::*field;
};

constexpr CounterSpec kCounters[] = {
    {"reads_per_s", &Pass::reads_per_s},
    {"lat_mean_ns", &Pass::lat_mean_ns},
    {"lat_p50_ns", &Pass::lat_p50_ns},
    {"lat_p99_ns", &Pass::lat_p99_ns},
    {"lat_p999_ns", &Pass::lat_p999_ns},
    {"major_faults_per_read", &Pass::major_faults_per_read},
    {"bytes_read_per_read", &Pass::bytes_read_per_read},
    {"resident_fraction_before", &Pass::resident_fraction_before},
    {"resident_fraction_after_eviction",
     &Pass::resident_fraction_after_eviction},
    {"eviction_verified", &Pass::eviction_verified},
    {"peak_inflight", &Pass::peak_inflight},
    {"concurrency_short", &Pass::concurrency_short},
    {"distinct_keys", &Pass::distinct_keys},
    {"rss_after_open_bytes", &Pass::rss_after_open_bytes},
    {"rss_after_pass_bytes", &Pass::rss_after_pass_bytes},
    {"open_seconds", &Pass::open_seconds},
    {"metadata_bytes", &Pass::metadata_bytes},
    {"found_fraction", &Pass::found_fraction},
};

// Counters without which a backend pass cannot be judged; the device row
// only needs reads_per_s. Others may be absent and show as "–".
bool Required(const std::string& backend, const std::string& counter) {
  if (counter == "reads_per_s") return true;
  if (backend == "device") return false;
  return counter == "lat_p99_ns" || counter == "eviction_verified" ||
         counter == "resident_fraction_before" || counter == "peak_inflight" ||
         counter == "concurrency_short" || counter == "found_fraction";
}

Status ParsePass(const json& b, const std::string& file, Pass* pass) {
  auto bad = [&](const std::string& what) {
    return Status::Corruption("results " + file + ": " + what);
  };
  if (!b.is_object()) return bad("a benchmarks[] entry is not an object");
  auto name_it = b.find("name");
  if (name_it == b.end() || !name_it->is_string()) {
    return bad("a benchmarks[] entry has no name");
  }
  const std::string name = name_it->get<std::string>();
  if (!ParseName(name, &pass->cell, &pass->rep)) {
    return bad("benchmark '" + name +
               "' is not <backend>/<table>/<kind>/<mode>/threads:N/rep:R");
  }
  pass->file = file;
  auto err = b.find("error_occurred");
  if (err != b.end() && err->is_boolean() && err->get<bool>()) {
    pass->error = true;
    auto msg = b.find("error_message");
    pass->error_message = msg != b.end() && msg->is_string()
                              ? msg->get<std::string>()
                              : "error_occurred";
    return Status::Ok();
  }
  for (const auto& c : kCounters) {
    auto it = b.find(c.name);
    if (it == b.end()) {
      if (Required(pass->cell.backend, c.name)) {
        return bad("benchmark '" + name + "' lacks counter " + c.name);
      }
      pass->*c.field = kNaN;
      continue;
    }
    if (!it->is_number() || !std::isfinite(it->get<double>())) {
      return bad("benchmark '" + name + "' counter " + c.name +
                 " is not a finite number");
    }
    pass->*c.field = it->get<double>();
  }
  return Status::Ok();
}

std::string Scalar(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::string CellKey::Name() const {
  return backend + "/" + table + "/" + kind + "/" + mode +
         "/threads:" + std::to_string(threads);
}

std::string ResultSet::Context(const std::string& key) const {
  auto it = context.find(key);
  if (it == context.end()) return "";
  std::string out;
  for (const auto& v : it->second) out += (out.empty() ? "" : " / ") + v;
  return out;
}

Result<ResultSet> ParseResults(std::string_view text, const std::string& file) {
  auto bad = [&](const std::string& what) {
    return Status::Corruption("results " + file + ": " + what);
  };
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return bad("not valid JSON");
  if (!doc.is_object()) return bad("top level is not an object");
  auto ctx = doc.find("context");
  if (ctx == doc.end() || !ctx->is_object()) return bad("no context object");
  auto benches = doc.find("benchmarks");
  if (benches == doc.end() || !benches->is_array()) {
    return bad("no benchmarks array");
  }
  ResultSet rs;
  rs.files.push_back(file);
  for (const auto& [key, value] : ctx->items()) {
    if (value.is_primitive() && !value.is_null()) {
      rs.context[key].insert(Scalar(value));
    }
  }
  for (const char* key :
       {"flatbench.scale", "flatbench.spec", "flatbench.fingerprint"}) {
    auto it = ctx->find(key);
    if (it == ctx->end() || !it->is_string() ||
        it->get<std::string>().empty()) {
      return bad(std::string("context lacks ") + key);
    }
  }
  rs.scale = (*ctx)["flatbench.scale"].get<std::string>();
  rs.spec = (*ctx)["flatbench.spec"].get<std::string>();
  rs.fingerprint = (*ctx)["flatbench.fingerprint"].get<std::string>();
  for (const auto& b : *benches) {
    // Aggregates (mean/median/stddev rows) are google-benchmark's; the
    // report recomputes its own from the iteration rows.
    auto rt = b.is_object() ? b.find("run_type") : b.end();
    if (rt != b.end() && rt->is_string() && *rt != "iteration") continue;
    Pass pass;
    FLATBENCH_RETURN_IF_ERROR(ParsePass(b, file, &pass));
    rs.passes.push_back(std::move(pass));
  }
  return rs;
}

Result<ResultSet> MergeResults(std::vector<ResultSet> parts) {
  if (parts.empty()) return Status::Usage("no results file given");
  ResultSet out = std::move(parts[0]);
  std::map<std::pair<CellKey, int>, std::string> seen;
  auto add_passes = [&](std::vector<Pass>& passes) -> Status {
    for (auto& p : passes) {
      auto [it, fresh] = seen.emplace(std::make_pair(p.cell, p.rep), p.file);
      if (!fresh) {
        return Status::Corruption(
            "results: pass " + p.cell.Name() + "/rep:" + std::to_string(p.rep) +
            " appears twice (" + it->second + " and " + p.file + ")");
      }
    }
    return Status::Ok();
  };
  FLATBENCH_RETURN_IF_ERROR(add_passes(out.passes));
  for (size_t i = 1; i < parts.size(); ++i) {
    ResultSet& part = parts[i];
    const std::string& file = part.files.front();
    auto mixed = [&](const char* what, const std::string& a,
                     const std::string& b) {
      return Status::Corruption(
          "results from two datasets mixed: " + out.files.front() + " has " +
          what + " '" + a + "' but " + file + " has '" + b + "'");
    };
    if (part.fingerprint != out.fingerprint) {
      return mixed("fingerprint", out.fingerprint, part.fingerprint);
    }
    if (part.spec != out.spec) return mixed("spec", out.spec, part.spec);
    if (part.scale != out.scale) return mixed("scale", out.scale, part.scale);
    FLATBENCH_RETURN_IF_ERROR(add_passes(part.passes));
    out.files.push_back(file);
    for (auto& p : part.passes) out.passes.push_back(std::move(p));
    for (auto& [key, values] : part.context) {
      out.context[key].insert(values.begin(), values.end());
    }
  }
  return out;
}

Result<ResultSet> LoadResults(const std::vector<std::string>& paths) {
  std::vector<ResultSet> parts;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      return Status::MissingInput("results " + path + ": no such file");
    }
    Result<std::string> text = ReadSmallFile(path);
    if (!text.ok()) return text.status();
    Result<ResultSet> rs = ParseResults(text.value(), path);
    if (!rs.ok()) return rs.status();
    parts.push_back(std::move(rs).value());
  }
  return MergeResults(std::move(parts));
}

}  // namespace flatbench::report
