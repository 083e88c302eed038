#pragma once
// The startup kind: how long a fresh process takes from exec to its first
// successful read, cold and warm.
//
// A startup pass runs in the backend's worker after the worker has closed
// its own instance of the backend. For each probe it prepares the files
// (cold: evict and verify; warm: the worker's ResidentHold keeps them
// resident and mapped), takes CLOCK_MONOTONIC, spawns a probe process (the
// flatbench binary, WorkerOptions::probe_command), and waits for it. The
// probe opens the backend (timed), reads one hit key with Get, takes
// CLOCK_MONOTONIC when the read returned the key, and reports its open
// time, that instant and its RSS after the open (plus the RSS of the
// backend's server processes, Backend::ServerProcesses) as one JSON line on
// stdout. Startup = the probe's first-read instant minus the instant before
// the spawn: exec, dynamic loading, open (for a server backend, starting
// its server) and one cold or warm read.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/worker.h"
#include "common/backend.h"

namespace flatbench::bench {

// What one probe is asked: the one line its parent writes on its stdin.
struct ProbeRequest {
  std::string dir;      // The dataset.
  std::string backend;  // The backend to open.
  Table table = Table::kAccount;
  std::string key;             // The hit key to read (raw bytes).
  bool lazy_metadata = false;  // Open as cold-lazy does (OpenOptions).

  bool operator==(const ProbeRequest&) const = default;
};

// {"op": "probe", "dir", "backend", "table", "key" (hex), "lazy_metadata"}.
nlohmann::json ProbeMessage(const ProbeRequest& r);
// The request in a probe message; kUsage naming the field at fault (a
// missing or mistyped field, an unknown table, a key that is not hex of
// the table's key size).
Result<ProbeRequest> ParseProbeMessage(const nlohmann::json& m);

// The probe's side: opens `backend` with `options`, reads `key` from
// `table`, and returns the JSON line to print: {"ok": true, "open_s",
// "first_read_ns", "rss_after_open_bytes"} or {"ok": false, "code",
// "error"} (a key that is absent is kCorruption).
nlohmann::json RunStartupProbe(const Opener& open, const std::string& backend,
                               Table table, const std::string& key,
                               const OpenOptions& options);

// What one probe measured.
struct ProbeTimes {
  double startup_s = 0;  // Spawn to the end of the first successful read.
  double open_s = 0;     // The probe's open.
  uint64_t rss_after_open = 0;
};

// Spawns `argv` (argv[0] is the program, argv[1] the command it runs),
// writes `message` (ProbeMessage) and a newline on its stdin and closes it,
// reads its one JSON line, waits for it, and returns its figures.
// Errors: the probe's own error (its JSON line, or, when it printed none,
// the error its exit code documents), or kChildFailed when it crashed
// (bench/child_process.h, ChildStatus).
Result<ProbeTimes> SpawnProbe(const std::vector<std::string>& argv,
                              const nlohmann::json& message);

struct StartupSpec {
  std::string name;  // The entry name.
  int repetition = 0;
  // argv of every probe (WorkerOptions::probe_command).
  std::vector<std::string> command;
  // The message of each probe, in order (one per probe; the keys differ).
  std::vector<nlohmann::json> probes;
  // Runs before each probe; returns the fraction of the backend's file
  // pages resident after it (cold: after eviction).
  std::function<Result<double>()> prepare;
  bool cold = true;
  double eviction_bound = 0.01;  // Cold: the most resident after eviction.
  double warm_bound = 0.99;      // Warm: the least resident.
  double pass_start_s = 0;
};

// Runs the probes and returns the startup entry (RESULTS_FORMAT.md).
Result<nlohmann::json> RunStartupPass(const StartupSpec& spec);

}  // namespace flatbench::bench
