// The worker's per-backend state: timed opens, the warm open, the device
// cell before a cold hit pass, and the startup step (startup.h).
#include "bench/worker_state.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "bench/counters.h"
#include "bench/io_stats.h"
#include "bench/key_plan.h"
#include "bench/pass.h"
#include "bench/startup.h"
#include "common/hex.h"
#include "common/rng.h"

namespace flatbench::bench {
namespace {

constexpr uint64_t kWarmupReads = 200'000;
constexpr uint64_t kWarmupReadsPerPage = 3;
constexpr uint64_t kWarmupSeed = 0x7761726d2d7570ULL;

uint64_t Mix(uint64_t a, uint64_t b) {
  return SplitMix64(a ^ (b * 0x9e3779b97f4a7c15ULL)).Next();
}

}  // namespace

double Worker::State::SinceOrigin(uint64_t ns) const {
  return ns > o.run_origin_ns ? static_cast<double>(ns - o.run_origin_ns) / 1e9
                              : 0.0;
}

OpenOptions Worker::State::Options(bool lazy) const {
  OpenOptions oo;
  oo.lazy_metadata = lazy;
  oo.verify_checksums = o.verify_checksums;
  oo.cache_bytes = o.cache_bytes;
  return oo;
}

Status Worker::State::TimedOpen(bool lazy) {
  Opened x;
  auto start = std::chrono::steady_clock::now();
  auto be = open(name, Options(lazy));
  auto end = std::chrono::steady_clock::now();
  if (!be.ok()) return be.status();
  x.backend = std::move(be).value();
  x.open_seconds = std::chrono::duration<double>(end - start).count();
  x.metadata_bytes = x.backend->ResidentMetadataBytes();
  x.rss_after_open = MemoryBytes(x.backend->ServerProcesses());
  opened = std::move(x);
  return Status::Ok();
}

Status Worker::State::OpenWarm() {
  FLATBENCH_RETURN_IF_ERROR(TimedOpen(/*lazy=*/false));
  FLATBENCH_ASSIGN_OR_RETURN(populated_bytes,
                             PopulateOwnMappings(files, hold.get()));
  FLATBENCH_ASSIGN_OR_RETURN(auto session, opened.backend->NewSession());
  warmup_reads = 0;
  for (int t = 0; t < kNumTables; ++t) {
    const Table table = static_cast<Table>(t);
    if (table == Table::kStorage && ds.spec().slots_per_account == 0) {
      continue;
    }
    datagen::Sampler sampler(ds.spec(), table, datagen::KeyKind::kHit,
                             Mix(kWarmupSeed, static_cast<uint64_t>(t)));
    // Bounded by the dataset (worker_state.h): three reads per page of the
    // table's files, so a small store is not read over and over.
    const uint64_t n = std::min<uint64_t>(
        {kWarmupReads, sampler.space(),
         std::max<uint64_t>(1, kWarmupReadsPerPage * TablePages(t))});
    KeyPlan plan(sampler, table, 0, 1, n);
    for (uint64_t i = 0; i < n; ++i) {
      bool found = false;
      std::string_view value;
      FLATBENCH_RETURN_IF_ERROR(
          session->Get(table, plan.Key(0, i), &found, &value));
      if (!found) {
        return Status::Corruption("warm-up: " + std::string(TableName(table)) +
                                  " hit key " + ToHex(plan.Key(0, i)) +
                                  " was not found");
      }
    }
    warmup_reads += n;
  }
  return Status::Ok();
}

uint64_t Worker::State::TablePages(int t) const {
  if (device[t] != nullptr && device[t]->pages() > 0) return device[t]->pages();
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& f : files) {
    const auto size = std::filesystem::file_size(f, ec);
    if (!ec) bytes += size;
  }
  return (bytes + kDeviceBlock - 1) / kDeviceBlock;
}

Result<nlohmann::json> Worker::State::StartupStep(const Step& step) {
  if (o.probe_command.empty()) {
    return Status::Usage("startup: this worker has no probe command");
  }
  const bool warm = step.mode == Mode::kWarm;
  const Table table = step.cell.table;
  datagen::Sampler sampler(ds.spec(), table, datagen::KeyKind::kHit,
                           CellDrawSeed(o.draw_seed, step.cell));
  StartupSpec spec;
  spec.name = PassName(CellNameOf(name, step.cell, step.mode, step.repetition));
  spec.repetition = step.repetition;
  spec.command = o.probe_command;
  ProbeRequest probe{.dir = ds.dir(),
                     .backend = name,
                     .table = table,
                     .key = std::string(KeySize(table), '\0'),
                     .lazy_metadata = step.mode == Mode::kColdLazy};
  for (uint64_t i = 0; i < step.reads_per_thread; ++i) {
    sampler.DrawKey(step.first_index + i,
                    reinterpret_cast<uint8_t*>(probe.key.data()));
    spec.probes.push_back(ProbeMessage(probe));
  }
  spec.cold = !warm;
  spec.eviction_bound = o.eviction_bound;
  spec.warm_bound = o.warm_bound;
  spec.prepare = [this, warm]() -> Result<double> {
    if (!warm) {
      EvictMethod method;
      FLATBENCH_RETURN_IF_ERROR(Evict(files, &method, o.allow_drop_caches));
      evict_method = EvictMethodName(method);
    } else if (hold) {
      FLATBENCH_RETURN_IF_ERROR(hold->Refresh());
    }
    FLATBENCH_ASSIGN_OR_RETURN(auto r, MeasureResidency(files));
    return r.fraction();
  };
  opened = Opened();  // The probe holds the only open instance.
  spec.pass_start_s = SinceOrigin(NowNs());
  auto entry = RunStartupPass(spec);
  if (warm) FLATBENCH_RETURN_IF_ERROR(OpenWarm());
  if (!entry.ok()) return entry.status();
  entry.value()["label"] =
      std::string(warm ? "warm: files held resident (" + warm_lock + ")"
                       : "evicted by " + evict_method) +
      "; a fresh process from spawn to its first hit read";
  return nlohmann::json::array({std::move(entry).value()});
}

Result<nlohmann::json> Worker::State::DeviceCell(const Step& step) {
  const int t = static_cast<int>(step.cell.table);
  DeviceFiles* dev = device[t].get();
  if (dev == nullptr || !dev->supported()) return nlohmann::json();
  const int threads = step.DeviceThreads();
  const uint64_t seed = Mix(Mix(Mix(o.device_seed, static_cast<uint64_t>(t)),
                                static_cast<uint64_t>(threads)),
                            static_cast<uint64_t>(step.repetition) + 1);
  DeviceFacts facts;
  facts.threads = threads;
  facts.repetition = step.repetition;
  facts.file_bytes = dev->bytes();
  facts.pass_start_s = SinceOrigin(NowNs());
  results::CellName cell_name =
      CellNameOf(name, step.cell, step.mode, step.repetition);
  cell_name.kind = results::kKindDevice;
  cell_name.threads = threads;
  const std::string entry_name = PassName(cell_name);
  FLATBENCH_ASSIGN_OR_RETURN(
      auto pass,
      dev->Run(entry_name, threads, step.device_reads_per_thread, seed));
  nlohmann::json entry = pass.entry;
  AddDeviceCounters(pass, facts, &entry);
  entry["label"] = "4 KiB O_DIRECT random reads of the files holding " + name +
                   " " + TableName(step.cell.table) + " (" +
                   std::to_string(dev->bytes()) + " bytes)";
  return entry;
}

}  // namespace flatbench::bench
