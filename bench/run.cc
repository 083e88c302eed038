#include "bench/run.h"

#include <cstdio>
#include <set>

#include "bench/counters.h"
#include "bench/pass.h"
#include "common/files.h"
#include "common/results_schema.h"

namespace flatbench::bench {
namespace {

// A failed call as a Status: transport errors and worker errors alike.
Result<nlohmann::json> Call(WorkerChannel* ch, const nlohmann::json& req) {
  FLATBENCH_ASSIGN_OR_RETURN(auto r, ch->Call(req));
  Status st = ResponseStatus(r);
  if (!st.ok()) return st;
  return r.value("result", nlohmann::json());
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
    auto it = channels.find(b);
    if (it == channels.end()) {
      return Status::Usage("no worker for backend " + b);
    }
    auto hello = Call(it->second, {{"op", "hello"}});
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

  ScheduleOptions so = options.schedule;
  so.backends = active;
  FLATBENCH_ASSIGN_OR_RETURN(auto phases, MakeSchedule(ds.spec(), so));

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

  size_t total = 0;
  for (const auto& p : phases) total += p.steps.size();
  std::set<std::string> failed;
  nlohmann::json benchmarks = nlohmann::json::array();
  size_t done = 0;
  auto fail = [&](const std::string& b, const Status& st) {
    failed.insert(b);
    ctx[results::BackendKey(b, results::kError)] = st.message();
    if (out.first_error.ok()) out.first_error = st;
    std::fprintf(stderr, "flatbench: %s: %s\n", b.c_str(),
                 st.message().c_str());
  };
  for (const auto& phase : phases) {
    const bool warm = phase.mode == Mode::kWarm;
    std::set<std::string> warm_backends;
    if (warm) {
      for (const auto& s : phase.steps) warm_backends.insert(s.backend);
      for (const auto& b : warm_backends) {
        if (failed.count(b)) continue;
        if (options.progress) {
          std::fprintf(stderr, "bench: %s: warm: holding files resident\n",
                       b.c_str());
        }
        auto r = Call(channels.at(b), {{"op", "warm_begin"}});
        if (!r.ok()) fail(b, r.status());
      }
    }
    for (const auto& step : phase.steps) {
      ++done;
      if (failed.count(step.backend)) continue;
      auto r = Call(channels.at(step.backend),
                    {{"op", "step"}, {"step", StepToJson(step)}});
      if (!r.ok()) {
        fail(step.backend, r.status());
        continue;
      }
      for (auto& e : r.value()) {
        e[std::string(results::kPassOrder.name)] =
            static_cast<double>(benchmarks.size());
        if (options.progress) {
          std::fprintf(stderr, "bench [%zu/%zu] %s\n", done, total,
                       SummaryLine(e).c_str());
        }
        benchmarks.push_back(std::move(e));
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
