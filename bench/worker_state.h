#pragma once
// Internal to the worker (worker.cc, worker_state.cc): one backend's
// process state, the open instance, and the helpers its steps use.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/counters.h"
#include "bench/device.h"
#include "bench/page_cache.h"
#include "bench/worker.h"

namespace flatbench::bench {

// The backend instance the worker holds, and what its open measured.
struct Opened {
  std::unique_ptr<Backend> backend;
  double open_seconds = 0;
  uint64_t metadata_bytes = 0;
  uint64_t rss_after_open = 0;
};

// Everything one backend's worker holds between requests.
struct Worker::State {
  State(const datagen::Dataset& d, std::string n, Opener op, WorkerOptions wo)
      : ds(d), name(std::move(n)), open(std::move(op)), o(std::move(wo)) {}
  datagen::Dataset ds;
  std::string name;
  Opener open;
  WorkerOptions o;
  std::string dir;
  std::vector<std::string> files;
  // The files holding each table (Backend::DataFiles; all files when the
  // backend names none), from Hello.
  std::vector<std::string> table_files[kNumTables];
  std::unique_ptr<DeviceFiles> device[kNumTables];
  std::string device_status = "not measured";
  Opened opened;
  std::unique_ptr<ResidentHold> hold;
  std::string warm_lock = "not used";
  uint64_t populated_bytes = 0;
  uint64_t warmup_reads = 0;
  std::string evict_method = "none";
  bool sanity_passed = false;

  double SinceOrigin(uint64_t ns) const;
  OpenOptions Options(bool lazy) const;
  Status TimedOpen(bool lazy);
  // Opens the backend (timed) over files held resident, populates its own
  // mappings, and warms its caches: the warm state of a long-running
  // process. Untimed warm-up reads: up to kWarmupReads hit keys per table,
  // drawn apart from the measured keys, so that a backend's own caches
  // (RocksDB's block cache, the arena's cached read path) are in steady
  // state too; never more than three per 4 KiB page of the table's files
  // (TablePages): uniform keys then leave about e^-3, 5%, of a small
  // store's pages untouched, where one per page would leave 37%.
  Status OpenWarm();
  // 4 KiB pages of the files holding table `t` (all files when the backend
  // names none).
  uint64_t TablePages(int t) const;
  // A startup step (startup.h): closes the open instance, runs the probes,
  // and in warm mode opens and warms the instance again (OpenWarm).
  Result<nlohmann::json> StartupStep(const Step& step);
  // The device cell that precedes a cold hit pass (at the cell's threads)
  // or a cold batch pass (at batch_size threads, Step::DeviceThreads), or
  // null when the backend's device cells are not measured.
  Result<nlohmann::json> DeviceCell(const Step& step);
  // RunStep's phases (worker.cc). Before a cold pass: the instance closed,
  // the files evicted (and the eviction checked), the device cell measured
  // and the store opened again (timed). Before any pass: what is resident
  // and what the open measured. After it: a warm pass's residency checked
  // again, a cold pass's instance closed.
  // A writing step (writing_step.cc): the store copied beside itself,
  // opened live on the copy, the writing pass, the copy removed.
  Result<nlohmann::json> WritingStep(const Step& step);
  Status PrepareCold(const Step& step, CellFacts* facts,
                     nlohmann::json* entries);
  Status MeasureBefore(bool warm, CellFacts* facts);
  Status MeasureAfter(bool warm, CellFacts* facts);
};

}  // namespace flatbench::bench
