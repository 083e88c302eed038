#include "cli/bench_plan_input.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench/page_cache.h"
#include "cli/bench_args.h"
#include "common/device_profile.h"
#include "common/files.h"
#include "dataset/estimate.h"
#include "dataset/names.h"
#include "report/thresholds.h"

namespace flatbench::cli {
namespace {

// A built backend's files, bytes, and the share of its pages in the page
// cache now (from at most kResidencySample of its files, evenly spread:
// the file store holds one per key).
bench::BackendFacts MeasuredFacts(const std::string& dir) {
  constexpr size_t kResidencySample = 4096;
  bench::BackendFacts f;
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    ++f.files;
    f.disk_bytes += it->file_size(ec);
    files.push_back(it->path().string());
  }
  std::vector<std::string> sample;
  const size_t step = std::max<size_t>(1, files.size() / kResidencySample);
  for (size_t i = 0; i < files.size(); i += step) sample.push_back(files[i]);
  auto r = bench::MeasureResidency(sample);
  if (r.ok()) f.resident = r->fraction();
  return f;
}

}  // namespace

Result<bench::PlanInput> PlanInputFor(const bench::RunRequest& a,
                                      const dataset::Spec& spec,
                                      const datagen::Dataset* ds,
                                      const bench::RunParameters& params,
                                      uint64_t warm_limit) {
  FLATBENCH_ASSIGN_OR_RETURN(
      auto t, a.thresholds.empty() ? report::BuiltInThresholds()
                                   : report::LoadThresholdsFile(a.thresholds));
  bench::PlanInput in;
  in.spec = spec;
  in.schedule = params.schedule;
  in.gated = t.Backends();
  // A gated backend's read variants are judged by the same thresholds
  // (README, "The verdict"), so they run the gated schedule too.
  for (const auto& b : params.schedule.backends) {
    const std::string base = dataset::StoreOf(b);
    if (base != b &&
        std::find(in.gated.begin(), in.gated.end(), base) != in.gated.end()) {
      in.gated.push_back(b);
    }
  }
  // Writing cells copy and write each store: the reference rows take them
  // only with --full-reference, as they take the whole matrix.
  if (!a.full_reference) {
    const std::vector<std::string> gated = t.Backends();
    std::erase_if(in.schedule.writing_backends, [&](const std::string& b) {
      return std::find(gated.begin(), gated.end(), b) == gated.end();
    });
  }
  in.gate_scale = spec.scale == t.gate_scale;
  if (!bench::ParseMode(t.gate_mode, &in.gate_mode)) {
    return Status::Corruption(t.source + ": gate mode '" + t.gate_mode +
                              "' is not a bench mode");
  }
  in.reference_full = a.full_reference;
  in.warm_limit = warm_limit;
  in.drop_caches = params.evict == "drop_caches";
  in.host.cores =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // The host the profile describes: its cores and device (bench/plan.h).
  if (!a.device_profile.empty()) {
    FLATBENCH_ASSIGN_OR_RETURN(auto p, LoadDeviceProfileFile(a.device_profile));
    in.host = bench::HostCostFromProfile(p.profile, in.host);
  }
  // drop_caches walks every inode the kernel caches: this host's count,
  // when the plan is for this host (another host's is not known).
  if (a.device_profile.empty()) {
    in.host.drop_caches_s =
        bench::DropCachesSeconds(bench::CachedInodes().value_or(0));
  }
  in.check_samples = a.check_samples;
  in.calibration = CalibrationFor(a, spec, params);
  if (in.calibration) in.host = bench::Calibrated(*in.calibration, in.host);
  uint64_t all_bytes = 0;
  for (const auto& b : params.schedule.backends) {
    bench::BackendFacts f;
    if (ds == nullptr) {
      f.disk_bytes = dataset::EstimateDiskBytes(spec, dataset::StoreOf(b));
      all_bytes += f.disk_bytes;
    } else {
      f = MeasuredFacts(ds->BackendDir(b));
    }
    in.facts[b] = f;
  }
  if (ds == nullptr && all_bytes <= MemAvailableBytes()) {
    // A dataset not built yet is gonogo's, whose bench follows its gen:
    // the files gen just wrote are in the page cache when they fit.
    for (auto& [b, f] : in.facts) f.resident = 1;
  }
  return in;
}

}  // namespace flatbench::cli
