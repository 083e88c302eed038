#include "cli/bench_child.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "bench/child_process.h"
#include "bench/startup.h"
#include "bench/worker.h"
#include "cli/bench_args.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/run_options.h"
#include "cli/test_hooks.h"
#include "common/results_schema.h"
#include "common/stop_signals.h"
#include "datagen/dataset_dir.h"

namespace flatbench::cli {

namespace {

// One response line to the parent.
void Respond(FILE* out, const nlohmann::json& response) {
  std::fputs(response.dump().c_str(), out);
  std::fputc('\n', out);
  std::fflush(out);
}

// The next line on stdin as JSON (discarded when it is not); nullopt when
// stdin has closed.
std::optional<nlohmann::json> NextMessage() {
  char* buf = nullptr;
  size_t cap = 0;
  const ssize_t n = getline(&buf, &cap, stdin);
  std::optional<nlohmann::json> m;
  if (n > 0) {
    m = nlohmann::json::parse(std::string(buf, static_cast<size_t>(n)), nullptr,
                              false);
  }
  std::free(buf);
  return m;
}

// What the start message (WorkerStart) tells a worker.
struct WorkerStartMessage {
  std::string backend;
  uint64_t run_origin_ns = 0;
  bench::RunRequest request;
};

Result<WorkerStartMessage> ParseStart(const nlohmann::json& m) {
  WorkerStartMessage s;
  if (m.is_discarded() || !m.is_object() || m.value("op", "") != "start" ||
      !m.contains("backend") || !m["backend"].is_string() ||
      !m.contains("run_origin_ns") ||
      !m["run_origin_ns"].is_number_unsigned()) {
    return Status::Usage("worker: the first message is not a start message");
  }
  s.backend = m["backend"].get<std::string>();
  s.run_origin_ns = m["run_origin_ns"].get<uint64_t>();
  FLATBENCH_ASSIGN_OR_RETURN(s.request, bench::RunRequestFromJson(m.value(
                                            "request", nlohmann::json())));
  return s;
}

}  // namespace

int RunWorker() {
  FILE* out = bench::TakeResponseStream();
  if (out == nullptr) return Fail(Status::FromErrno("worker: stdout"));
  const std::optional<nlohmann::json> first = NextMessage();
  if (!first) return Fail(Status::Usage("worker: no start message"));
  auto start = ParseStart(*first);
  if (!start.ok()) {
    Respond(out, bench::ErrorResponse(start.status()));
    return Fail(start.status());
  }
  const bench::RunRequest& a = start->request;
  // A stop signal (the parent's SIGTERM) ends its probes and stops a server
  // its backend started before the worker exits.
  InstallStopHandler("bench worker " + start->backend, StopRole::kLeaf);
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) {
    Respond(out, bench::ErrorResponse(ds.status()));
    return Fail(ds.status());
  }
  bench::WorkerOptions o;
  o.lazy_needed = std::find(a.modes.begin(), a.modes.end(),
                            results::kModeColdLazy) != a.modes.end();
  o.allow_drop_caches = a.evict == "drop_caches";
  o.run_origin_ns = start->run_origin_ns;
  o.check.samples = a.check_samples;
  o.check.corrupt_expectations = CorruptExpectationsHook();
  o.cache_bytes = a.cache_mib << 20;
  o.draw_seed = a.draw_seed;
  o.probe_command = {"/proc/self/exe", std::string(kBenchProbeCommand)};
  o.open_live = MakeLiveOpener();
  o.corrupt_writing_checks = CorruptWritingChecksHook();
  bench::Worker worker(ds.value(), start->backend, MakeOpener(ds.value()), o);
  Respond(out, {{"ok", true}, {"result", nullptr}});
  for (auto req = NextMessage(); req; req = NextMessage()) {
    Respond(out, req->is_discarded()
                     ? bench::ErrorResponse(
                           Status::Usage("worker: a request that is not JSON"))
                     : worker.Handle(*req));
  }
  return 0;
}

int RunProbe() {
  const std::optional<nlohmann::json> message = NextMessage();
  if (!message) return Fail(Status::Usage("startup probe: no message"));
  auto request = bench::ParseProbeMessage(*message);
  if (!request.ok()) return Fail(request.status());
  auto ds = datagen::Dataset::Open(request->dir);
  if (!ds.ok()) return Fail(ds.status());
  OpenOptions options;
  options.lazy_metadata = request->lazy_metadata;
  options.verify_checksums = true;
  nlohmann::json r =
      bench::RunStartupProbe(MakeOpener(ds.value()), request->backend,
                             request->table, request->key, options);
  std::printf("%s\n", r.dump().c_str());
  std::fflush(stdout);
  return ExitCodeOf(bench::ResponseStatus(r));
}

}  // namespace flatbench::cli
