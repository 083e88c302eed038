#pragma once
// The parent side of a run: asks every backend's worker for its sanity
// check, then drives the interleaved schedule (schedule.h) through the
// workers one step at a time, numbering the passes in the order they ran,
// and assembles the results document (RESULTS_FORMAT.md).
//
// Workers are reached through a WorkerChannel: the bench command gives each
// backend its own child process (each backend's RSS and heap stay apart);
// tests use an in-process one (test/bench/local_channel.h).

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/schedule.h"
#include "bench/worker.h"
#include "datagen/dataset.h"

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
};

struct RunOutcome {
  nlohmann::json document;  // context + benchmarks.
  bool sanity_failed = false;
  // The first error of a backend that stopped early (its entries so far
  // are kept, and its context has flatbench.backend.<b>.error).
  Status first_error;
};

// Runs the whole schedule. `channels` has one entry per backend of
// options.schedule.backends. `run_context` holds the run-wide flatbench.*
// keys. Errors: the schedule's kUsage, the warm memory refusal, a stop
// signal (kIOError naming the pass it stopped at); a backend error stops
// that backend only and is reported in RunOutcome.
Result<RunOutcome> RunMatrix(
    const datagen::Dataset& dataset, const RunOptions& options,
    const std::map<std::string, WorkerChannel*>& channels,
    nlohmann::json run_context);

}  // namespace flatbench::bench
