#include "report/run_data.h"

#include <filesystem>

#include "common/files.h"
#include "report/consistency.h"
#include "report/entry.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using nlohmann::json;

std::string Scalar(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The format version first, so a file from another flatbench is named as
// such rather than as missing a key this version added.
Status CheckVersion(const json& ctx, const std::string& file) {
  auto it = ctx.find(r::kResultsFormat.name);
  const std::string want = std::to_string(r::kFormatVersion);
  if (it == ctx.end()) {
    return Status::Corruption(
        "results " + file + ": no " + std::string(r::kResultsFormat.name) +
        " in the context: written by an older flatbench (results format 1); "
        "this build reads format " +
        want + ", so re-run flatbench bench with this build");
  }
  if (!it->is_number_integer() || it->get<int64_t>() != r::kFormatVersion) {
    return Status::Corruption(
        "results " + file + ": " + std::string(r::kResultsFormat.name) +
        " is " + it->dump() + "; this build reads format " + want +
        " only, so re-run flatbench bench with this build");
  }
  return Status::Ok();
}

// Every run-wide key: typed when present, present when it is provenance.
Status CheckRunContext(const json& ctx, const std::string& file) {
  for (const r::ContextKey& k : r::AllContextKeys()) {
    const std::string name(k.name);
    auto it = ctx.find(name);
    if (it == ctx.end()) {
      if (!k.provenance) continue;
      return Status::Corruption("results " + file + ": context lacks " + name);
    }
    FLATBENCH_RETURN_IF_ERROR(CheckContextValue(
        *it, k.type, "results " + file + ": context " + name));
  }
  return Status::Ok();
}

// Per-backend keys of every backend the file names, in its context or its
// entries: typed when present; the `always` ones present.
Status CheckBackendContext(const json& ctx, const std::set<std::string>& with,
                           const std::string& file, ResultSet* rs) {
  std::set<std::string> backends = with;
  const std::string prefix(r::kBackendPrefix);
  for (const auto& [key, value] : ctx.items()) {
    if (key.rfind(prefix, 0) != 0) continue;
    size_t dot = key.find('.', prefix.size());
    if (dot != std::string::npos) {
      backends.insert(key.substr(prefix.size(), dot - prefix.size()));
    }
  }
  for (const auto& b : backends) {
    for (const r::BackendContextKey& k : r::AllBackendContextKeys()) {
      const std::string name = r::BackendKey(b, k);
      auto it = ctx.find(name);
      // A backend whose process died records only why.
      bool died = ctx.contains(r::BackendKey(b, r::kError));
      if (it == ctx.end()) {
        if (!k.always || died) continue;
        return Status::Corruption("results " + file + ": context lacks " +
                                  name);
      }
      FLATBENCH_RETURN_IF_ERROR(CheckContextValue(
          *it, k.type, "results " + file + ": context " + name));
      if (k.name == r::kSettings.name) rs->settings[b] = *it;
      if (k.name == r::kShape.name) rs->shapes[b] = *it;
      if (k.name == r::kOpenShape.name) rs->open_shapes[b] = *it;
    }
  }
  return Status::Ok();
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

std::string ResultSet::Context(const r::ContextKey& key) const {
  return Context(std::string(key.name));
}

std::string ResultSet::Context(const std::string& backend,
                               const r::BackendContextKey& key) const {
  return Context(r::BackendKey(backend, key));
}

std::optional<int64_t> ResultSet::Integer(std::string_view key) const {
  auto it = context.find(std::string(key));
  if (it == context.end() || it->second.size() != 1) return std::nullopt;
  const std::string& s = *it->second.begin();
  if (s.empty() || s.size() > 18 ||
      s.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoll(s);
}

std::optional<bool> ResultSet::Bool(std::string_view key) const {
  auto it = context.find(std::string(key));
  if (it == context.end() || it->second.size() != 1) return std::nullopt;
  const std::string& s = *it->second.begin();
  if (s == "true") return true;
  if (s == "false") return false;
  return std::nullopt;
}

Result<ResultSet> ParseResults(std::string_view text, const std::string& file) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::Corruption("results " + file + ": not valid JSON");
  }
  return ParseResultsDocument(doc, file);
}

Result<ResultSet> ParseResultsDocument(const json& doc,
                                       const std::string& file) {
  auto bad = [&](const std::string& what) {
    return Status::Corruption("results " + file + ": " + what);
  };
  if (!doc.is_object()) return bad("top level is not an object");
  auto ctx = doc.find("context");
  if (ctx == doc.end() || !ctx->is_object()) return bad("no context object");
  auto benches = doc.find("benchmarks");
  if (benches == doc.end() || !benches->is_array()) {
    return bad("no benchmarks array");
  }
  FLATBENCH_RETURN_IF_ERROR(CheckVersion(*ctx, file));
  FLATBENCH_RETURN_IF_ERROR(CheckRunContext(*ctx, file));
  ResultSet rs;
  rs.files.push_back(file);
  auto profile = ctx->find(r::kRecordedDeviceProfile.name);
  if (profile != ctx->end()) {
    // Checked by CheckRunContext.
    FLATBENCH_ASSIGN_OR_RETURN(
        rs.device_profiles[file],
        ParseDeviceProfile(*profile,
                           "results " + file + ": context " +
                               std::string(r::kRecordedDeviceProfile.name)));
  }
  for (const auto& [key, value] : ctx->items()) {
    if (value.is_primitive() && !value.is_null()) {
      rs.context[key].insert(Scalar(value));
    }
  }
  std::set<std::string> with_entries;
  std::map<double, std::string> order;  // pass_order -> benchmark.
  for (const auto& b : *benches) {
    // Aggregates (mean/median/stddev rows) are google-benchmark's; the
    // report recomputes its own from the iteration rows.
    auto rt = b.is_object() ? b.find(r::kEntryRunType) : b.end();
    if (rt != b.end() && rt->is_string() && *rt != r::kRunTypeIteration) {
      continue;
    }
    Pass pass;
    FLATBENCH_RETURN_IF_ERROR(ReadEntry(b, file, &pass));
    with_entries.insert(pass.cell.backend);
    // One schedule per run: no two passes of a file share a position.
    if (!pass.error) {
      auto [it, fresh] = order.emplace(pass.Get(r::kPassOrder), pass.Name());
      if (!fresh) {
        return bad("benchmark '" + pass.Name() + "' counter " +
                   std::string(r::kPassOrder.name) + " " +
                   b[std::string(r::kPassOrder.name)].dump() +
                   " is also that of '" + it->second + "'");
      }
    }
    rs.passes.push_back(std::move(pass));
  }
  FLATBENCH_RETURN_IF_ERROR(CheckBackendContext(*ctx, with_entries, file, &rs));
  FLATBENCH_RETURN_IF_ERROR(CheckConsistency(rs, file));
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
        return Status::Corruption("results: pass " + p.Name() +
                                  " appears twice (" + it->second + " and " +
                                  p.file + ")");
      }
    }
    return Status::Ok();
  };
  FLATBENCH_RETURN_IF_ERROR(add_passes(out.passes));
  for (size_t i = 1; i < parts.size(); ++i) {
    ResultSet& part = parts[i];
    const std::string& file = part.files.front();
    // Files from another host, disk, build or run do not measure the same
    // thing; the first differing key in contract order is named.
    for (const r::ContextKey& k : r::AllContextKeys()) {
      if (!k.provenance) continue;
      const std::string a = out.Context(k), b = part.Context(k);
      if (a != b) {
        return Status::Corruption(
            "results from different runs mixed: " + out.files.front() +
            " has " + std::string(k.name) + " '" + a + "' but " + file +
            " has '" + b + "'");
      }
    }
    FLATBENCH_RETURN_IF_ERROR(add_passes(part.passes));
    out.files.push_back(file);
    for (auto& p : part.passes) out.passes.push_back(std::move(p));
    for (auto& [key, values] : part.context) {
      out.context[key].insert(values.begin(), values.end());
    }
    for (auto& [b, s] : part.settings) out.settings.emplace(b, std::move(s));
    for (auto& [b, s] : part.shapes) out.shapes.emplace(b, std::move(s));
    for (auto& [b, s] : part.open_shapes) {
      out.open_shapes.emplace(b, std::move(s));
    }
    for (auto& [f, p] : part.device_profiles) {
      out.device_profiles.emplace(f, std::move(p));
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
    FLATBENCH_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path));
    FLATBENCH_ASSIGN_OR_RETURN(ResultSet rs, ParseResults(text, path));
    parts.push_back(std::move(rs));
  }
  return MergeResults(std::move(parts));
}

}  // namespace flatbench::report
