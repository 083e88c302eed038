#include "cli/bench_parent.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "backends/table.h"
#include "bench/journal.h"
#include "bench/pass.h"
#include "bench/plan.h"
#include "bench/run.h"
#include "bench/run_context.h"
#include "cli/bench_channel.h"
#include "cli/test_hooks.h"
#include "common/device_profile.h"
#include "common/files.h"
#include "common/results_schema.h"
#include "common/stop_signals.h"
#include "datagen/dataset_dir.h"
#include "datagen/dataset_files.h"
#include "dataset/estimate.h"
#include "dataset/names.h"
#include "report/thresholds.h"

namespace flatbench::cli {
namespace {

// Whether warm mode means nothing for backend `name` (the table says).
bool NoWarm(const std::string& name) {
  const backends::Entry* e = backends::Find(name);
  return e != nullptr && !e->runs_warm;
}

}  // namespace

namespace {

void PrintPlan(const bench::RunRequest& a, const dataset::Spec& spec,
               const bench::RunParameters& p, const bench::Plan& plan) {
  const auto& o = p.schedule;
  std::string modes, threads;
  for (auto m : o.modes) {
    if (!modes.empty()) modes += ',';
    modes += bench::ModeName(m);
  }
  for (int t : o.threads) {
    if (!threads.empty()) threads += ',';
    threads += std::to_string(t);
  }
  std::fprintf(stderr,
               "bench plan: %s (%s scale), %zu backends, %llu reads per "
               "pass, %d repetitions, threads %s, modes %s, eviction by %s\n%s",
               a.dir.c_str(), spec.scale.c_str(), o.backends.size(),
               static_cast<unsigned long long>(o.reads_per_pass), o.repetitions,
               threads.c_str(), modes.c_str(), p.evict.c_str(),
               bench::FormatPlan(plan).c_str());
}

// --plan for a dataset of `spec` not built yet (gonogo --plan): the
// backends given, each backend's size estimated.
Status PlanUnbuilt(const bench::RunRequest& a, const dataset::Spec& spec) {
  if (a.backends.empty()) {
    return Status::Usage(
        "the plan of a dataset not built yet needs "
        "--backends");
  }
  bench::RunParameters params = MakeParameters(a, spec);
  params.schedule.backends = a.backends;
  for (const auto& b : a.backends) {
    if (NoWarm(b)) params.schedule.no_warm.push_back(b);
  }
  FLATBENCH_RETURN_IF_ERROR(ChooseWritingBackends(true, &params.schedule));
  const uint64_t warm_limit = bench::WarmHoldLimitBytes(MemAvailableBytes());
  FLATBENCH_ASSIGN_OR_RETURN(
      auto in, PlanInputFor(a, spec, nullptr, params, warm_limit));
  FLATBENCH_ASSIGN_OR_RETURN(const bench::Plan plan, bench::MakePlan(in));
  std::fprintf(stderr,
               "bench plan: %s is not built yet; sizes are gen's estimates "
               "and per-file costs are left out\n",
               a.dir.c_str());
  PrintPlan(a, spec, params, plan);
  return Status::Ok();
}

// The journal beside --out: removed first with --fresh (saying so);
// otherwise read, checked against this run (`now`) and returned to be
// resumed. Nothing when there is none.
Result<std::optional<bench::JournalState>> ResumeJournal(
    const bench::RunRequest& a, const bench::JournalHeader& now) {
  const std::string path = bench::JournalPathFor(a.out);
  struct stat sb {};
  if (stat(path.c_str(), &sb) != 0) return std::optional<bench::JournalState>();
  if (a.fresh) {
    if (::unlink(path.c_str()) != 0) return Status::FromErrno(path);
    std::fprintf(stderr,
                 "bench: --fresh: removed the journal %s of an earlier run\n",
                 path.c_str());
    return std::optional<bench::JournalState>();
  }
  FLATBENCH_ASSIGN_OR_RETURN(bench::JournalState state,
                             bench::ReadJournal(path));
  if (state.torn_bytes > 0) {
    std::fprintf(stderr,
                 "bench: journal %s: cut off a torn last record (%llu bytes, "
                 "an append the stop interrupted); its pass runs again\n",
                 path.c_str(),
                 static_cast<unsigned long long>(state.torn_bytes));
  }
  FLATBENCH_RETURN_IF_ERROR(bench::CheckSameRun(path, state.header, now));
  const double now_wall = bench::WallNow();
  FLATBENCH_RETURN_IF_ERROR(bench::CheckGap(path, state, now_wall));
  std::fprintf(stderr,
               "bench: resuming %s: %zu of %zu passes done, the last %s ago\n",
               path.c_str(), state.passes.size(),
               bench::StepCount(state.header.schedule),
               bench::FormatDuration(now_wall - state.last).c_str());
  return std::optional<bench::JournalState>(std::move(state));
}

// --backends, or every backend of this build that the dataset holds
// complete; each one built in the dataset.
Result<std::vector<std::string>> ChooseBackends(const bench::RunRequest& a,
                                                const datagen::Dataset& ds) {
  std::vector<std::string> chosen = a.backends;
  if (chosen.empty()) {
    for (const auto& b : ds.CompleteBackends()) {
      for (const auto& known : backends::Stores()) {
        if (b == known) chosen.push_back(b);
      }
    }
    if (chosen.empty()) {
      return Status::MissingInput("--dir: " + a.dir +
                                  " holds no complete backend");
    }
  }
  for (const auto& b : chosen) {
    if (!ds.Build(b).ok()) {
      return Status::MissingInput("--backends: '" + b +
                                  "' is not built in dataset " + a.dir +
                                  " (run flatbench gen --backends " + b + ")");
    }
  }
  return chosen;
}

// The results' context: the dataset's and this run's provenance, the
// libraries' versions, and the recorded device profile when given.
nlohmann::json MakeRunContext(const datagen::Dataset& ds,
                              const bench::RunParameters& params,
                              const nlohmann::json& profile) {
  nlohmann::json run_context = bench::RunContext(ds, params, [] {
    bench::Versions v;
    for (auto& [library, version] : backends::LibraryVersions()) {
      v[library] = version;
    }
    return v;
  }());
  if (!profile.is_null()) {
    run_context[std::string(results::kRecordedDeviceProfile.name)] = profile;
  }
  return run_context;
}

// The journal's header: this run's flags and provenance.
bench::JournalHeader MakeJournalHeader(const bench::RunRequest& a,
                                       const bench::RunParameters& params,
                                       const nlohmann::json& run_context) {
  bench::JournalHeader header;
  header.request = JournalRequest(a, params);
  for (const auto& k : results::AllContextKeys()) {
    const std::string name(k.name);
    if (k.provenance && run_context.contains(name)) {
      header.identity[name] = run_context[name];
    }
  }
  header.run_start =
      run_context.value(std::string(results::kRunStart.name), "");
  return header;
}

// One worker process per backend.
Status StartWorkers(const bench::RunRequest& a,
                    const std::vector<std::string>& chosen,
                    const bench::RunParameters& params, uint64_t origin,
                    std::vector<std::unique_ptr<ProcessChannel>>* owned,
                    std::map<std::string, bench::WorkerChannel*>* channels) {
  for (const auto& b : chosen) {
    auto child = bench::LineChild::Start(WorkerCommandLine());
    if (!child.ok()) return child.status().WithContext(b);
    owned->push_back(
        std::make_unique<ProcessChannel>(std::move(child).value()));
    (*channels)[b] = owned->back().get();
    auto started = owned->back()->Call(WorkerStart(a, b, params.evict, origin));
    if (!started.ok()) return started.status().WithContext(b);
    FLATBENCH_RETURN_IF_ERROR(bench::ResponseStatus(started.value()));
  }
  return Status::Ok();
}

// The results file written, and the journal removed when every pass is in
// it (kept, saying why, when some did not run); then the run's own error.
Status FinishRun(const bench::RunRequest& a, const bench::RunOutcome& outcome) {
  FLATBENCH_RETURN_IF_ERROR(
      WriteFileAtomic(a.out, outcome.document.dump(2) + "\n"));
  if (!a.quiet) {
    std::fprintf(stderr, "bench: wrote %s (%zu entries)\n", a.out.c_str(),
                 outcome.document["benchmarks"].size());
  }
  const std::string journal = bench::JournalPathFor(a.out);
  if (outcome.steps_missing == 0) {
    std::error_code ec;
    std::filesystem::remove(journal, ec);
    if (!a.quiet) {
      std::fprintf(stderr, "bench: removed its journal %s: %s\n",
                   journal.c_str(),
                   ec ? ec.message().c_str() : "every pass is in the results");
    }
  } else {
    std::fprintf(stderr,
                 "bench: kept its journal %s: %zu of %zu passes did not run; "
                 "the same command with --force runs only those\n",
                 journal.c_str(), outcome.steps_missing, outcome.steps);
  }
  if (!outcome.first_error.ok()) return outcome.first_error;
  if (outcome.sanity_failed) {
    return Status::Corruption(
        "a sanity check failed; see flatbench.backend.*.sanity_error in " +
        a.out);
  }
  return Status::Ok();
}

}  // namespace

// The phases: the device profile and the dataset checked, the backends
// chosen, the plan made (and printed), the journal read for a resume, the
// workers started, the passes run, the results written.
Status RunParent(const bench::RunRequest& a, const dataset::Spec* unbuilt) {
  nlohmann::json profile;  // A bad profile is refused before anything runs.
  if (!a.device_profile.empty()) {
    FLATBENCH_ASSIGN_OR_RETURN(auto loaded,
                               LoadDeviceProfileFile(a.device_profile));
    profile = std::move(loaded.doc);
  }
  auto opened = datagen::Dataset::Open(a.dir);
  if (a.plan && unbuilt != nullptr &&
      (!opened.ok() || opened->CompleteBackends().size() < a.backends.size())) {
    return PlanUnbuilt(a, *unbuilt);
  }
  FLATBENCH_ASSIGN_OR_RETURN(const datagen::Dataset ds, std::move(opened));
  datagen::DirLock reading;  // No gen, age or merge changes it meanwhile.
  FLATBENCH_RETURN_IF_ERROR(reading.LockShared(a.dir));
  FLATBENCH_ASSIGN_OR_RETURN(const std::vector<std::string> chosen,
                             ChooseBackends(a, ds));
  bench::RunParameters params = MakeParameters(a, ds.spec());
  params.schedule.backends = chosen;
  for (const auto& b : chosen) {
    if (NoWarm(b)) params.schedule.no_warm.push_back(b);
  }
  FLATBENCH_RETURN_IF_ERROR(ChooseWritingBackends(a.quiet, &params.schedule));
  const uint64_t warm_limit = bench::WarmHoldLimitBytes(MemAvailableBytes());
  FLATBENCH_ASSIGN_OR_RETURN(
      const bench::PlanInput plan_input,
      PlanInputFor(a, ds.spec(), &ds, params, warm_limit));
  FLATBENCH_ASSIGN_OR_RETURN(const bench::Plan plan,
                             bench::MakePlan(plan_input));
  params.schedule = plan.schedule;
  if (!a.quiet || a.plan) PrintPlan(a, ds.spec(), params, plan);
  if (a.plan) return Status::Ok();
  struct stat sb {};
  if (!a.force && stat(a.out.c_str(), &sb) == 0) {
    return Status::RefuseOverwrite(
        "--out: " + a.out + " already exists (pass --force to replace it)");
  }
  nlohmann::json run_context = MakeRunContext(ds, params, profile);
  bench::JournalHeader header = MakeJournalHeader(a, params, run_context);
  FLATBENCH_ASSIGN_OR_RETURN(std::optional<bench::JournalState> resume,
                             ResumeJournal(a, header));
  if (resume) {
    run_context[std::string(results::kRunStart.name)] =
        resume->header.run_start;
  }
  const uint64_t origin = bench::NowNs();
  header.started = bench::WallNow();
  std::vector<std::unique_ptr<ProcessChannel>> owned;
  std::map<std::string, bench::WorkerChannel*> channels;
  FLATBENCH_RETURN_IF_ERROR(
      StartWorkers(a, chosen, params, origin, &owned, &channels));
  bench::RunOptions ro;
  ro.schedule = params.schedule;
  ro.progress = !a.quiet;
  ro.warm_memory_limit = warm_limit;
  ro.estimate = [&plan_input](const bench::Step& s) {
    return bench::PlannedStepSeconds(plan_input, s);
  };
  ro.stop_signal = [] { return StopSignal(); };
  ro.hold_after_pass = HoldAfterPassHook();
  ro.journal_path = bench::JournalPathFor(a.out);
  ro.journal_header = header;
  ro.resume = resume ? &*resume : nullptr;
  ro.session_wall = header.started;
  if (!a.quiet) {
    std::fprintf(stderr,
                 "bench: %zu backends, each in its own process, "
                 "interleaved\n",
                 chosen.size());
  }
  auto outcome = bench::RunMatrix(ds, ro, channels, run_context);
  owned.clear();  // Ends the workers (a stop signal already has).
  if (StopSignal() != 0) {
    return outcome.ok()
               ? Status::IOError("stopped by " + DescribeSignal(StopSignal()))
               : outcome.status();
  }
  if (!outcome.ok()) return outcome.status();
  return FinishRun(a, outcome.value());
}

int Stopped(const bench::RunRequest& a, const Status& where) {
  std::fprintf(stderr,
               "bench: %s; every worker and server it started is stopped, "
               "%s not written. To resume, run the same command again: "
               "bench continues at the first pass not in its journal %s "
               "(--fresh starts over).\n",
               where.ok()
                   ? ("stopped by " + DescribeSignal(StopSignal())).c_str()
                   : where.message().c_str(),
               a.out.c_str(), bench::JournalPathFor(a.out).c_str());
  return ExitCodeForSignal(StopSignal());
}

}  // namespace flatbench::cli
