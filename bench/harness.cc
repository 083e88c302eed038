#include "bench/harness.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "bench/counters.h"
#include "bench/eviction.h"
#include "bench/io_stats.h"
#include "bench/key_plan.h"
#include "bench/pass.h"

namespace flatbench::bench {
namespace {

using datagen::KeyKind;

class SessionReader : public PassReader {
 public:
  SessionReader(std::unique_ptr<ReadSession> session, Table table,
                const KeyPlan& plan, int thread)
      : session_(std::move(session)),
        table_(table),
        keys_(plan.Buffer(thread)),
        key_size_(plan.key_size()) {}

  Status Read(uint64_t i, bool* found) override {
    std::string_view value;
    Status st = session_->Get(
        table_, std::string_view(keys_ + i * key_size_, key_size_), found,
        &value);
    benchmark::DoNotOptimize(value.data());
    benchmark::DoNotOptimize(value.size());
    return st;
  }

 private:
  std::unique_ptr<ReadSession> session_;
  Table table_;
  const char* keys_;
  size_t key_size_;
};

std::string SettingsJson(const Settings& settings) {
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [k, v] : settings) o[k] = v;
  return o.dump();
}

struct Opened {
  std::unique_ptr<Backend> backend;
  double open_seconds = 0;
  uint64_t metadata_bytes = 0;
  uint64_t rss_after_open = 0;
};

Result<Opened> TimedOpen(const Opener& open, const std::string& name,
                         const OpenOptions& options) {
  Opened o;
  auto start = std::chrono::steady_clock::now();
  auto be = open(name, options);
  auto end = std::chrono::steady_clock::now();
  if (!be.ok()) return be.status();
  o.backend = std::move(be).value();
  o.open_seconds = std::chrono::duration<double>(end - start).count();
  o.metadata_bytes = o.backend->ResidentMetadataBytes();
  o.rss_after_open = RssBytes();
  return o;
}

Result<Residency> Resident(const std::string& dir) {
  auto files = ListFiles(dir);
  if (!files.ok()) return files.status();
  return MeasureResidency(files.value());
}

// Sanity-checks every open mode the run will measure. Runs before any
// eviction, and never between an eviction and its pass.
Status SanityCheck(const datagen::Dataset& ds, const std::string& name,
                   const Opener& open, const BenchOptions& options,
                   Settings* settings, uint64_t* checked) {
  bool lazy_needed = std::find(options.modes.begin(), options.modes.end(),
                               Mode::kColdLazy) != options.modes.end();
  for (bool lazy : {false, true}) {
    if (lazy && !lazy_needed) continue;
    OpenOptions oo;
    oo.lazy_metadata = lazy;
    auto be = open(name, oo);
    if (!be.ok()) return be.status();
    if (!lazy) *settings = be.value()->Describe();
    datagen::CheckReport report;
    Status st =
        datagen::CheckSample(*be.value(), ds.spec(), options.check, &report);
    if (!st.ok()) {
      return st.WithContext(std::string("sanity check") +
                            (lazy ? " (lazy metadata)" : ""));
    }
    *checked += report.checked;
  }
  return Status::Ok();
}

}  // namespace

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kWarm:
      return "warm";
    case Mode::kCold:
      return "cold";
    case Mode::kColdLazy:
      return "cold-lazy";
  }
  return "?";
}

bool ParseMode(std::string_view name, Mode* out) {
  for (Mode m : {Mode::kWarm, Mode::kCold, Mode::kColdLazy}) {
    if (name == ModeName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

std::string CellName(const std::string& backend, Table table, KeyKind kind,
                     Mode mode, int threads, int rep) {
  return backend + "/" + TableName(table) + "/" + datagen::KeyKindName(kind) +
         "/" + ModeName(mode) + "/threads:" + std::to_string(threads) +
         "/rep:" + std::to_string(rep);
}

Result<BackendRun> RunBackend(const datagen::Dataset& ds,
                              const std::string& name, const Opener& open,
                              const BenchOptions& options) {
  auto build = ds.Build(name);
  if (!build.ok()) return build.status();
  const std::string dir = ds.BackendDir(name);
  const std::string prefix = "flatbench.backend." + name + ".";
  BackendRun run;
  nlohmann::json extra = nlohmann::json::object();
  extra[prefix + "build_seconds"] = std::to_string(build->build_seconds);
  extra[prefix + "disk_bytes"] = std::to_string(build->disk_bytes);

  Settings settings;
  uint64_t checked = 0;
  run.sanity = SanityCheck(ds, name, open, options, &settings, &checked);
  extra[prefix + "settings"] = SettingsJson(settings);
  if (!run.sanity.ok()) {
    extra[prefix + "sanity"] = "failed: " + run.sanity.message();
    run.context = extra;
    return run;
  }
  extra[prefix + "sanity"] = "passed (" + std::to_string(checked) + " keys)";

  std::string evict_method = "none";
  std::map<std::pair<int, int>, uint64_t> next_index;
  for (Mode mode : options.modes) {
    const bool warm = mode == Mode::kWarm;
    OpenOptions oo;
    oo.lazy_metadata = mode == Mode::kColdLazy;
    Opened opened;
    if (warm) {
      auto o = TimedOpen(open, name, oo);
      if (!o.ok()) return o.status();
      opened = std::move(o).value();
    }
    for (Table table : options.tables) {
      for (KeyKind kind : options.kinds) {
        if (table == Table::kAccount && kind == KeyKind::kMissLiveAccount) {
          continue;
        }
        if (table == Table::kStorage && ds.spec().slots_per_account == 0) {
          continue;
        }
        datagen::Sampler sampler(ds.spec(), table, kind,
                                 DrawSeed(options.draw_seed, table, kind));
        for (int threads : options.threads) {
          const uint64_t n = static_cast<uint64_t>(threads);
          uint64_t rpt = std::max<uint64_t>(1, options.reads_per_pass / n);
          rpt = std::min(rpt, sampler.space() / n);
          if (rpt == 0) {
            return Status::Usage("--threads " + std::to_string(threads) +
                                 ": more threads than " + TableName(table) +
                                 " " + datagen::KeyKindName(kind) + " keys");
          }
          for (int rep = 0; rep < options.repetitions; ++rep) {
            uint64_t& first =
                next_index[{static_cast<int>(table), static_cast<int>(kind)}];
            KeyPlan plan(sampler, table, first, threads, rpt);
            first = (first + n * rpt) % sampler.space();

            CellFacts facts;
            facts.threads = threads;
            facts.repetition = rep;
            facts.distinct_keys = n * rpt;
            if (warm) {
              auto files = ListFiles(dir);
              if (!files.ok()) return files.status();
              FLATBENCH_RETURN_IF_ERROR(MakeResident(files.value()));
            } else {
              opened = Opened();  // Close: no mapping may hold pages.
              auto files = ListFiles(dir);
              if (!files.ok()) return files.status();
              EvictMethod method;
              FLATBENCH_RETURN_IF_ERROR(Evict(files.value(), &method));
              evict_method = EvictMethodName(method);
              auto after = Resident(dir);
              if (!after.ok()) return after.status();
              facts.resident_after_eviction = after->fraction();
              facts.eviction_verified =
                  after->fraction() <= options.eviction_bound;
              auto o = TimedOpen(open, name, oo);
              if (!o.ok()) return o.status();
              opened = std::move(o).value();
            }
            auto before = Resident(dir);
            if (!before.ok()) return before.status();
            facts.resident_before = before->fraction();
            facts.file_pages = before->total_pages;
            if (warm) {
              facts.eviction_verified =
                  before->fraction() >= options.warm_bound;
            }
            facts.open_seconds = opened.open_seconds;
            facts.metadata_bytes = opened.metadata_bytes;
            facts.rss_after_open = opened.rss_after_open;

            PassSpec spec;
            spec.name = CellName(name, table, kind, mode, threads, rep);
            spec.threads = threads;
            spec.reads_per_thread = rpt;
            Backend* backend = opened.backend.get();
            spec.make_reader =
                [backend, table,
                 &plan](int t) -> Result<std::unique_ptr<PassReader>> {
              auto session = backend->NewSession();
              if (!session.ok()) return session.status();
              return std::unique_ptr<PassReader>(
                  std::make_unique<SessionReader>(std::move(session).value(),
                                                  table, plan, t));
            };
            auto pass = RunPass(spec);
            if (!pass.ok()) return pass.status();
            if (warm) {
              // Something else (another process's drop_caches, memory
              // pressure) may have evicted pages during the pass.
              auto after = Resident(dir);
              if (!after.ok()) return after.status();
              facts.resident_after_pass = after->fraction();
              facts.eviction_verified = facts.eviction_verified &&
                                        after->fraction() >= options.warm_bound;
            }
            if (run.context.empty()) run.context = pass->context;
            nlohmann::json entry = pass->entry;
            AddCounters(pass.value(), facts, &entry);
            entry["label"] = warm ? "warm: files read through"
                                  : std::string("evicted by ") + evict_method;
            if (options.progress) {
              std::fprintf(stderr, "bench: %s\n", SummaryLine(entry).c_str());
            }
            run.benchmarks.push_back(std::move(entry));
          }
        }
      }
    }
  }
  extra[prefix + "eviction"] = evict_method;
  for (auto& [k, v] : extra.items()) run.context[k] = v;
  return run;
}

}  // namespace flatbench::bench
