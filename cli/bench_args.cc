#include "cli/bench_args.h"

#include <algorithm>
#include <cassert>
#include <cstdio>

#include "backends/table.h"
#include "bench/environment.h"
#include "bench/page_cache.h"
#include "bench/schedule.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "cli/run_options.h"
#include "datagen/sampler.h"

namespace flatbench::cli {
namespace {

// Names in a list flag were checked by CLI11 as it parsed (IsMember), so
// `parse` cannot fail here.
template <typename T, typename ParseFn>
std::vector<T> Parsed(const std::vector<std::string>& names, ParseFn parse) {
  std::vector<T> out(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    [[maybe_unused]] bool known = parse(names[i], &out[i]);
    assert(known);
  }
  return out;
}

// A context text of this host's environment, empty when unknown.
std::string Known(const nlohmann::json& env, const results::ContextKey& k) {
  const std::string v = env.value(std::string(k.name), std::string());
  return v == "unknown" ? "" : v;
}

}  // namespace

std::vector<std::string> ModeNames() {
  std::vector<std::string> v;
  for (auto m :
       {bench::Mode::kWarm, bench::Mode::kCold, bench::Mode::kColdLazy}) {
    v.push_back(bench::ModeName(m));
  }
  return v;
}

std::vector<std::string> KindNames() {
  std::vector<std::string> v;
  for (auto k : {datagen::KeyKind::kHit, datagen::KeyKind::kMissAbsent,
                 datagen::KeyKind::kMissLiveAccount}) {
    v.push_back(datagen::KeyKindName(k));
  }
  // The operations.
  v.insert(v.end(),
           {std::string(results::kKindScan), std::string(results::kKindStartup),
            std::string(results::kKindBatch)});
  return v;
}

bench::RunParameters MakeParameters(const bench::RunRequest& a,
                                    const dataset::Spec& spec) {
  bench::RunParameters p;
  bench::ScheduleOptions& o = p.schedule;
  o.modes = Parsed<bench::Mode>(a.modes, [](std::string_view s, auto* m) {
    return bench::ParseMode(s, m);
  });
  o.tables = Parsed<Table>(
      a.tables, [](std::string_view s, auto* t) { return ParseTable(s, t); });
  // CLI11 checked each name (IsMember) and refused repeats.
  [[maybe_unused]] Status kinds = bench::ParseKinds(a.kinds, &o);
  assert(kinds.ok());
  o.scan_length = a.scan_length;
  o.scans_per_pass = a.scans;
  o.startup_probes = a.startup_probes;
  o.threads = a.threads.empty()
                  ? std::vector<int>(bench::kDefaultThreads.begin(),
                                     bench::kDefaultThreads.end())
                  : a.threads;
  o.batch_size = a.batch_size;
  if (!a.threads.empty()) o.batch_threads = a.threads;
  const uint64_t reads =
      a.reads > 0 ? a.reads : bench::DefaultReadsPerPass(spec.scale);
  o.reads_per_pass = reads;
  o.device_reads = a.no_device          ? 0
                   : a.device_reads > 0 ? a.device_reads
                                        : reads;
  o.repetitions =
      a.repetitions > 0 ? a.repetitions : bench::DefaultRepetitions(spec.scale);
  o.draw_seed = a.draw_seed;
  o.writing = a.write_while_reading;
  if (o.writing) {
    for (int t : o.threads) {
      if (t == 1 || t == 8) o.writing_threads.push_back(t);
    }
    if (o.writing_threads.empty()) {
      o.writing_threads = {
          *std::min_element(o.threads.begin(), o.threads.end())};
    }
    o.block_rate = a.block_rate;
    o.writing_repetitions = std::min(a.writing_repetitions, o.repetitions);
    o.merge_every = a.merge_every > 0
                        ? a.merge_every
                        : dataset::DefaultMergeEvery(spec, spec.stream);
  }
  // An empty --evict is auto.
  p.evict = a.evict == "fadvise" ||
                    (a.evict != "drop_caches" && !bench::DropCachesWritable())
                ? "fadvise"
                : "drop_caches";
  return p;
}

std::optional<bench::Calibration> CalibrationFor(
    const bench::RunRequest& a, const dataset::Spec& spec,
    const bench::RunParameters& params) {
  // A device profile plans for another host; this host's figures are not
  // that host's.
  if (!a.device_profile.empty() || a.calibration == "none") return {};
  const nlohmann::json env = bench::DescribeEnvironment(a.dir);
  bench::CalibrationTarget t;
  t.machine_id_hash = Known(env, results::kMachineIdHash);
  t.device = Known(env, results::kDevice);
  t.evict = params.evict;
  t.spec = spec.Canonical();
  t.reads_per_pass = params.schedule.reads_per_pass;
  t.device_reads = params.schedule.device_reads;
  const std::vector<std::string> files =
      a.calibration.empty() ? bench::DefaultResultsFiles(a.results_root, a.out)
                            : std::vector<std::string>{a.calibration};
  return bench::NewestCalibration(files, t);
}

Status ChooseWritingBackends(bool quiet, bench::ScheduleOptions* o) {
  if (!o->writing) return Status::Ok();
  o->writing_backends.clear();
  std::string left_out;
  for (const auto& b : o->backends) {
    const Status live = backends::CheckLive(b, "--write-while-reading");
    if (live.ok()) {
      o->writing_backends.push_back(b);
      continue;
    }
    left_out += "\n  " + live.message();
  }
  if (o->writing_backends.empty()) {
    return Status::Usage(
        "--write-while-reading: no backend of the run can be read while it "
        "is written:" +
        left_out);
  }
  if (!quiet && !left_out.empty()) {
    std::fprintf(stderr, "bench: left out of the writing cells:%s\n",
                 left_out.c_str());
  }
  return Status::Ok();
}

bench::LiveOpener MakeLiveOpener() {
  return [](const std::string& name, const std::string& dir,
            const OpenOptions& options, const WriterOptions& writer) {
    return backends::OpenLive(name, dir, options, writer);
  };
}

bench::Opener MakeOpener(const datagen::Dataset& ds) {
  return [ds](const std::string& name, const OpenOptions& options) {
    return backends::Open(name, ds.BackendDir(name), options);
  };
}

bench::RunRequest JournalRequest(const bench::RunRequest& a,
                                 const bench::RunParameters& params) {
  const bench::ScheduleOptions& o = params.schedule;
  const bench::RunRequest defaults;
  bench::RunRequest r = a;
  // Where the results go and how this invocation runs: not what they are.
  r.dir = defaults.dir;
  r.out = defaults.out;
  r.force = defaults.force;
  r.quiet = defaults.quiet;
  r.calibration = defaults.calibration;
  r.results_root = defaults.results_root;
  r.fresh = defaults.fresh;
  r.plan = defaults.plan;
  // Resolved as the run uses them. --threads, --device-reads and --scans
  // stay as given: batch cells run at given threads only, and the other
  // two follow --reads, which names a change itself.
  r.backends = o.backends;
  r.reads = o.reads_per_pass;
  r.repetitions = o.repetitions;
  r.evict = params.evict;
  return r;
}

std::vector<std::string> WorkerCommandLine() {
  return {std::string(kBenchWorkerCommand)};
}

nlohmann::json WorkerStart(const bench::RunRequest& a, const std::string& b,
                           const std::string& evict, uint64_t origin) {
  bench::RunRequest w = a;
  w.evict = evict;
  return {{"op", "start"},
          {"backend", b},
          {"run_origin_ns", origin},
          {"request", bench::RunRequestToJson(w)}};
}

}  // namespace flatbench::cli
