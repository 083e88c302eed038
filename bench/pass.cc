#include "bench/pass.h"

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <barrier>
#include <cassert>
#include <map>
#include <mutex>
#include <sstream>

#include "bench/inflight.h"

namespace flatbench::bench {
namespace {

// State shared by the pass's threads. Each thread writes only its own slots
// during the timed loop; std::barrier orders the hand-offs.
struct Shared {
  explicit Shared(const PassSpec& s)
      : spec(s),
        sync(s.threads),
        hist(static_cast<size_t>(s.threads)),
        used(static_cast<size_t>(s.threads), 0),
        found(static_cast<size_t>(s.threads), 0),
        loop_start(static_cast<size_t>(s.threads), 0),
        loop_end(static_cast<size_t>(s.threads), 0),
        errors(static_cast<size_t>(s.threads)),
        costs(static_cast<size_t>(s.threads)) {}
  const PassSpec& spec;
  std::barrier<> sync;
  std::vector<Histogram> hist;
  std::vector<uint64_t> used, found, loop_start, loop_end;
  std::vector<Status> errors;
  std::vector<ReadCost> costs;
  IoSnapshot before, after;
  std::vector<int> server_pids;
  std::map<int, IoSnapshot> servers_before, servers_after;
  uint64_t rss_after = 0;
};

void PassBody(Shared* sh, benchmark::State& st) {
  const size_t t = static_cast<size_t>(st.thread_index());
  std::unique_ptr<PassReader> reader;
  {
    auto made = sh->spec.make_reader(static_cast<int>(t));
    if (made.ok()) {
      reader = std::move(made).value();
    } else {
      sh->errors[t] = made.status();
    }
  }
  sh->sync.arrive_and_wait();
  bool any_failed = false;
  for (const auto& e : sh->errors) any_failed = any_failed || !e.ok();
  // Counters bracket the timed loop, not the readers' creation; the
  // process's own are taken innermost.
  if (t == 0) {
    if (sh->spec.server_processes) {
      sh->server_pids = sh->spec.server_processes();
    }
    sh->servers_before = TakeProcessSnapshots(sh->server_pids);
    if (sh->spec.on_loop_start) sh->spec.on_loop_start();
    sh->before = TakeIoSnapshot();
  }
  sh->sync.arrive_and_wait();
  if (any_failed) st.SkipWithError("reader creation failed");

  Histogram& hist = sh->hist[t];
  uint64_t i = 0, found = 0, start = 0, end = 0;
  const uint64_t last = sh->spec.reads_per_thread - 1;
  // google-benchmark's loop opens and closes with a barrier across the
  // threads, so the loop's own start and end would hide threads that
  // finished early: the thread's time span runs from its first read's start
  // (read 0 is always timed) to its last read's end, or to the end of the
  // last timed read before a failed one.
  for (auto _ : st) {
    bool f = false;
    Status s;
    if (i % kLatencySampleEvery == 0) {
      const uint64_t t0 = NowNs();
      s = reader->Read(i, &f);
      const uint64_t t1 = NowNs();
      if (i == 0) start = t0;
      end = t1;
      hist.Record(t1 - t0);
    } else {
      s = reader->Read(i, &f);
    }
    if (i == last) end = NowNs();
    benchmark::DoNotOptimize(f);
    found += f ? 1 : 0;
    if (!s.ok()) [[unlikely]] {
      sh->errors[t] = s;
      st.SkipWithError("read failed");
      break;
    }
    ++i;
  }
  sh->loop_start[t] = start;
  sh->loop_end[t] = end;
  sh->used[t] = i;
  sh->found[t] = found;
  sh->sync.arrive_and_wait();
  if (t == 0) {
    sh->after = TakeIoSnapshot();
    if (sh->spec.on_loop_end) sh->spec.on_loop_end();
    sh->servers_after = TakeProcessSnapshots(sh->server_pids);
    sh->rss_after = MemoryBytes(sh->server_pids);
  }
  sh->sync.arrive_and_wait();
  // Outside every bracket of the pass's counters: it may allocate.
  if (reader != nullptr) sh->costs[t] = reader->TakeReadCost();
  reader.reset();  // On the thread that created it.
}

}  // namespace

uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<uint64_t>(ts.tv_nsec);
}

nlohmann::json GoogleBenchmarkContext() {
  class Nothing : public PassReader {
   public:
    Status Read(uint64_t, bool* found) override {
      *found = true;
      return Status::Ok();
    }
  };
  PassSpec spec;
  spec.name = "context";
  spec.threads = 1;
  spec.reads_per_thread = 1;
  spec.make_reader = [](int) -> Result<std::unique_ptr<PassReader>> {
    return std::unique_ptr<PassReader>(std::make_unique<Nothing>());
  };
  auto pass = RunPass(spec);
  return pass.ok() ? pass->context : nlohmann::json::object();
}

double ClockPairCostNs() {
  std::vector<double> runs;
  constexpr int kPairs = 200'000;
  for (int r = 0; r < 5; ++r) {
    uint64_t sink = 0;
    const uint64_t start = NowNs();
    for (int i = 0; i < kPairs; ++i) {
      const uint64_t a = NowNs();
      const uint64_t b = NowNs();
      sink += b - a;
    }
    const uint64_t end = NowNs();
    benchmark::DoNotOptimize(sink);
    runs.push_back(static_cast<double>(end - start) / kPairs);
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

Result<PassResult> RunPass(const PassSpec& spec) {
  assert(spec.threads > 0 && spec.reads_per_thread > 0);
  // google-benchmark keeps one global registry; RunPass owns it while it
  // runs, so passes are serialized.
  static std::mutex registry_mutex;
  std::lock_guard<std::mutex> lock(registry_mutex);

  Shared shared(spec);
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark(
      spec.name.c_str(),
      [&shared](benchmark::State& st) { PassBody(&shared, st); })
      ->Iterations(
          static_cast<benchmark::IterationCount>(spec.reads_per_thread))
      ->Repetitions(1)
      ->Threads(spec.threads)
      ->UseRealTime();
  std::ostringstream out, err;
  benchmark::JSONReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();

  for (const auto& e : shared.errors) {
    if (!e.ok()) return e.WithContext(spec.name);
  }
  nlohmann::json doc = nlohmann::json::parse(out.str(), nullptr, false);
  if (doc.is_discarded() || !doc.contains("benchmarks") ||
      doc["benchmarks"].size() != 1) {
    return Status::IOError(
        spec.name + ": google-benchmark produced no result: " + err.str());
  }
  PassResult r;
  r.context = doc["context"];
  r.entry = doc["benchmarks"][0];
  r.entry["name"] = spec.name;
  r.entry["run_name"] = spec.name;
  if (r.entry.value("error_occurred", false)) {
    return Status::IOError(spec.name + ": " +
                           r.entry.value("error_message", std::string("?")));
  }
  uint64_t first = UINT64_MAX, last = 0;
  std::vector<LoopSpan> loops;
  for (size_t t = 0; t < shared.hist.size(); ++t) {
    r.latency.Merge(shared.hist[t]);
    r.reads += shared.used[t];
    r.found += shared.found[t];
    if (shared.used[t] == 0) continue;
    loops.push_back({shared.loop_start[t], shared.loop_end[t]});
    first = std::min(first, shared.loop_start[t]);
    last = std::max(last, shared.loop_end[t]);
  }
  const double wall_ns = last > first ? static_cast<double>(last - first) : 0;
  r.wall_seconds = wall_ns / 1e9;
  r.mean_inflight = MeanInFlight(loops);
  r.peak_inflight = PeakInFlight(loops);
  r.before = shared.before;
  r.after = shared.after;
  r.servers = ProcessDelta(shared.servers_before, shared.servers_after);
  r.server_processes = shared.server_pids.size();
  r.rss_after_pass = shared.rss_after;
  for (const ReadCost& cost : shared.costs) {
    for (const auto& [name, count] : cost) r.read_cost[name] += count;
  }
  return r;
}

}  // namespace flatbench::bench
