// flatbench sweep's driver: per size, gen, bench and the geometry, recorded
// in sweep.json after each step so a rerun resumes. Over 300 lines because
// planning, resuming and cleaning up are one state machine over one file.
#include "bench/sweep.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "common/files.h"
#include "common/sweep_schema.h"
#include "common/text.h"
#include "datagen/dataset_dir.h"
#include "datagen/needs.h"
#include "dataset/estimate.h"

namespace flatbench::bench {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

dataset::Spec SpecOf(const SweepPlan& plan, uint64_t accounts) {
  dataset::Spec s;
  s.scale = "custom";
  s.accounts = accounts;
  s.slots_per_account = plan.slots_per_account;
  s.seed = plan.seed;
  return s;
}

std::string SizeDir(const SweepPlan& plan, uint64_t accounts) {
  return (fs::path(plan.dir) / ("data-" + std::to_string(accounts))).string();
}

json NewDocument(const SweepPlan& plan) {
  json d = json::object();
  d[sweep::kVersion.name] = sweep::kFormatVersion;
  d[sweep::kSlotsPerAccount.name] = plan.slots_per_account;
  d[sweep::kSeed.name] = plan.seed;
  d[sweep::kPlannedAccounts.name] = plan.accounts;
  std::vector<std::string> measured = plan.backends;
  measured.insert(measured.end(), plan.read_variants.begin(),
                  plan.read_variants.end());
  d[sweep::kBackends.name] = Join(measured);
  d[sweep::kBenchArgs.name] = plan.bench_args;
  d[sweep::kCreatedDatasets.name] = json::array();
  d[sweep::kFinished.name] = false;
  d[sweep::kSizes.name] = json::array();
  return d;
}

// Loads DIR/sweep.json, or starts one. A file of another plan (dataset
// definition, backends or bench flags) is refused: its sizes would not
// compare with this plan's.
Result<json> LoadState(const SweepPlan& plan, const std::string& path) {
  json fresh = NewDocument(plan);
  auto text = ReadSmallFile(path);
  if (!text.ok()) {
    if (text.status().code() == Code::kMissingInput) return fresh;
    return text.status();
  }
  json d = json::parse(text.value(), nullptr, false);
  if (d.is_discarded() || !d.is_object() ||
      d.value(sweep::kVersion.name, json()) != sweep::kFormatVersion) {
    return Status::RefuseOverwrite(
        path +
        ": exists and is not a sweep of this version; choose another "
        "--dir or remove it");
  }
  for (const auto* k : {&sweep::kSlotsPerAccount, &sweep::kSeed,
                        &sweep::kBackends, &sweep::kBenchArgs}) {
    if (d.value(k->name, json()) != fresh[k->name]) {
      return Status::RefuseOverwrite(
          path + ": a sweep with another " + std::string(k->name) + " (" +
          d.value(k->name, json()).dump() + ", this run " +
          fresh[k->name].dump() + "); choose another --dir");
    }
  }
  d[sweep::kPlannedAccounts.name] = plan.accounts;
  d[sweep::kFinished.name] = false;
  return d;
}

bool Contains(const json& array, const std::string& s) {
  return std::find(array.begin(), array.end(), s) != array.end();
}

void Erase(json& array, const std::string& s) {
  for (auto it = array.begin(); it != array.end(); ++it) {
    if (*it == s) {
      array.erase(it);
      return;
    }
  }
}

}  // namespace

SweepNeeds EstimateSweep(
    const SweepPlan& plan,
    const std::function<double(const dataset::Spec&)>& bench_seconds) {
  SweepNeeds n;
  uint64_t all_sizes = 0;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const unsigned cores = plan.cores != 0 ? plan.cores : threads;
  const unsigned jobs = plan.jobs != 0 ? plan.jobs : threads;
  for (uint64_t accounts : plan.accounts) {
    const dataset::Spec spec = SpecOf(plan, accounts);
    // gen's own arithmetic: backends not yet built, plus the device cells'
    // scratch, and the generator's memory.
    const datagen::RunNeeds needs =
        datagen::EstimateRunNeeds(spec, SizeDir(plan, accounts), plan.backends);
    n.build_seconds +=
        dataset::EstimateGenSeconds(spec, plan.backends, jobs, cores);
    all_sizes += needs.disk;
    n.disk_bytes = std::max(n.disk_bytes, needs.disk);
    n.ram_bytes = std::max(n.ram_bytes, needs.ram);
    n.bench_seconds += bench_seconds(spec);
  }
  if (plan.keep) n.disk_bytes = all_sizes;
  return n;
}

Status CheckSweepFits(const SweepPlan& plan, const SweepNeeds& needs) {
  const uint64_t free_disk = FreeBytes(plan.dir);
  const uint64_t free_ram = MemAvailableBytes();
  const double hours = (needs.build_seconds + needs.bench_seconds) / 3600.0;
  if (plan.progress) {
    std::fprintf(stderr,
                 "sweep: needs %s disk at most (%s free at %s), %s RAM (%s "
                 "available), about %.1f h (%.1f h building, %.1f h "
                 "measuring)\n",
                 HumanBytes(needs.disk_bytes).c_str(),
                 HumanBytes(free_disk).c_str(), plan.dir.c_str(),
                 HumanBytes(needs.ram_bytes).c_str(),
                 HumanBytes(free_ram).c_str(), hours,
                 needs.build_seconds / 3600.0, needs.bench_seconds / 3600.0);
  }
  if (free_disk != 0 && needs.disk_bytes > free_disk) {
    return Status::RefuseOverwrite(
        plan.dir + ": not enough free disk: the sweep needs " +
        HumanBytes(needs.disk_bytes) + " at its largest size" +
        (plan.keep ? " (all sizes, --keep)" : "") + ", " +
        HumanBytes(free_disk) + " is free");
  }
  if (free_ram != 0 && needs.ram_bytes > free_ram) {
    return Status::RefuseOverwrite(
        "not enough memory: generating the largest size needs " +
        HumanBytes(needs.ram_bytes) + ", " + HumanBytes(free_ram) +
        " is available");
  }
  if (hours > plan.max_hours) {
    char buf[160];
    std::snprintf(buf, sizeof(buf),
                  "the sweep is estimated at %.1f h (%.1f h building, %.1f h "
                  "measuring), more than --max-hours %g",
                  hours, needs.build_seconds / 3600.0,
                  needs.bench_seconds / 3600.0, plan.max_hours);
    return Status::RefuseOverwrite(buf);
  }
  return Status::Ok();
}

Result<json> CollectGeometry(
    const std::vector<std::string>& backends,
    const std::function<Result<std::unique_ptr<Backend>>(const std::string&)>&
        open) {
  json out = json::object();
  for (const auto& name : backends) {
    auto backend = open(name);
    if (!backend.ok()) return backend.status().WithContext(name);
    json tables = json::object();
    for (Table t : {Table::kAccount, Table::kStorage}) {
      auto g = backend.value()->Geometry(t);
      if (!g.ok()) {
        if (g.status().code() == Code::kUsage) break;  // Not modelled.
        return g.status().WithContext(name);
      }
      tables[TableName(t)] = {
          {sweep::kGeoPairs.name, g->pairs},
          {sweep::kGeoDataUnits.name, g->data_units},
          {sweep::kGeoDataBytes.name, g->data_bytes},
          {sweep::kGeoDataPageAligned.name, g->data_page_aligned},
          {sweep::kGeoIndexBytes.name, g->index_bytes},
          {sweep::kGeoFilterBytes.name, g->filter_bytes},
          {sweep::kGeoIndexLevels.name, g->index_levels},
          {sweep::kGeoFilterFpRate.name, g->filter_fp_rate}};
    }
    if (tables.size() == static_cast<size_t>(kNumTables)) {
      out[name] = std::move(tables);
    }
  }
  return out;
}

namespace {

// Whether the sweep's document holds `accounts`' size already.
bool SizeDone(const json& doc, uint64_t accounts) {
  for (const auto& s : doc[sweep::kSizes.name]) {
    if (s.value(sweep::kAccounts.name, uint64_t{0}) == accounts) return true;
  }
  return false;
}

// One size measured: its dataset generated (recorded first as the sweep's
// own, so a rerun recognises it), benched, its geometry collected, and the
// dataset removed unless kept. Returns the size's entry.
Result<json> MeasureSize(const SweepPlan& plan, const SweepSteps& steps,
                         uint64_t accounts, const std::string& tag, json* doc,
                         const std::function<Status()>& save) {
  std::error_code ec;
  const dataset::Spec spec = SpecOf(plan, accounts);
  const std::string data = SizeDir(plan, accounts);
  json& created = (*doc)[sweep::kCreatedDatasets.name];
  // A directory that existed before, and is not on the list, is the user's
  // and stays.
  if (!fs::exists(data, ec)) {
    if (!Contains(created, data)) created.push_back(data);
    FLATBENCH_RETURN_IF_ERROR(save());
  }
  if (plan.progress) std::fprintf(stderr, "== %s: gen\n", tag.c_str());
  if (Status st = steps.generate(spec, data); !st.ok()) {
    return st.WithContext(tag);
  }
  if (steps.after_generate && !steps.after_generate(accounts)) {
    return Status::IOError(tag + ": stopped after gen (test hook)");
  }
  const std::string out =
      (fs::path(plan.dir) / ("bench-" + std::to_string(accounts) + ".json"))
          .string();
  if (plan.progress) std::fprintf(stderr, "== %s: bench\n", tag.c_str());
  const auto bench_start = std::chrono::steady_clock::now();
  if (Status st = steps.bench(data, out); !st.ok()) return st.WithContext(tag);
  const double bench_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    bench_start)
          .count();
  FLATBENCH_ASSIGN_OR_RETURN(auto results_text, ReadSmallFile(out));
  json results = json::parse(results_text, nullptr, false);
  if (results.is_discarded() || !results.is_object()) {
    return Status::Corruption(out + ": bench wrote results that are not JSON");
  }
  auto geometry = CollectGeometry(
      plan.backends, [&](const std::string& b) { return steps.open(data, b); });
  if (!geometry.ok()) return geometry.status().WithContext(tag);
  json size = json::object();
  size[sweep::kAccounts.name] = accounts;
  size[sweep::kPairs.name] = spec.accounts + spec.storage_slots();
  size[sweep::kSpec.name] = spec.Canonical();
  size[sweep::kDatasetDir.name] = fs::absolute(data, ec).string();
  size[sweep::kBenchSeconds.name] = bench_seconds;
  size[sweep::kGeometry.name] = std::move(geometry).value();
  size[sweep::kResults.name] = std::move(results);
  bool removed = false;
  if (!plan.keep && Contains(created, data)) {
    fs::remove_all(data, ec);
    if (ec) return Status::IOError(data + ": cannot remove: " + ec.message());
    Erase(created, data);
    removed = true;
  }
  size[sweep::kDatasetRemoved.name] = removed;
  return size;
}

}  // namespace

// The phases: the sweep's document loaded (or resumed), the device profile
// once, then each size not measured yet, its entry kept in size order.
Status RunSweep(const SweepPlan& plan, const SweepSteps& steps) {
  std::error_code ec;
  fs::create_directories(plan.dir, ec);
  if (ec) return Status::IOError(plan.dir + ": cannot create: " + ec.message());
  const std::string path = (fs::path(plan.dir) / sweep::kFileName).string();
  FLATBENCH_ASSIGN_OR_RETURN(json doc, LoadState(plan, path));
  const std::function<Status()> save = [&] {
    return WriteFileAtomic(path, doc.dump(1) + "\n");
  };
  FLATBENCH_RETURN_IF_ERROR(save());
  // The device profile first, while the directory holds no dataset being
  // built or read: once per sweep, kept across resumes.
  if (plan.device_profile && steps.profile &&
      !doc.contains(sweep::kDeviceProfile.name)) {
    if (plan.progress) std::fprintf(stderr, "== sweep: device profile\n");
    auto profile = steps.profile();
    if (!profile.ok()) return profile.status().WithContext("device profile");
    doc[sweep::kDeviceProfile.name] = std::move(profile).value();
    FLATBENCH_RETURN_IF_ERROR(save());
  }
  const size_t n = plan.accounts.size();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t accounts = plan.accounts[i];
    const std::string tag = "sweep [" + std::to_string(i + 1) + "/" +
                            std::to_string(n) + "] " +
                            std::to_string(accounts) + " accounts";
    if (SizeDone(doc, accounts)) {
      if (plan.progress) {
        std::fprintf(stderr, "== %s: done earlier\n", tag.c_str());
      }
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    FLATBENCH_ASSIGN_OR_RETURN(
        json size, MeasureSize(plan, steps, accounts, tag, &doc, save));
    const double bench_seconds = size[sweep::kBenchSeconds.name].get<double>();
    const bool removed = size[sweep::kDatasetRemoved.name].get<bool>();
    auto& sizes = doc[sweep::kSizes.name];
    sizes.push_back(std::move(size));
    std::sort(sizes.begin(), sizes.end(), [](const json& a, const json& b) {
      return a.value(sweep::kAccounts.name, uint64_t{0}) <
             b.value(sweep::kAccounts.name, uint64_t{0});
    });
    FLATBENCH_RETURN_IF_ERROR(save());
    if (plan.progress) {
      std::fprintf(stderr,
                   "== %s: measured in %.0f s (bench %.0f s), dataset %s\n",
                   tag.c_str(),
                   std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count(),
                   bench_seconds, removed ? "removed" : "kept");
    }
  }
  doc[sweep::kFinished.name] = true;
  FLATBENCH_RETURN_IF_ERROR(save());
  if (plan.progress) std::fprintf(stderr, "sweep: wrote %s\n", path.c_str());
  return Status::Ok();
}

}  // namespace flatbench::bench
