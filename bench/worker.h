#pragma once
// One backend's side of a run: the process that holds the backend and runs
// the passes the schedule (schedule.h) hands it, one at a time.
//
//   Hello      the sanity check (datagen::CheckSample: both tables, hits
//              byte for byte, every miss kind absent) with each open mode
//              that will be measured, BEFORE any eviction; the backend's
//              settings and data files.
//   BeginWarm  open once (timed), hold every file mapped and locked
//              (page_cache.h ResidentHold; files beyond its mapping budget
//              are read in again before each pass) and populate the
//              backend's own
//              mappings, so a warm read costs what it costs in a
//              long-running process; EndWarm releases all of it.
//   RunStep    warm: check >= warm_bound resident, run the pass, check
//              again. Cold modes: close the backend, evict its files, verify
//              <= eviction_bound resident, run the device cell (hit cells),
//              reopen (timed; the open loads the backend's read metadata,
//              or none in cold-lazy), record what the open made resident,
//              run the pass, close.
// Writing steps run on a copy of the store (writing_step.cc, writing_pass.h).
// Scan steps run like read steps with a scan reader (scan_pass.h). Startup
// steps close the worker's instance and spawn probe processes (startup.h);
// in warm mode the worker then reopens and re-warms its instance, untimed.
// A pass whose eviction (or warm residency) cannot be verified is still run
// and recorded with eviction_verified = 0, never passed off as valid.
//
// Worker is transport-free: the bench command drives one per child process
// through a pipe (Handle), and tests drive it in-process.

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/schedule.h"
#include "common/backend.h"
#include "common/live_store.h"
#include "datagen/check.h"
#include "datagen/dataset_dir.h"

namespace flatbench::bench {

// Opens `backend` of the dataset being measured. Supplied by the CLI, so
// bench/ does not depend on the backends.
using Opener = std::function<Result<std::unique_ptr<Backend>>(
    const std::string& backend, const OpenOptions& options)>;

// Opens `backend` of the dataset for reading and writing at once, on the
// store's files in `dir` (a copy: writing_step.h). Supplied by the CLI.
using LiveOpener = std::function<Result<std::unique_ptr<LiveStore>>(
    const std::string& backend, const std::string& dir,
    const OpenOptions& options, const WriterOptions& writer)>;

struct WorkerOptions {
  bool lazy_needed = true;  // cold-lazy is measured: check it too.
  double eviction_bound = kEvictionBound;  // Max resident after eviction.
  double warm_bound = kWarmBound;  // Min resident fraction for warm passes.
  // Evict by drop_caches (the whole page cache, when writable) rather than
  // per file with fadvise: only where the user asked (bench --evict).
  bool allow_drop_caches = false;
  bool verify_checksums = true;  // Every backend verifies block checksums.
  uint64_t cache_bytes = uint64_t{1} << 30;  // OpenOptions::cache_bytes
  uint64_t draw_seed = kDefaultDrawSeed;
  uint64_t device_seed = 0x646576696365ULL;
  uint64_t run_origin_ns = 0;  // CLOCK_MONOTONIC at the run's start.
  // argv of a startup probe (argv[0]: the flatbench binary, argv[1] its
  // probe command), each told what to read by its message (bench/
  // startup.h ProbeRequest). Empty: startup steps fail with kUsage.
  std::vector<std::string> probe_command;
  datagen::CheckOptions check;
  // Writing steps: how to open a store live (empty: they fail with
  // kUsage), and the test hook that makes their expected states wrong.
  LiveOpener open_live;
  bool corrupt_writing_checks = false;
};

class Worker {
 public:
  Worker(const datagen::Dataset& dataset, std::string backend, Opener open,
         WorkerOptions options);
  ~Worker();

  // The sanity check and what the run records about the backend, as
  // flatbench.backend.<b>.* context keys. A failed check is not an error:
  // it is recorded, and the parent runs no pass of this backend.
  Result<nlohmann::json> Hello();
  Status BeginWarm();
  // The step's entries: the device cell (if any), then the pass.
  Result<nlohmann::json> RunStep(const Step& step);
  void EndWarm();

  // Protocol: {"op": "hello" | "warm_begin" | "step" | "warm_end", "step":
  // {...}} -> {"ok": true, "result": ...} or {"ok": false, "code": <Code>,
  // "error": "..."}.
  nlohmann::json Handle(const nlohmann::json& request);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The response that carries `st`, an error: {"ok": false, "code", "error"}.
nlohmann::json ErrorResponse(const Status& st);
// The error a worker response carries, as a Status (kIOError if malformed).
Status ResponseStatus(const nlohmann::json& response);

}  // namespace flatbench::bench
