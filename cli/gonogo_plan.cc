#include "cli/gonogo_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include "backends/table.h"
#include "bench/plan.h"
#include "cli/bench_parent.h"
#include "common/files.h"
#include "common/host_id.h"
#include "datagen/dataset_dir.h"
#include "datagen/gen_calibration.h"
#include "datagen/needs.h"
#include "dataset/estimate.h"
#include "dataset/names.h"
#include "report/thresholds.h"

namespace flatbench::cli {
namespace {

bool InList(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

unsigned HostThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

std::string CommaNames(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string Factors(const std::map<std::string, datagen::StoreCalibration>& c,
                    const std::vector<std::string>& stores) {
  std::string out;
  for (const auto& s : stores) {
    auto it = c.find(s);
    if (it == c.end()) continue;
    char buf[200];
    std::snprintf(buf, sizeof(buf),
                  "%s x %.2f (%.1f s measured, %.1f s "
                  "modelled: %s)",
                  s.c_str(), it->second.factor, it->second.measured_s,
                  it->second.modelled_s, it->second.marker.c_str());
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out;
}

// Where the gen estimate's figures come from.
void GenSources(const GonogoEstimate& e, const std::vector<std::string>& stores,
                const std::map<std::string, datagen::StoreCalibration>& gen,
                GonogoEstimate* out) {
  std::map<std::string, std::vector<std::string>> rates_from;
  std::vector<std::string> two_measured, two_assumed, parallel, one_writer;
  for (const auto& s : stores) {
    const dataset::StoreFigures& f = dataset::FiguresOf(s);
    rates_from[std::string(f.rates_from)].push_back(s);
    (f.two_jobs_measured ? two_measured : two_assumed).push_back(s);
    (f.one_writer ? one_writer : parallel).push_back(s);
  }
  for (const auto& [where, names] : rates_from) {
    out->measured.push_back("gen rate at one job of " + CommaNames(names) +
                            " (" + where + ")");
  }
  if (!two_measured.empty()) {
    out->measured.push_back("gen rate at two jobs of " +
                            CommaNames(two_measured));
  }
  if (!one_writer.empty()) {
    out->measured.push_back(
        "one writer: " + CommaNames(one_writer) +
        " at their writer's rate from two jobs on (their two-job rate)");
  }
  const std::string factors = Factors(gen, stores);
  if (!factors.empty()) {
    out->measured.push_back("gen calibrated by this host's last builds: " +
                            factors);
  }
  if (!two_assumed.empty()) {
    out->assumed.push_back("gen rate at two jobs of " +
                           CommaNames(two_assumed) +
                           " (not measured yet: dataset/backend_facts.h)");
  }
  if (e.jobs > 2 && !parallel.empty()) {
    out->assumed.push_back(
        "Amdahl's law from the one- and two-job rates up "
        "to " +
        std::to_string(e.jobs) + " jobs for " + CommaNames(parallel));
  }
}

// Which figures of the estimate were measured, and where; which assumed.
void FigureSources(const GonogoEstimate& e,
                   const std::vector<std::string>& stores,
                   const std::optional<DeviceProfileFile>& profile,
                   const std::map<std::string, datagen::StoreCalibration>& gen,
                   const bench::Plan& plan, GonogoEstimate* out) {
  GenSources(e, stores, gen, out);
  out->measured.push_back(
      "on-disk size over raw bytes (arena, RocksDB, LMDB at medium; SQLite "
      "at smoke)");
  out->measured.push_back(
      "the bench's per-step costs: 2-core VM, virtio disk; " +
      bench::EstimateSource(plan));
  if (profile.has_value()) {
    const bench::HostCost h =
        bench::HostCostFromProfile(profile->profile, bench::HostCost());
    char buf[240];
    std::snprintf(buf, sizeof(buf),
                  "that host's cpus (%d) and 4 KiB reads/s at depth 1 "
                  "(%.0f) and %d (%.0f): %s",
                  profile->profile.cpus, h.ReadsPerS(1), h.device.back().depth,
                  h.device.back().reads_per_s, profile->profile.source.c_str());
    out->measured.push_back(buf);
  }
  out->assumed.push_back(
      "the disk keeps up with every writer, and RAM admits the stores at "
      "once");
  for (const auto& s : stores) {
    const std::string_view size = dataset::FiguresOf(s).disk_factor_assumed;
    if (!size.empty()) out->assumed.emplace_back(size);
  }
  if (profile.has_value()) {
    out->assumed.push_back(
        "this project's per-core gen rates and per-read CPU on that host's "
        "cores");
  }
}

}  // namespace

unsigned ResolveJobs(unsigned jobs) { return jobs != 0 ? jobs : HostThreads(); }

Result<std::vector<std::string>> GonogoDefaultBackends(
    const dataset::Spec& spec, const std::string& thresholds, bool aged) {
  FLATBENCH_ASSIGN_OR_RETURN(
      auto t, thresholds.empty() ? report::BuiltInThresholds()
                                 : report::LoadThresholdsFile(thresholds));
  std::vector<std::string> out = backends::DefaultStores(spec);
  // Aged, too: the reference stores' write paths (a file per change, a
  // transaction per block) would take most of the age phase's steady-state
  // stream, and no threshold reads them.
  if (spec.scale == t.gate_scale || aged) {
    const std::vector<std::string> gated = t.Backends();
    std::vector<std::string> kept;
    for (const auto& s : out) {
      if (InList(gated, s)) kept.push_back(s);
    }
    out = std::move(kept);
  }
  // Beside the stores it builds, the read variants the table marks as
  // measured by default (the arena's cached read path, RESEARCH.md §3) of
  // a store in the run: each reads its store's files, so it adds passes
  // and no build.
  for (std::string& v : backends::DefaultVariants()) {
    if (InList(out, dataset::StoreOf(v))) out.push_back(std::move(v));
  }
  return out;
}

namespace {

// The host planned for: the profile's, or this one.
void DescribeHost(unsigned jobs,
                  const std::optional<DeviceProfileFile>& profile,
                  GonogoEstimate* e) {
  if (profile.has_value()) {
    e->cores = static_cast<unsigned>(std::max(1, profile->profile.cpus));
    e->jobs = jobs != 0 ? jobs : e->cores;
    e->host = "the host of " + profile->profile.source + " (" +
              std::to_string(e->cores) + " cpus, " + profile->profile.dir +
              ", " + profile->profile.filesystem + ")";
  } else {
    e->cores = HostThreads();
    e->jobs = ResolveJobs(jobs);
    e->host = "this host (" + std::to_string(e->cores) + " hardware threads)";
  }
}

// The bench plan of the run and of the stores `extra` beside it: each
// backend's steps cost the same either way (a reference row's share
// follows from the gated backends alone, and warm mode admits the run's
// backends first).
Result<bench::Plan> BenchPlanWith(const dataset::Spec& spec,
                                  const bench::RunRequest& request,
                                  const std::vector<std::string>& extra) {
  bench::RunRequest b = request;
  b.backends.insert(b.backends.end(), extra.begin(), extra.end());
  bench::RunParameters params = MakeParameters(b, spec);
  params.schedule.backends = b.backends;
  for (const auto& name : b.backends) {
    const backends::Entry* entry = backends::Find(name);
    if (entry != nullptr && !entry->runs_warm) {
      params.schedule.no_warm.push_back(name);
    }
  }
  FLATBENCH_RETURN_IF_ERROR(ChooseWritingBackends(true, &params.schedule));
  FLATBENCH_ASSIGN_OR_RETURN(
      const bench::PlanInput in,
      PlanInputFor(b, spec, nullptr, params,
                   bench::WarmHoldLimitBytes(MemAvailableBytes())));
  return bench::MakePlan(in);
}

// This host's last builds near `dir`, unless the plan is for another host
// or calibration is off.
std::map<std::string, datagen::StoreCalibration> GenCalibration(
    const std::string& dir, const bench::RunRequest& request,
    const std::optional<DeviceProfileFile>& profile) {
  if (profile.has_value() || request.calibration == "none") return {};
  return datagen::CalibrateGen(datagen::NearbyDatasets(dir), MachineIdHash());
}

double Factor(const std::map<std::string, double>& factors,
              const std::string& store) {
  auto it = factors.find(store);
  return it == factors.end() ? 1.0 : it->second;
}

}  // namespace

Result<GonogoEstimate> EstimateGonogo(
    const dataset::Spec& spec, const std::string& dir,
    const bench::RunRequest& request, unsigned jobs,
    const std::optional<DeviceProfileFile>& profile) {
  GonogoEstimate e;
  DescribeHost(jobs, profile, &e);
  const std::vector<std::string> stores = dataset::StoresOf(request.backends);
  // The stores this build holds that the run leaves out, priced too.
  std::vector<std::string> extra;
  for (const auto& s : backends::DefaultStores(spec)) {
    if (!InList(stores, s)) extra.push_back(s);
  }
  FLATBENCH_ASSIGN_OR_RETURN(const bench::Plan plan,
                             BenchPlanWith(spec, request, extra));
  std::map<std::string, double> bench_of = plan.start_seconds;
  for (const auto& r : plan.rows) bench_of[r.backend] += r.seconds;
  const auto gen = GenCalibration(dir, request, profile);
  std::map<std::string, double> factors;
  for (const auto& [store, c] : gen) factors[store] = c.factor;

  auto ds = datagen::Dataset::Open(dir);
  const datagen::RunNeeds needs =
      datagen::EstimateRunNeeds(spec, dir, stores, e.jobs);
  e.disk = needs.disk;
  e.ram = needs.ram;
  std::vector<std::string> to_build;
  auto add_row = [&](const std::string& name, bool in_run) {
    BackendCostRow r;
    r.backend = name;
    r.in_run = in_run;
    r.bench = bench_of[name];
    if (dataset::StoreOf(name) == name) {
      const double f = Factor(factors, name);
      r.built = ds.ok() && ds->spec() == spec && ds->Build(name).ok();
      r.disk = dataset::EstimateDiskBytes(spec, name);
      r.ram = dataset::EstimateGeneratorBytes(spec, e.jobs);
      r.gen_one = f * dataset::EstimateBuildSeconds(spec, name, 1);
      r.gen_jobs = f * dataset::EstimateBuildSeconds(spec, name, e.jobs);
      if (in_run && !r.built) to_build.push_back(name);
    }
    e.rows.push_back(r);
  };
  for (const auto& name : request.backends) add_row(name, true);
  for (const auto& name : extra) add_row(name, false);
  for (const auto& s : to_build) {
    e.gen_one += Factor(factors, s) * dataset::EstimateBuildSeconds(spec, s, 1);
  }
  e.gen_jobs =
      dataset::EstimateGenSeconds(spec, to_build, e.jobs, e.cores, factors);
  for (const auto& name : request.backends) e.bench += bench_of[name];
  std::vector<std::string> priced = stores;
  priced.insert(priced.end(), extra.begin(), extra.end());
  FigureSources(e, priced, profile, gen, plan, &e);
  return e;
}

std::string FormatGonogoEstimate(const GonogoEstimate& e) {
  std::string out;
  char buf[256];
  const std::string jobs_word =
      std::to_string(e.jobs) + (e.jobs == 1 ? " job" : " jobs");
  const std::string jobs_col = "gen, " + jobs_word;
  std::snprintf(buf, sizeof(buf), "  %-13s %-24s %10s %13s %13s %13s\n",
                "backend", "disk", "RAM (gen)", "gen, 1 job", jobs_col.c_str(),
                "bench");
  out += buf;
  for (const auto& r : e.rows) {
    const bool store = r.disk != 0;
    const std::string name = r.backend + (r.in_run ? "" : " *");
    const std::string disk =
        store ? datagen::DiskFigure(r.disk) : "(its store's files)";
    const std::string ram = store ? HumanBytes(r.ram) : "-";
    const std::string one = !store    ? "-"
                            : r.built ? "built"
                                      : bench::FormatDuration(r.gen_one);
    const std::string jobs = !store    ? "-"
                             : r.built ? "built"
                                       : bench::FormatDuration(r.gen_jobs);
    std::snprintf(buf, sizeof(buf), "  %-13s %-24s %10s %13s %13s %13s\n",
                  name.c_str(), disk.c_str(), ram.c_str(), one.c_str(),
                  jobs.c_str(), bench::FormatDuration(r.bench).c_str());
    out += buf;
  }
  bool extra = false;
  for (const auto& r : e.rows) extra = extra || !r.in_run;
  if (extra) {
    out +=
        "  * not in this run (a reference row): add it with --backends, at "
        "the cost shown\n";
  }
  out += "  on " + e.host + ", " + jobs_word + ":\n";
  out += "    disk it needs: " + datagen::DiskFigure(e.disk) +
         " more (the stores not built yet, plus the device cells' scratch "
         "file); RAM " +
         HumanBytes(e.ram) + "\n";
  out += "    gen about " + bench::FormatDuration(e.gen_jobs) + " (" +
         bench::FormatDuration(e.gen_one) +
         " at one job, one store after another)\n";
  out += "    bench about " + bench::FormatDuration(e.bench) + "\n";
  out += "    total about " + bench::FormatDuration(e.gen_jobs + e.bench) +
         " (verify --quick and the report: seconds more)\n";
  for (const auto& m : e.measured) out += "    measured: " + m + "\n";
  for (const auto& a : e.assumed) out += "    assumed: " + a + "\n";
  return out;
}

}  // namespace flatbench::cli
