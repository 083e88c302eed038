#include "bench/batch_pass.h"

#include <algorithm>

#include "common/hex.h"
#include "common/results_ops.h"

namespace flatbench::bench {

BatchTally MergeBatchTallies(const std::vector<BatchTally>& tallies) {
  BatchTally sum;
  for (const auto& t : tallies) {
    sum.calls += t.calls;
    sum.keys += t.keys;
    sum.found += t.found;
    sum.io.batches += t.io.batches;
    sum.io.submissions += t.io.submissions;
    sum.io.reads += t.io.reads;
    sum.io.sync_reads += t.io.sync_reads;
    sum.io.max_depth = std::max(sum.io.max_depth, t.io.max_depth);
    sum.io.submits_reads = sum.io.submits_reads || t.io.submits_reads;
  }
  return sum;
}

BatchReader::BatchReader(std::unique_ptr<ReadSession> session,
                         std::string backend, Table table, const KeyPlan& plan,
                         int thread, uint32_t batch_size, uint64_t calls,
                         BatchTally* tally)
    : session_(std::move(session)),
      backend_(std::move(backend)),
      table_(table),
      batch_size_(batch_size),
      results_(batch_size),
      tally_(tally) {
  keys_.reserve(calls * batch_size);
  for (uint64_t k = 0; k < calls * batch_size; ++k) {
    keys_.push_back(plan.Key(thread, k));
  }
}

// The session's totals are taken on the reader's own thread, after the
// timed loop (pass.h destroys readers there).
BatchReader::~BatchReader() { tally_->io = session_->BatchIo(); }

Status BatchReader::Read(uint64_t i, bool* found) {
  const std::span<const std::string_view> keys(keys_.data() + i * batch_size_,
                                               batch_size_);
  Status st = session_->MultiGet(table_, keys, results_);
  if (!st.ok()) [[unlikely]] {
    return st.WithContext(backend_ + ": MultiGet of " + TableName(table_));
  }
  uint64_t hits = 0;
  for (uint32_t k = 0; k < batch_size_; ++k) {
    const GetResult& r = results_[k];
    if (!r.status.ok()) [[unlikely]] {
      return r.status.WithContext(backend_ + ": MultiGet of " +
                                  TableName(table_) + " key " + ToHex(keys[k]));
    }
    hits += r.found ? 1 : 0;
  }
  *found = hits == batch_size_;
  ++tally_->calls;
  tally_->keys += batch_size_;
  tally_->found += hits;
  return Status::Ok();
}

void AddBatchCounters(const PassResult& pass, const BatchTally& total,
                      uint32_t batch_size, const DiskInflight& disk,
                      nlohmann::json* entry) {
  namespace r = flatbench::results;
  nlohmann::json& e = *entry;
  const double b = static_cast<double>(batch_size);
  const double keys = static_cast<double>(total.keys);
  e[KeyOf(r::kBatchSize)] = b;
  e[KeyOf(r::kKeysPerS)] = e.value(KeyOf(r::kReadsPerS), 0.0) * b;
  // Keys found, not calls that found all of theirs.
  e[KeyOf(r::kFoundFraction)] =
      keys > 0 ? static_cast<double>(total.found) / keys : 0.0;
  if (e.contains(KeyOf(r::kCpuNsPerRead)) && keys > 0) {
    // The sampler's thread is the process's too: its time is not the
    // batches'.
    const double cpu = e[KeyOf(r::kCpuNsPerRead)].get<double>() *
                           static_cast<double>(pass.reads) -
                       static_cast<double>(disk.sampler_cpu_ns);
    if (cpu > 0) e[KeyOf(r::kCpuNsPerKey)] = cpu / keys;
  }
  if (e.contains(KeyOf(r::kBytesReadPerRead))) {
    e[KeyOf(r::kStorageReadsPerKey)] =
        e[KeyOf(r::kBytesReadPerRead)].get<double>() / 4096.0 / b;
  }
  if (total.io.submits_reads && total.io.submissions > 0) {
    e[KeyOf(r::kIoDepthSource)] = 1.0;
    e[KeyOf(r::kIoDepthMax)] = static_cast<double>(total.io.max_depth);
    e[KeyOf(r::kIoDepthMean)] = static_cast<double>(total.io.reads) /
                                static_cast<double>(total.io.submissions);
  } else if (disk.samples > 0) {
    e[KeyOf(r::kIoDepthSource)] = 0.0;
    e[KeyOf(r::kIoDepthMax)] = static_cast<double>(disk.max);
    e[KeyOf(r::kIoDepthMean)] = disk.mean;
  }
}

std::string BatchDevicePassName(const Step& step) {
  results::CellName name =
      CellNameOf(step.backend, step.cell, step.mode, step.repetition);
  name.kind = results::kKindDevice;
  name.threads = step.DeviceThreads();
  return PassName(name);
}

void AddBatchDeviceRate(const nlohmann::json& device_entry,
                        nlohmann::json* batch_entry) {
  namespace r = flatbench::results;
  const double dev = device_entry.value(KeyOf(r::kReadsPerS), 0.0);
  if (!(dev > 0)) return;
  nlohmann::json& e = *batch_entry;
  e[KeyOf(r::kBatchDeviceReadsPerS)] = dev;
  e[KeyOf(r::kBatchIoEfficiency)] = e.value(KeyOf(r::kKeysPerS), 0.0) / dev;
}

void AddBatchDevice(const Step& step, const nlohmann::json& earlier,
                    nlohmann::json* entries) {
  if (step.cell.op != Op::kBatch || !IsCold(step.mode)) return;
  const std::string device = BatchDevicePassName(step);
  const std::string own =
      PassName(CellNameOf(step.backend, step.cell, step.mode, step.repetition));
  const nlohmann::json* found = nullptr;
  for (const auto* list :
       {&earlier, static_cast<const nlohmann::json*>(entries)}) {
    for (const auto& e : *list) {
      if (e.value("name", std::string()) == device) found = &e;
    }
  }
  if (found == nullptr) return;
  for (auto& e : *entries) {
    if (e.value("name", std::string()) == own) AddBatchDeviceRate(*found, &e);
  }
}

}  // namespace flatbench::bench
