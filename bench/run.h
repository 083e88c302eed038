#pragma once
// The parent side of a run: asks every backend's worker for its sanity
// check, then drives the interleaved schedule (schedule.h) through the
// workers one step at a time, numbering the passes in the order they ran,
// and assembles the results document (RESULTS_FORMAT.md).
//
// With a journal (journal.h), every finished step is appended to it before
// the run goes on, and a run given the journal of an earlier session
// follows that session's schedule and runs only the steps it lacks.
//
// Workers are reached through a WorkerChannel: the bench command gives each
// backend its own child process (each backend's RSS and heap stay apart);
// tests use an in-process one (test/bench/local_channel.h).

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/journal.h"
#include "bench/schedule.h"
#include "bench/worker.h"
#include "datagen/dataset_dir.h"

namespace flatbench::bench {

class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  // Sends one request and returns the worker's response object, or the
  // transport's error (the worker died).
  virtual Result<nlohmann::json> Call(const nlohmann::json& request) = 0;
};

struct RunOptions {
  ScheduleOptions schedule;
  // Warm mode holds every backend's files resident at once; refuse it
  // (kRefuseOverwrite, the resource refusal) above this many bytes.
  uint64_t warm_memory_limit = 0;  // 0: no limit.
  bool progress = true;
  // A step's estimated seconds (plan.h), for the progress lines' ETA:
  // the estimate of what is left, scaled by the time the steps so far
  // actually took against their estimate. Unset: no ETA.
  std::function<double(const Step&)> estimate;
  // Nonzero once a stop signal arrived (common/stop_signals.h): the run
  // stops before its next request and returns kIOError saying where.
  std::function<int()> stop_signal;
  // Test hook: after this many passes, wait for a stop signal.
  uint64_t hold_after_pass = 0;

  // The journal to create (journal_path non-empty, resume null): its
  // header, less the schedule, which the run adds once the sanity checks
  // have said which backends run.
  std::string journal_path;
  JournalHeader journal_header;
  // The journal of an earlier session (ReadJournal, checked): the run
  // follows its schedule, keeps its entries and appends to it.
  const JournalState* resume = nullptr;
  // This session's start (WallNow) at the workers' origin: new entries'
  // pass_start_s count from the first session's, the gap included.
  double session_wall = 0;
};

struct RunOutcome {
  nlohmann::json document;  // context + benchmarks.
  bool sanity_failed = false;
  // The first error of a backend that stopped early (its entries so far
  // are kept, and its context has flatbench.backend.<b>.error).
  Status first_error;
  // Steps of the schedule, and those with no entries in the results (a
  // backend that failed): a rerun with the journal runs only those.
  size_t steps = 0, steps_missing = 0;
};

// Runs the whole schedule. `channels` has one entry per backend of
// options.schedule.backends. `run_context` holds the run-wide flatbench.*
// keys. Errors: the schedule's kUsage, the warm memory refusal, a stop
// signal (kIOError naming the pass it stopped at), a journal that cannot be
// written (kIOError: the run stops rather than measure what it cannot
// keep); a backend error stops that backend only and is reported in
// RunOutcome.
Result<RunOutcome> RunMatrix(
    const datagen::Dataset& dataset, const RunOptions& options,
    const std::map<std::string, WorkerChannel*>& channels,
    nlohmann::json run_context);

}  // namespace flatbench::bench
