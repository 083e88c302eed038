#include "bench/run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <set>
#include <thread>

#include "bench/batch_pass.h"
#include "bench/counters.h"
#include "bench/pass.h"
#include "bench/plan.h"
#include "bench/run_progress.h"
#include "common/files.h"
#include "common/results_schema.h"
#include "common/text.h"

namespace flatbench::bench {
namespace {

// A failed call as a Status: transport errors and worker errors alike.
Result<nlohmann::json> Call(WorkerChannel* ch, const nlohmann::json& req) {
  FLATBENCH_ASSIGN_OR_RETURN(auto r, ch->Call(req));
  Status st = ResponseStatus(r);
  if (!st.ok()) return st;
  return r.value("result", nlohmann::json());
}

int Stopped(const RunOptions& o) { return o.stop_signal ? o.stop_signal() : 0; }

std::string StepName(const Step& s) {
  return PassName(CellNameOf(s.backend, s.cell, s.mode, s.repetition));
}

std::string DescribeGaps(const std::vector<Interruption>& gaps, size_t steps) {
  std::string out;
  for (size_t i = 0; i < gaps.size(); ++i) {
    const Interruption& g = gaps[i];
    out += (out.empty() ? "" : "; ") + std::to_string(i + 1) +
           ": stopped after the pass that finished at " +
           UtcTime(static_cast<std::time_t>(g.since)) + ", resumed at " +
           UtcTime(static_cast<std::time_t>(g.resumed)) + ", " +
           FormatDuration(g.Seconds()) + " later, at pass " +
           std::to_string(g.step + 1) + " of " + std::to_string(steps) + " (" +
           g.pass + ")";
  }
  return out;
}

// One run of the schedule: the state its phases share, and a method a
// phase (RunMatrix reads as their list).
class MatrixRun {
 public:
  MatrixRun(const datagen::Dataset& ds, const RunOptions& options,
            const std::map<std::string, WorkerChannel*>& channels,
            const nlohmann::json& run_context)
      : ds_(ds), o_(options), channels_(channels) {
    ctx_ = GoogleBenchmarkContext();
    for (auto& [k, v] : run_context.items()) ctx_[k] = v;
  }

  // Each backend's sanity check, before any worker has evicted anything;
  // the backends that pass are active.
  Status SanityChecks();
  // The schedule: the journal's when resuming (a backend that fails its
  // sanity check now runs none of what is left of it), else made for the
  // active backends.
  Status MakePhases();
  // Warm mode holds the files of every warm backend at once.
  Status CheckWarmMemory() const;
  // The journal's passes taken as done, and the journal opened to go on;
  // or a new journal created.
  Status OpenJournal();
  Status RunPhases();
  // Each active backend's context keys, the interruptions, the document.
  RunOutcome Finish();

 private:
  Status RunPhase(const Phase& phase, size_t phase_first);
  // The backends of a warm phase with steps left, holding their files.
  Result<std::set<std::string>> BeginWarm(const Phase& phase,
                                          size_t phase_first);
  Status RunOneStep(const Step& step);
  // A step's entries numbered in order, shifted by the earlier sessions'
  // time, the interruption before them marked.
  nlohmann::json Number(nlohmann::json result);
  Status HoldForTest();
  Status StoppedAt(const std::string& what) const {
    return Status::IOError("stopped by signal " + std::to_string(Stopped(o_)) +
                           " at pass " + std::to_string(done_) + " of " +
                           std::to_string(total_) + " (" + what + ")");
  }
  void Fail(const std::string& b, const Status& st) {
    failed_.insert(b);
    ctx_[results::BackendKey(b, results::kError)] = st.message();
    if (out_.first_error.ok()) out_.first_error = st;
    std::fprintf(stderr, "flatbench: %s: %s\n", b.c_str(),
                 st.message().c_str());
  }

  const datagen::Dataset& ds_;
  const RunOptions& o_;
  const std::map<std::string, WorkerChannel*>& channels_;
  nlohmann::json ctx_;
  RunOutcome out_;
  std::vector<std::string> active_;
  std::set<std::string> failed_;
  std::vector<Phase> phases_;
  size_t total_ = 0;
  size_t done_ = 0;
  // The steps finished so far: the journal's, then this session's.
  std::set<size_t> finished_;
  nlohmann::json benchmarks_ = nlohmann::json::array();
  std::vector<Interruption> gaps_;
  std::optional<Interruption> gap_;  // Until an entry follows it.
  double offset_s_ = 0;              // Added to new entries' pass_start_s.
  std::unique_ptr<JournalWriter> journal_;
  std::unique_ptr<RunProgress> eta_;
};

Status MatrixRun::SanityChecks() {
  for (const auto& b : o_.schedule.backends) {
    if (int sig = Stopped(o_); sig != 0) {
      return Status::IOError("stopped by " + std::string("signal ") +
                             std::to_string(sig) + " during the sanity checks");
    }
    auto it = channels_.find(b);
    if (it == channels_.end()) {
      return Status::Usage("no worker for backend " + b);
    }
    const uint64_t asked = NowNs();
    auto hello = Call(it->second, {{"op", "hello"}});
    const double took = static_cast<double>(NowNs() - asked) / 1e9;
    if (!hello.ok() && Stopped(o_) != 0) {
      return Status::IOError("stopped by signal " +
                             std::to_string(Stopped(o_)) +
                             " during the sanity checks");
    }
    if (!hello.ok()) {
      ctx_[results::BackendKey(b, results::kError)] = hello.status().message();
      if (out_.first_error.ok()) {
        out_.first_error = hello.status().WithContext(b);
      }
      continue;
    }
    for (auto& [k, v] : hello->items()) ctx_[k] = v;
    ctx_[results::BackendKey(b, results::kStartSeconds)] = took;
    if (!hello->value(results::BackendKey(b, results::kSanityPassed), false)) {
      out_.sanity_failed = true;
      if (o_.progress) {
        std::fprintf(stderr, "bench: %s: %s\n", b.c_str(),
                     hello
                         ->value(results::BackendKey(b, results::kSanityError),
                                 std::string("sanity check failed"))
                         .c_str());
      }
      continue;
    }
    active_.push_back(b);
  }
  return Status::Ok();
}

Status MatrixRun::MakePhases() {
  if (o_.resume != nullptr) {
    phases_ = o_.resume->header.schedule;
    for (const auto& b : o_.schedule.backends) {
      if (!Listed(active_, b)) failed_.insert(b);
    }
  } else {
    ScheduleOptions so = o_.schedule;
    so.backends = active_;
    FLATBENCH_ASSIGN_OR_RETURN(phases_, MakeSchedule(ds_.spec(), so));
  }
  total_ = StepCount(phases_);
  eta_ = std::make_unique<RunProgress>(phases_, o_.estimate);
  return Status::Ok();
}

Status MatrixRun::CheckWarmMemory() const {
  if (o_.warm_memory_limit == 0) return Status::Ok();
  std::set<std::string> dirs;
  for (const auto& p : phases_) {
    if (p.mode != Mode::kWarm) continue;
    for (const auto& s : p.steps) dirs.insert(ds_.BackendDir(s.backend));
  }
  uint64_t need = 0;
  for (const auto& d : dirs) need += DiskBytes(d);
  if (need <= o_.warm_memory_limit) return Status::Ok();
  return Status::RefuseOverwrite(
      "--modes warm: holding every backend's files resident needs " +
      HumanBytes(need) + ", more than the " + HumanBytes(o_.warm_memory_limit) +
      " this host can spare; run without warm (--modes cold,cold-lazy) "
      "or with fewer backends");
}

Status MatrixRun::OpenJournal() {
  const JournalState* j = o_.resume;
  if (j == nullptr) {
    if (o_.journal_path.empty()) return Status::Ok();
    JournalHeader h = o_.journal_header;
    h.schedule = phases_;
    FLATBENCH_ASSIGN_OR_RETURN(journal_,
                               JournalWriter::Create(o_.journal_path, h));
    return Status::Ok();
  }
  for (size_t k : j->order) {
    finished_.insert(k);
    for (const auto& e : j->passes.at(k)) benchmarks_.push_back(e);
  }
  gaps_ = j->interruptions;
  offset_s_ = std::max(0.0, o_.session_wall - j->header.started);
  size_t k = 0;
  for (const auto& p : phases_) {
    for (const auto& st : p.steps) {
      if (!gap_ && !finished_.count(k)) {
        gap_ = Interruption{j->last, o_.session_wall, k, StepName(st)};
      }
      ++k;
    }
  }
  FLATBENCH_ASSIGN_OR_RETURN(journal_,
                             JournalWriter::Open(o_.journal_path, *j));
  if (gap_) FLATBENCH_RETURN_IF_ERROR(journal_->Resume(*gap_));
  return Status::Ok();
}

Status MatrixRun::RunPhases() {
  size_t phase_first = 0;  // Flat index of the phase's first step.
  for (const auto& phase : phases_) {
    FLATBENCH_RETURN_IF_ERROR(RunPhase(phase, phase_first));
    phase_first += phase.steps.size();
  }
  return Status::Ok();
}

Result<std::set<std::string>> MatrixRun::BeginWarm(const Phase& phase,
                                                   size_t phase_first) {
  std::set<std::string> warm_backends;
  for (size_t i = 0; i < phase.steps.size(); ++i) {
    if (!finished_.count(phase_first + i)) {
      warm_backends.insert(phase.steps[i].backend);
    }
  }
  for (const auto& b : warm_backends) {
    if (failed_.count(b)) continue;
    if (o_.progress) {
      std::fprintf(stderr, "bench: %s: warm: holding files resident\n",
                   b.c_str());
    }
    if (Stopped(o_) != 0) return StoppedAt(b + " warm begin");
    const uint64_t asked = NowNs();
    auto r = Call(channels_.at(b), {{"op", "warm_begin"}});
    if (!r.ok() && Stopped(o_) != 0) return StoppedAt(b + " warm begin");
    if (!r.ok()) {
      Fail(b, r.status());
    } else {
      ctx_[results::BackendKey(b, results::kWarmBeginSeconds)] =
          static_cast<double>(NowNs() - asked) / 1e9;
    }
  }
  return warm_backends;
}

Status MatrixRun::RunPhase(const Phase& phase, size_t phase_first) {
  const bool warm = phase.mode == Mode::kWarm;
  std::set<std::string> warm_backends;
  if (warm) {
    FLATBENCH_ASSIGN_OR_RETURN(warm_backends, BeginWarm(phase, phase_first));
  }
  for (const auto& step : phase.steps) {
    FLATBENCH_RETURN_IF_ERROR(RunOneStep(step));
  }
  for (const auto& b : warm_backends) {
    if (failed_.count(b)) continue;
    auto r = Call(channels_.at(b), {{"op", "warm_end"}});
    if (!r.ok()) Fail(b, r.status());
  }
  return Status::Ok();
}

nlohmann::json MatrixRun::Number(nlohmann::json result) {
  nlohmann::json entries = nlohmann::json::array();
  for (auto& e : result) {
    e[std::string(results::kPassOrder.name)] =
        static_cast<double>(benchmarks_.size() + entries.size());
    const std::string start(results::kPassStartS.name);
    if (offset_s_ > 0 && e.contains(start) && e[start].is_number()) {
      e[start] = e[start].get<double>() + offset_s_;
    }
    if (gap_) {
      e[std::string(results::kInterruptedBeforeS.name)] =
          std::max(gap_->Seconds(), 1e-3);
      gaps_.push_back(*gap_);
      gap_.reset();
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

Status MatrixRun::RunOneStep(const Step& step) {
  const size_t k = done_++;
  if (finished_.count(k)) {
    eta_->Skip(k);
    return Status::Ok();
  }
  if (Stopped(o_) != 0) return StoppedAt(StepName(step));
  if (failed_.count(step.backend)) {
    eta_->Done(k, 0);
    return Status::Ok();
  }
  const auto step_start = std::chrono::steady_clock::now();
  auto r = Call(channels_.at(step.backend),
                {{"op", "step"}, {"step", StepToJson(step)}});
  if (!r.ok() && Stopped(o_) != 0) return StoppedAt(StepName(step));
  eta_->Done(k, std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              step_start)
                    .count());
  if (!r.ok()) {
    Fail(step.backend, r.status());
    return Status::Ok();
  }
  nlohmann::json entries = Number(std::move(r).value());
  AddBatchDevice(step, benchmarks_, &entries);
  // Kept before the run goes on: a crash from here loses nothing.
  if (journal_) {
    Status st = journal_->Pass(k, WallNow(), entries);
    if (!st.ok()) return st.WithContext("journal");
  }
  finished_.insert(k);
  for (auto& e : entries) {
    if (o_.progress) {
      std::fprintf(stderr, "bench [%zu/%zu] %s | %s\n", done_, total_,
                   SummaryLine(e).c_str(), eta_->Line().c_str());
    }
    benchmarks_.push_back(std::move(e));
  }
  if (o_.hold_after_pass != 0 && done_ == o_.hold_after_pass) {
    return HoldForTest();
  }
  return Status::Ok();
}

Status MatrixRun::HoldForTest() {
  std::fprintf(stderr,
               "bench: holding after pass %zu until a stop signal "
               "(test hook)\n",
               done_);
  while (Stopped(o_) == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return StoppedAt("held by the test hook");
}

RunOutcome MatrixRun::Finish() {
  for (const auto& b : active_) {
    if (failed_.count(b)) continue;
    auto r = Call(channels_.at(b), {{"op", "context"}});
    if (!r.ok()) {
      Fail(b, r.status());
      continue;
    }
    for (auto& [k, v] : r->items()) ctx_[k] = v;
  }
  out_.steps = total_;
  out_.steps_missing = total_ - finished_.size();
  ctx_[std::string(results::kInterruptions.name)] = gaps_.size();
  if (!gaps_.empty()) {
    ctx_[std::string(results::kInterruptionLog.name)] =
        DescribeGaps(gaps_, total_);
  }
  int64_t index = 0;
  for (auto& e : benchmarks_) {
    e["family_index"] = index++;
    e["per_family_instance_index"] = 0;
  }
  out_.document["context"] = ctx_;
  out_.document["benchmarks"] = benchmarks_;
  return std::move(out_);
}

}  // namespace

Result<RunOutcome> RunMatrix(
    const datagen::Dataset& ds, const RunOptions& options,
    const std::map<std::string, WorkerChannel*>& channels,
    nlohmann::json run_context) {
  MatrixRun run(ds, options, channels, run_context);
  FLATBENCH_RETURN_IF_ERROR(run.SanityChecks());
  FLATBENCH_RETURN_IF_ERROR(run.MakePhases());
  FLATBENCH_RETURN_IF_ERROR(run.CheckWarmMemory());
  FLATBENCH_RETURN_IF_ERROR(run.OpenJournal());
  FLATBENCH_RETURN_IF_ERROR(run.RunPhases());
  return run.Finish();
}

}  // namespace flatbench::bench
