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

// Elapsed, and what is left (plan.h's Eta) when the steps have estimates.
class Progress {
 public:
  Progress(const std::vector<Phase>& phases,
           const std::function<double(const Step&)>& estimate)
      : start_(std::chrono::steady_clock::now()),
        each_(Estimates(phases, estimate)),
        eta_(each_),
        has_eta_(static_cast<bool>(estimate)) {}
  void Done(size_t index, double seconds) { eta_.Done(index, seconds); }
  // A step an earlier session ran (the journal's): it counts as estimated.
  void Skip(size_t index) {
    eta_.Done(index, index < each_.size() ? each_[index] : 0);
  }
  std::string Line() const {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
    std::string s = FormatDuration(elapsed) + " elapsed";
    if (!has_eta_) return s;
    return s + ", ETA " + FormatDuration(eta_.LeftSeconds());
  }

 private:
  static std::vector<double> Estimates(
      const std::vector<Phase>& phases,
      const std::function<double(const Step&)>& estimate) {
    std::vector<double> out;
    if (!estimate) return out;
    for (const auto& p : phases) {
      for (const auto& s : p.steps) out.push_back(estimate(s));
    }
    return out;
  }
  std::chrono::steady_clock::time_point start_;
  std::vector<double> each_;
  Eta eta_;
  bool has_eta_;
};

// A cold batch step's device rate at depth batch_size: from the device
// entry of its own step, or of the hit pass at that thread count earlier in
// the same mode and repetition (this session's or the journal's).
void AddBatchDevice(const Step& step, const nlohmann::json& earlier,
                    nlohmann::json* entries) {
  if (step.cell.op != Op::kBatch || !IsCold(step.mode)) return;
  const std::string device = BatchDevicePassName(step);
  const std::string own = StepName(step);
  const nlohmann::json* found = nullptr;
  for (const auto* list :
       {&earlier, static_cast<const nlohmann::json*>(entries)}) {
    for (const auto& e : *list) {
      if (e.value("name", std::string()) == device) found = &e;
    }
  }
  if (found == nullptr) return;
  for (auto& e : *entries) {
    if (e.value("name", std::string()) == own) AddBatchDeviceRate(*found, &e);
  }
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

}  // namespace

Result<RunOutcome> RunMatrix(
    const datagen::Dataset& ds, const RunOptions& options,
    const std::map<std::string, WorkerChannel*>& channels,
    nlohmann::json run_context) {
  RunOutcome out;
  nlohmann::json ctx = GoogleBenchmarkContext();
  for (auto& [k, v] : run_context.items()) ctx[k] = v;

  // Sanity checks first: no worker has evicted anything yet.
  std::vector<std::string> active;
  for (const auto& b : options.schedule.backends) {
    if (int sig = Stopped(options); sig != 0) {
      return Status::IOError("stopped by " + std::string("signal ") +
                             std::to_string(sig) + " during the sanity checks");
    }
    auto it = channels.find(b);
    if (it == channels.end()) {
      return Status::Usage("no worker for backend " + b);
    }
    auto hello = Call(it->second, {{"op", "hello"}});
    if (!hello.ok() && Stopped(options) != 0) {
      return Status::IOError("stopped by signal " +
                             std::to_string(Stopped(options)) +
                             " during the sanity checks");
    }
    if (!hello.ok()) {
      ctx[results::BackendKey(b, results::kError)] = hello.status().message();
      if (out.first_error.ok()) out.first_error = hello.status().WithContext(b);
      continue;
    }
    for (auto& [k, v] : hello->items()) ctx[k] = v;
    if (!hello->value(results::BackendKey(b, results::kSanityPassed), false)) {
      out.sanity_failed = true;
      if (options.progress) {
        std::fprintf(stderr, "bench: %s: %s\n", b.c_str(),
                     hello
                         ->value(results::BackendKey(b, results::kSanityError),
                                 std::string("sanity check failed"))
                         .c_str());
      }
      continue;
    }
    active.push_back(b);
  }

  std::set<std::string> failed;
  std::vector<Phase> phases;
  if (options.resume != nullptr) {
    // The earlier session's schedule; a backend that fails its sanity
    // check now runs none of what is left of it.
    phases = options.resume->header.schedule;
    for (const auto& b : options.schedule.backends) {
      if (!Listed(active, b)) failed.insert(b);
    }
  } else {
    ScheduleOptions so = options.schedule;
    so.backends = active;
    FLATBENCH_ASSIGN_OR_RETURN(phases, MakeSchedule(ds.spec(), so));
  }

  // Warm mode holds the files of every warm backend at once.
  if (options.warm_memory_limit > 0) {
    std::set<std::string> dirs;
    for (const auto& p : phases) {
      if (p.mode != Mode::kWarm) continue;
      for (const auto& s : p.steps) dirs.insert(ds.BackendDir(s.backend));
    }
    uint64_t need = 0;
    for (const auto& d : dirs) need += DiskBytes(d);
    if (need > options.warm_memory_limit) {
      return Status::RefuseOverwrite(
          "--modes warm: holding every backend's files resident needs " +
          HumanBytes(need) + ", more than the " +
          HumanBytes(options.warm_memory_limit) +
          " this host can spare; run without warm (--modes cold,cold-lazy) "
          "or with fewer backends");
    }
  }

  const size_t total = StepCount(phases);
  // The steps finished so far: the journal's, then this session's.
  std::set<size_t> finished;
  nlohmann::json benchmarks = nlohmann::json::array();
  std::vector<Interruption> gaps;
  std::optional<Interruption> gap;  // Until an entry follows it.
  double offset_s = 0;              // Added to new entries' pass_start_s.
  std::unique_ptr<JournalWriter> journal;
  if (const JournalState* j = options.resume; j != nullptr) {
    for (size_t k : j->order) {
      finished.insert(k);
      for (const auto& e : j->passes.at(k)) benchmarks.push_back(e);
    }
    gaps = j->interruptions;
    offset_s = std::max(0.0, options.session_wall - j->header.started);
    size_t k = 0, first = total;
    for (const auto& p : phases) {
      for (const auto& st : p.steps) {
        if (first == total && !finished.count(k)) {
          first = k;
          gap = Interruption{j->last, options.session_wall, k, StepName(st)};
        }
        ++k;
      }
    }
    FLATBENCH_ASSIGN_OR_RETURN(journal,
                               JournalWriter::Open(options.journal_path, *j));
    if (gap) FLATBENCH_RETURN_IF_ERROR(journal->Resume(*gap));
  } else if (!options.journal_path.empty()) {
    JournalHeader h = options.journal_header;
    h.schedule = phases;
    FLATBENCH_ASSIGN_OR_RETURN(journal,
                               JournalWriter::Create(options.journal_path, h));
  }

  size_t done = 0;
  Progress eta(phases, options.estimate);
  // Where a stop signal ended the run: the pass it did not finish.
  auto stopped_at = [&](const std::string& what) {
    return Status::IOError("stopped by signal " +
                           std::to_string(Stopped(options)) + " at pass " +
                           std::to_string(done) + " of " +
                           std::to_string(total) + " (" + what + ")");
  };
  auto fail = [&](const std::string& b, const Status& st) {
    failed.insert(b);
    ctx[results::BackendKey(b, results::kError)] = st.message();
    if (out.first_error.ok()) out.first_error = st;
    std::fprintf(stderr, "flatbench: %s: %s\n", b.c_str(),
                 st.message().c_str());
  };
  size_t phase_first = 0;  // Flat index of the phase's first step.
  for (const auto& phase : phases) {
    const bool warm = phase.mode == Mode::kWarm;
    std::set<std::string> warm_backends;
    if (warm) {
      // Only backends with steps left in the phase hold their files.
      for (size_t i = 0; i < phase.steps.size(); ++i) {
        if (!finished.count(phase_first + i)) {
          warm_backends.insert(phase.steps[i].backend);
        }
      }
      for (const auto& b : warm_backends) {
        if (failed.count(b)) continue;
        if (options.progress) {
          std::fprintf(stderr, "bench: %s: warm: holding files resident\n",
                       b.c_str());
        }
        if (Stopped(options) != 0) return stopped_at(b + " warm begin");
        auto r = Call(channels.at(b), {{"op", "warm_begin"}});
        if (!r.ok() && Stopped(options) != 0) {
          return stopped_at(b + " warm begin");
        }
        if (!r.ok()) fail(b, r.status());
      }
    }
    phase_first += phase.steps.size();
    for (const auto& step : phase.steps) {
      const size_t k = done++;
      if (finished.count(k)) {
        eta.Skip(k);
        continue;
      }
      if (Stopped(options) != 0) return stopped_at(StepName(step));
      if (failed.count(step.backend)) {
        eta.Done(k, 0);
        continue;
      }
      const auto step_start = std::chrono::steady_clock::now();
      auto r = Call(channels.at(step.backend),
                    {{"op", "step"}, {"step", StepToJson(step)}});
      if (!r.ok() && Stopped(options) != 0) return stopped_at(StepName(step));
      eta.Done(k, std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - step_start)
                      .count());
      if (!r.ok()) {
        fail(step.backend, r.status());
        continue;
      }
      nlohmann::json entries = nlohmann::json::array();
      for (auto& e : r.value()) {
        e[std::string(results::kPassOrder.name)] =
            static_cast<double>(benchmarks.size() + entries.size());
        const std::string start(results::kPassStartS.name);
        if (offset_s > 0 && e.contains(start) && e[start].is_number()) {
          e[start] = e[start].get<double>() + offset_s;
        }
        if (gap) {
          e[std::string(results::kInterruptedBeforeS.name)] =
              std::max(gap->Seconds(), 1e-3);
          gaps.push_back(*gap);
          gap.reset();
        }
        entries.push_back(std::move(e));
      }
      AddBatchDevice(step, benchmarks, &entries);
      // Kept before the run goes on: a crash from here loses nothing.
      if (journal) {
        Status st = journal->Pass(k, WallNow(), entries);
        if (!st.ok()) return st.WithContext("journal");
      }
      finished.insert(k);
      for (auto& e : entries) {
        if (options.progress) {
          std::fprintf(stderr, "bench [%zu/%zu] %s | %s\n", done, total,
                       SummaryLine(e).c_str(), eta.Line().c_str());
        }
        benchmarks.push_back(std::move(e));
      }
      if (options.hold_after_pass != 0 && done == options.hold_after_pass) {
        std::fprintf(stderr,
                     "bench: holding after pass %zu until a stop signal "
                     "(test hook)\n",
                     done);
        while (Stopped(options) == 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return stopped_at("held by the test hook");
      }
    }
    if (warm) {
      for (const auto& b : warm_backends) {
        if (failed.count(b)) continue;
        auto r = Call(channels.at(b), {{"op", "warm_end"}});
        if (!r.ok()) fail(b, r.status());
      }
    }
  }
  for (const auto& b : active) {
    if (failed.count(b)) continue;
    auto r = Call(channels.at(b), {{"op", "context"}});
    if (!r.ok()) {
      fail(b, r.status());
      continue;
    }
    for (auto& [k, v] : r->items()) ctx[k] = v;
  }
  out.steps = total;
  out.steps_missing = total - finished.size();
  ctx[std::string(results::kInterruptions.name)] = gaps.size();
  if (!gaps.empty()) {
    ctx[std::string(results::kInterruptionLog.name)] =
        DescribeGaps(gaps, total);
  }
  int64_t index = 0;
  for (auto& e : benchmarks) {
    e["family_index"] = index++;
    e["per_family_instance_index"] = 0;
  }
  out.document["context"] = ctx;
  out.document["benchmarks"] = benchmarks;
  return out;
}

}  // namespace flatbench::bench
