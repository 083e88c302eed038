#include "bench/worker.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "bench/batch_pass.h"
#include "bench/counters.h"
#include "bench/device.h"
#include "bench/disk_inflight.h"
#include "bench/io_stats.h"
#include "bench/key_plan.h"
#include "bench/page_cache.h"
#include "bench/pass.h"
#include "bench/scan_pass.h"
#include "bench/worker_state.h"
#include "common/results_schema.h"

namespace flatbench::bench {
namespace {

class SessionReader : public PassReader {
 public:
  // `count_cost`: count what the reads cost in the backend's own counts
  // (ReadSession::StartReadCost), from here, on the reading thread.
  SessionReader(std::unique_ptr<ReadSession> session, Table table,
                const KeyPlan& plan, int thread, bool count_cost)
      : session_(std::move(session)),
        table_(table),
        keys_(plan.Buffer(thread)),
        key_size_(plan.key_size()) {
    if (count_cost) session_->StartReadCost();
  }

  Status Read(uint64_t i, bool* found) override {
    std::string_view value;
    Status st = session_->Get(
        table_, std::string_view(keys_ + i * key_size_, key_size_), found,
        &value);
    benchmark::DoNotOptimize(value.data());
    benchmark::DoNotOptimize(value.size());
    return st;
  }
  ReadCost TakeReadCost() override { return session_->TakeReadCost(); }

 private:
  std::unique_ptr<ReadSession> session_;
  Table table_;
  const char* keys_;
  size_t key_size_;
};

}  // namespace

Worker::Worker(const datagen::Dataset& dataset, std::string backend,
               Opener open, WorkerOptions options)
    : s_(std::make_unique<State>(dataset, std::move(backend), std::move(open),
                                 std::move(options))) {
  s_->dir = s_->ds.BackendDir(s_->name);
}

Worker::~Worker() = default;

Result<nlohmann::json> Worker::Hello() {
  State& s = *s_;
  FLATBENCH_ASSIGN_OR_RETURN(auto build, s.ds.Build(s.name));
  FLATBENCH_ASSIGN_OR_RETURN(s.files, ListFiles(s.dir));
  nlohmann::json c = nlohmann::json::object();
  c[results::BackendKey(s.name, results::kBuildSeconds)] = build.build_seconds;
  c[results::BackendKey(s.name, results::kDiskBytes)] = build.disk_bytes;
  if (!build.shape.empty()) {
    c[results::BackendKey(s.name, results::kShape)] =
        nlohmann::json::parse(build.shape);
  }

  // Sanity first, before any eviction, with each open mode measured.
  uint64_t checked = 0;
  Status sanity;
  for (bool lazy : {false, true}) {
    if (lazy && !s.o.lazy_needed) continue;
    FLATBENCH_ASSIGN_OR_RETURN(auto be, s.open(s.name, s.Options(lazy)));
    if (!lazy) {
      nlohmann::json settings = nlohmann::json::object();
      for (const auto& [k, v] : be->Describe()) settings[k] = v;
      c[results::BackendKey(s.name, results::kSettings)] = settings;
      nlohmann::json shape = nlohmann::json::object();
      for (const auto& [k, v] : be->OpenShape()) shape[k] = v;
      if (!shape.empty()) {
        c[results::BackendKey(s.name, results::kOpenShape)] = shape;
      }
      // What the cold open preloads, in the backend's own words.
      if (settings.contains("preload")) {
        c[results::BackendKey(s.name, results::kPreload)] = settings["preload"];
      }
      nlohmann::json data_files = nlohmann::json::object();
      for (int t = 0; t < kNumTables; ++t) {
        const Table table = static_cast<Table>(t);
        std::vector<std::string> df = be->DataFiles(table);
        if (df.empty()) df = s.files;
        std::string joined;
        for (const auto& f : df) joined += (joined.empty() ? "" : ", ") + f;
        data_files[TableName(table)] = joined;
        s.table_files[t] = df;
        FLATBENCH_ASSIGN_OR_RETURN(auto dev, DeviceFiles::Open(df));
        if (!dev->supported()) {
          s.device_status = "skipped: " + dev->reason();
        }
        s.device[t] = std::move(dev);
      }
      c[results::BackendKey(s.name, results::kDataFiles)] = data_files;
      if (s.device_status == "not measured") {
        s.device_status =
            "measured: 4 KiB O_DIRECT random reads, extent-weighted, inside "
            "the files holding each table, before each cold hit pass";
      }
    }
    datagen::CheckReport report;
    sanity = datagen::CheckSample(*be, s.ds.spec(), s.o.check, &report);
    if (!sanity.ok()) {
      sanity = sanity.WithContext(std::string("sanity check") +
                                  (lazy ? " (lazy metadata)" : ""));
      break;
    }
    checked += report.checked;
  }
  s.sanity_passed = sanity.ok();
  c[results::BackendKey(s.name, results::kSanityPassed)] = sanity.ok();
  c[results::BackendKey(s.name, results::kSanityKeys)] = checked;
  if (!sanity.ok())
    c[results::BackendKey(s.name, results::kSanityError)] = sanity.message();
  c[results::BackendKey(s.name, results::kDeviceStatus)] = s.device_status;
  return c;
}

Status Worker::BeginWarm() {
  State& s = *s_;
  s.opened = Opened();
  s.hold.reset();
  FLATBENCH_RETURN_IF_ERROR(MakeResident(s.files));
  FLATBENCH_ASSIGN_OR_RETURN(s.hold, ResidentHold::Acquire(s.files));
  s.warm_lock = s.hold->method();
  return s.OpenWarm();
}

void Worker::EndWarm() {
  s_->opened = Opened();
  s_->hold.reset();
}

Status Worker::State::PrepareCold(const Step& step, CellFacts* facts,
                                  nlohmann::json* entries) {
  opened = Opened();  // Close: no mapping may hold pages.
  EvictMethod method;
  FLATBENCH_RETURN_IF_ERROR(Evict(files, &method, o.allow_drop_caches));
  evict_method = EvictMethodName(method);
  FLATBENCH_ASSIGN_OR_RETURN(auto after, MeasureResidency(files));
  facts->resident_after_eviction = after.fraction();
  facts->eviction_verified = after.fraction() <= o.eviction_bound;
  if (step.device_reads_per_thread > 0) {
    FLATBENCH_ASSIGN_OR_RETURN(auto dev, DeviceCell(step));
    if (!dev.is_null()) {
      // A batch's device cell runs at depth batch_size: the parent gives
      // the batch entry its rate (batch_pass.h), not io_efficiency.
      if (step.cell.op != Op::kBatch) {
        facts->device_reads_per_s = dev["reads_per_s"].get<double>();
      }
      entries->push_back(std::move(dev));
    }
  }
  return TimedOpen(step.mode == Mode::kColdLazy);
}

Status Worker::State::MeasureBefore(bool warm, CellFacts* facts) {
  // Files the hold could not map are read in again: idle page cache may
  // have been reclaimed since the previous pass.
  if (warm && hold) FLATBENCH_RETURN_IF_ERROR(hold->Refresh());
  FLATBENCH_ASSIGN_OR_RETURN(auto before, MeasureResidency(files));
  facts->resident_before = before.fraction();
  facts->file_pages = before.total_pages;
  facts->preloaded_bytes = before.resident_pages * 4096;
  if (warm) facts->eviction_verified = before.fraction() >= o.warm_bound;
  facts->open_seconds = opened.open_seconds;
  facts->metadata_bytes = opened.metadata_bytes;
  facts->rss_after_open = opened.rss_after_open;
  return Status::Ok();
}

Status Worker::State::MeasureAfter(bool warm, CellFacts* facts) {
  if (!warm) {
    opened = Opened();
    return Status::Ok();
  }
  // Something else (another process's drop_caches, memory pressure) may
  // have evicted pages during the pass.
  FLATBENCH_ASSIGN_OR_RETURN(auto after, MeasureResidency(files));
  facts->resident_after_pass = after.fraction();
  facts->eviction_verified =
      facts->eviction_verified && after.fraction() >= o.warm_bound;
  return Status::Ok();
}

namespace {

// What a pass's readers count beside the pass itself: scan and batch
// tallies per thread, and a batch's in-flight count on the data device.
struct StepTallies {
  std::vector<ScanTally> scans;
  std::vector<BatchTally> batches;
  std::unique_ptr<DiskInflightSampler> disk;
  DiskInflight disk_seen;
  // The data device's reads completed at the loop's two ends.
  std::unique_ptr<DeviceReadCounter> device;
  std::optional<uint64_t> device_before, device_after;
};

// The pass's readers: one session per thread, reading the step's keys as
// single gets, scans or batches.
PassSpec MakePassSpec(const Step& step, const std::string& name,
                      Backend* backend, const KeyPlan& plan,
                      StepTallies* tallies) {
  PassSpec spec;
  spec.name = PassName(CellNameOf(name, step.cell, step.mode, step.repetition));
  spec.threads = step.cell.threads;
  spec.reads_per_thread = step.reads_per_thread;
  spec.server_processes = [backend] { return backend->ServerProcesses(); };
  spec.on_loop_start = [tallies] {
    if (tallies->disk && tallies->disk->known()) tallies->disk->Start();
    if (tallies->device) tallies->device_before = tallies->device->Now();
  };
  spec.on_loop_end = [tallies] {
    if (tallies->device) tallies->device_after = tallies->device->Now();
    if (tallies->disk && tallies->disk->known()) {
      tallies->disk_seen = tallies->disk->Stop();
    }
  };
  const Table table = step.cell.table;
  spec.make_reader = [&step, &name, &plan, backend, table,
                      tallies](int t) -> Result<std::unique_ptr<PassReader>> {
    FLATBENCH_ASSIGN_OR_RETURN(auto session, backend->NewSession());
    const size_t i = static_cast<size_t>(t);
    if (step.cell.op == Op::kScan) {
      return std::unique_ptr<PassReader>(
          std::make_unique<ScanReader>(std::move(session), name, table, plan, t,
                                       step.scan_length, &tallies->scans[i]));
    }
    if (step.cell.op == Op::kBatch) {
      return std::unique_ptr<PassReader>(std::make_unique<BatchReader>(
          std::move(session), name, table, plan, t, step.batch_size,
          step.reads_per_thread, &tallies->batches[i]));
    }
    // Point reads in the cold modes count their cost in the backend's own
    // counts (RESULTS_FORMAT.md, "Backend counters"); warm passes do not,
    // so the counting costs the CPU-bound cells nothing.
    const bool count_cost = step.mode != Mode::kWarm;
    return std::unique_ptr<PassReader>(std::make_unique<SessionReader>(
        std::move(session), table, plan, t, count_cost));
  };
  return spec;
}

}  // namespace

// The phases: the keys planned; for a cold step the files evicted, the
// device cell measured and the store opened; residency measured; the pass
// run; its entry given its counters and label.
Result<nlohmann::json> Worker::RunStep(const Step& step) {
  State& s = *s_;
  const bool warm = step.mode == Mode::kWarm;
  if (warm && s.opened.backend == nullptr) {
    return Status::Usage("a warm step before warm_begin");
  }
  if (step.cell.op == Op::kStartup) return s.StartupStep(step);
  if (step.cell.op == Op::kWriting) return s.WritingStep(step);
  const Table table = step.cell.table;
  const bool batch = step.cell.op == Op::kBatch;
  if (batch && step.batch_size == 0) {
    return Status::Usage("a batch step without a batch size");
  }
  // Keys per operation: a batch call reads batch_size of them.
  const uint64_t per_op = batch ? step.batch_size : 1;
  datagen::Sampler sampler(s.ds.spec(), table, step.cell.kind,
                           CellDrawSeed(s.o.draw_seed, step.cell));
  KeyPlan plan(sampler, table, step.first_index, step.cell.threads,
               step.reads_per_thread * per_op);
  nlohmann::json entries = nlohmann::json::array();
  CellFacts facts;
  facts.threads = step.cell.threads;
  facts.repetition = step.repetition;
  facts.distinct_keys =
      static_cast<uint64_t>(step.cell.threads) * step.reads_per_thread * per_op;
  if (warm) {
    facts.locked_bytes = s.hold ? s.hold->locked_bytes() : 0;
  } else {
    FLATBENCH_RETURN_IF_ERROR(s.PrepareCold(step, &facts, &entries));
  }
  FLATBENCH_RETURN_IF_ERROR(s.MeasureBefore(warm, &facts));
  StepTallies tallies;
  tallies.scans.resize(static_cast<size_t>(step.cell.threads));
  tallies.batches.resize(static_cast<size_t>(step.cell.threads));
  const auto& files = s.table_files[static_cast<int>(table)];
  const std::string data_file =
      files.empty() ? (s.files.empty() ? s.dir : s.files.front())
                    : files.front();
  if (batch) tallies.disk = std::make_unique<DiskInflightSampler>(data_file);
  tallies.device = std::make_unique<DeviceReadCounter>(data_file);
  const PassSpec spec =
      MakePassSpec(step, s.name, s.opened.backend.get(), plan, &tallies);
  facts.pass_start_s = s.SinceOrigin(NowNs());
  FLATBENCH_ASSIGN_OR_RETURN(auto pass, RunPass(spec));
  FLATBENCH_RETURN_IF_ERROR(s.MeasureAfter(warm, &facts));
  if (tallies.device_before && tallies.device_after &&
      *tallies.device_after >= *tallies.device_before) {
    facts.device_requests = *tallies.device_after - *tallies.device_before;
  }
  nlohmann::json entry = pass.entry;
  AddCounters(pass, facts, &entry);
  if (step.cell.op == Op::kScan) {
    AddScanCounters(MergeTallies(tallies.scans), step.scan_length, &entry);
  }
  std::string label = warm ? "warm: files held resident (" + s.warm_lock + ")"
                           : "evicted by " + s.evict_method;
  if (batch) {
    AddBatchCounters(pass, MergeBatchTallies(tallies.batches), step.batch_size,
                     tallies.disk_seen, &entry);
    label +=
        "; MultiGet of " + std::to_string(step.batch_size) + " keys per call";
  }
  entry["label"] = label;
  entries.push_back(std::move(entry));
  return entries;
}

nlohmann::json Worker::Handle(const nlohmann::json& request) {
  State& s = *s_;
  const std::string op = request.value("op", std::string());
  if (op == "hello") {
    auto r = Hello();
    if (!r.ok()) return ErrorResponse(r.status());
    return {{"ok", true}, {"result", std::move(r).value()}};
  }
  if (op == "warm_begin") {
    Status st = BeginWarm();
    if (!st.ok()) return ErrorResponse(st);
    return {{"ok", true}};
  }
  if (op == "warm_end") {
    EndWarm();
    return {{"ok", true}};
  }
  if (op == "step") {
    auto step = StepFromJson(request.value("step", nlohmann::json()));
    if (!step.ok()) return ErrorResponse(step.status());
    auto r = RunStep(step.value());
    if (!r.ok()) return ErrorResponse(r.status().WithContext(s.name));
    return {{"ok", true}, {"result", std::move(r).value()}};
  }
  if (op == "context") {
    nlohmann::json c = nlohmann::json::object();
    c[results::BackendKey(s.name, results::kEviction)] = s.evict_method;
    c[results::BackendKey(s.name, results::kWarmLock)] = s.warm_lock;
    c[results::BackendKey(s.name, results::kPopulatedBytes)] =
        s.populated_bytes;
    c[results::BackendKey(s.name, results::kWarmupReads)] = s.warmup_reads;
    return {{"ok", true}, {"result", c}};
  }
  return ErrorResponse(
      Status::Usage("worker: unknown request " + request.dump()));
}

nlohmann::json ErrorResponse(const Status& st) {
  return {{"ok", false},
          {"code", static_cast<int>(st.code())},
          {"error", st.message()}};
}

Status ResponseStatus(const nlohmann::json& r) {
  if (!r.is_object()) return Status::IOError("worker: malformed response");
  if (r.value("ok", false)) return Status::Ok();
  const std::string msg = r.value("error", std::string("worker failed"));
  const int code = r.value("code", static_cast<int>(Code::kIOError));
  if (code <= static_cast<int>(Code::kOk) ||
      code > static_cast<int>(kLastCode)) {
    return Status::IOError(msg);
  }
  return Status::FromCode(static_cast<Code>(code), msg);
}

}  // namespace flatbench::bench
