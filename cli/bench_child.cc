#include "cli/bench_child.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "bench/child_process.h"
#include "bench/startup.h"
#include "bench/worker.h"
#include "cli/exit.h"
#include "cli/run_options.h"
#include "cli/test_hooks.h"
#include "common/hex.h"
#include "common/results_schema.h"
#include "common/stop_signals.h"
#include "datagen/dataset_dir.h"

namespace flatbench::cli {

int RunWorker(const BenchArgs& a) {
  // A stop signal (the parent's SIGTERM) ends its probes and stops a server
  // its backend started before the worker exits.
  InstallStopHandler("bench worker " + a.worker, StopRole::kLeaf);
  FILE* out = TakeResponseStream();
  if (out == nullptr) return Fail(Status::FromErrno("worker: stdout"));
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  bench::WorkerOptions o;
  o.lazy_needed = std::find(a.modes.begin(), a.modes.end(),
                            results::kModeColdLazy) != a.modes.end();
  o.allow_drop_caches = a.evict == "drop_caches";
  o.run_origin_ns = a.run_origin_ns;
  o.check.samples = a.check_samples;
  o.check.corrupt_expectations = CorruptExpectationsHook();
  o.cache_bytes = a.cache_mib << 20;
  bench::RunRequest probe;
  probe.dir = a.dir;
  probe.out = "-";
  o.probe_command = {"/proc/self/exe"};
  for (std::string& arg : BenchCommandLine(probe)) {
    o.probe_command.push_back(std::move(arg));
  }
  o.probe_command.insert(o.probe_command.end(), {"--startup-probe", a.worker});
  bench::Worker worker(ds.value(), a.worker, MakeOpener(ds.value()), o);
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&buf, &cap, stdin)) > 0) {
    nlohmann::json req = nlohmann::json::parse(
        std::string(buf, static_cast<size_t>(n)), nullptr, false);
    nlohmann::json resp = req.is_discarded()
                              ? bench::ErrorResponse(Status::Usage(
                                    "worker: a request that is not JSON"))
                              : worker.Handle(req);
    std::fputs(resp.dump().c_str(), out);
    std::fputc('\n', out);
    std::fflush(out);
  }
  std::free(buf);
  return 0;
}

int RunProbe(const BenchArgs& a) {
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  std::string key;
  if (!FromHex(a.probe_key, &key) || key.size() != kAccountKeySize) {
    return Fail(Status::Usage("--probe-key: not a " +
                              std::to_string(kAccountKeySize) +
                              "-byte hex account key"));
  }
  OpenOptions options;
  options.lazy_metadata = a.probe_lazy;
  options.verify_checksums = true;
  nlohmann::json r = bench::RunStartupProbe(
      MakeOpener(ds.value()), a.startup_probe, Table::kAccount, key, options);
  std::printf("%s\n", r.dump().c_str());
  std::fflush(stdout);
  return ExitCodeOf(bench::ResponseStatus(r));
}

}  // namespace flatbench::cli
