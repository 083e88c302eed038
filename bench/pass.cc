#include "bench/pass.h"

#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <barrier>
#include <cassert>
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
        intervals(static_cast<size_t>(s.threads)),
        used(static_cast<size_t>(s.threads), 0),
        found(static_cast<size_t>(s.threads), 0),
        errors(static_cast<size_t>(s.threads)) {
    for (auto& v : intervals) v.resize(s.reads_per_thread);
  }
  const PassSpec& spec;
  std::barrier<> sync;
  std::vector<Histogram> hist;
  std::vector<std::vector<ReadInterval>> intervals;
  std::vector<uint64_t> used, found;
  std::vector<Status> errors;
  IoSnapshot before, after;
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
  // Counters bracket the timed loop, not the readers' creation.
  if (t == 0) sh->before = TakeIoSnapshot();
  sh->sync.arrive_and_wait();
  if (any_failed) st.SkipWithError("reader creation failed");

  Histogram& hist = sh->hist[t];
  ReadInterval* iv = sh->intervals[t].data();
  uint64_t i = 0, found = 0;
  for (auto _ : st) {
    bool f = false;
    const uint64_t t0 = NowNs();
    Status s = reader->Read(i, &f);
    const uint64_t t1 = NowNs();
    benchmark::DoNotOptimize(f);
    iv[i] = {t0, t1};
    hist.Record(t1 - t0);
    found += f ? 1 : 0;
    if (!s.ok()) {
      sh->errors[t] = s;
      st.SkipWithError("read failed");
      break;
    }
    ++i;
  }
  sh->used[t] = i;
  sh->found[t] = found;
  sh->sync.arrive_and_wait();
  if (t == 0) {
    sh->after = TakeIoSnapshot();
    sh->rss_after = RssBytes();
  }
  sh->sync.arrive_and_wait();
  reader.reset();  // On the thread that created it.
}

}  // namespace

uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<uint64_t>(ts.tv_nsec);
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
  for (size_t t = 0; t < shared.hist.size(); ++t) {
    r.latency.Merge(shared.hist[t]);
    r.reads += shared.used[t];
    r.found += shared.found[t];
    if (shared.used[t] > 0) {
      first = std::min(first, shared.intervals[t][0].start_ns);
      last = std::max(last, shared.intervals[t][shared.used[t] - 1].end_ns);
    }
  }
  r.wall_seconds = last > first ? static_cast<double>(last - first) / 1e9 : 0;
  r.peak_inflight = PeakInFlight(shared.intervals, shared.used);
  r.before = shared.before;
  r.after = shared.after;
  r.rss_after_pass = shared.rss_after;
  return r;
}

}  // namespace flatbench::bench
