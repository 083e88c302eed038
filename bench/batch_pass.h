#pragma once
// The batch kind's reader: each operation is one ReadSession::MultiGet of
// batch_size hit keys of the cell's plan (the thread's i-th call takes its
// keys i * batch_size to (i + 1) * batch_size - 1), and its counters: keys
// per second, CPU and storage reads per key, the I/O depth reached, and in
// cold modes the efficiency against the own files' device rate at depth
// batch_size. Informational, never gated (RESEARCH.md, "Batched lookups").
//
// A key that comes back with its own error fails the pass with that error,
// naming the backend, the table and the key, as a failed point read does.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/disk_inflight.h"
#include "bench/key_plan.h"
#include "bench/pass.h"
#include "bench/schedule.h"
#include "common/backend.h"

namespace flatbench::bench {

// One thread's batch totals, written by its BatchReader.
struct BatchTally {
  uint64_t calls = 0;
  uint64_t keys = 0;
  uint64_t found = 0;
  BatchIoStats io;  // The session's totals, taken when the reader ends.
};

// Sums of `tallies`: counts added, max_depth the deepest of any thread's.
BatchTally MergeBatchTallies(const std::vector<BatchTally>& tallies);

// Sets *found to whether every key of the call was found. Allocates
// nothing per call: the key views and results are prepared up front.
class BatchReader : public PassReader {
 public:
  // `backend` names the backend in errors. The plan and the tally must
  // outlive the reader. REQUIRES: the plan holds calls * batch_size keys
  // for `thread`.
  BatchReader(std::unique_ptr<ReadSession> session, std::string backend,
              Table table, const KeyPlan& plan, int thread, uint32_t batch_size,
              uint64_t calls, BatchTally* tally);
  ~BatchReader() override;
  Status Read(uint64_t i, bool* found) override;

 private:
  std::unique_ptr<ReadSession> session_;
  std::string backend_;
  Table table_;
  uint32_t batch_size_;
  std::vector<std::string_view> keys_;
  std::vector<GetResult> results_;
  BatchTally* tally_;
};

// Adds the batch counters (results_ops.h) to `entry`, which holds the
// read counters of the same pass (counters.h AddCounters, one read per
// call). `disk` is what the in-flight sampler saw (samples 0: none).
void AddBatchCounters(const PassResult& pass, const BatchTally& total,
                      uint32_t batch_size, const DiskInflight& disk,
                      nlohmann::json* entry);

// The name of the device entry that gives a cold batch step its device
// rate: the same backend, table, mode and repetition at batch_size
// threads (depth B).
std::string BatchDevicePassName(const Step& step);

// Sets batch_device_reads_per_s (the device entry's reads_per_s) and
// batch_io_efficiency on a batch entry.
void AddBatchDeviceRate(const nlohmann::json& device_entry,
                        nlohmann::json* batch_entry);

// A cold batch step's device rate at depth batch_size, added to its entry
// in `entries`: from the device entry of its own step (in `entries`), or of
// the hit pass at that thread count earlier in the same mode and repetition
// (in `earlier`, this session's or the journal's). Nothing for other steps.
void AddBatchDevice(const Step& step, const nlohmann::json& earlier,
                    nlohmann::json* entries);

}  // namespace flatbench::bench
