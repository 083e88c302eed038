#pragma once
// The dataset as one ascending stream: every account pair in key order, then
// every storage pair in key order.
//
// Work: 512 batches (256 buckets by first key byte, per table), each a pure
// function of the spec and its bucket. With `jobs` > 1 the counters are
// bucketed by `jobs` threads, and up to `jobs` batches are made ahead, each
// by its own thread, while the calling thread hands the oldest to the sink:
// the sink sees the same pairs in the same order whatever `jobs` is.
// A sink that takes buckets (BulkLoader::TakesBuckets, the arena) gets each
// batch built by the thread that made it (Prepare), and the calling thread
// only commits the parts in order: the bulk of its work runs on every job.
//
// Memory bound: 4 bytes per account (the counters, bucketed by first key
// byte; twice that while `jobs` > 1 threads bucket them) plus jobs + 1
// batches (each with the sink's part, for a sink that takes buckets): 128 bytes per account of a bucket for the account table, 96 bytes
// per slot of a bucket for the storage table (key, counters, value). At full
// scale (300M x 4) that is 1.2 GB + (jobs + 1) x about 450 MB
// (dataset::EstimateGeneratorBytes).

#include <cstdint>
#include <functional>

#include "common/backend.h"
#include "common/status.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

struct StreamDigest {
  uint64_t pairs[kNumTables] = {0, 0};
  uint64_t key_bytes[kNumTables] = {0, 0};
  uint64_t value_bytes[kNumTables] = {0, 0};
  // XXH3-64 over each table's ordered (key, value length, value) stream.
  uint64_t table_digest[kNumTables] = {0, 0};
  // XXH3-64 over the spec's canonical text and both table digests.
  uint64_t fingerprint = 0;
};

// Called now and then with pairs emitted so far and the total to emit.
using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// Generates `spec` in ascending order into `sink` (its Finish is not
// called), using `jobs` threads besides the caller's (0 counts as 1).
// `progress` and the sink's Add and Commit are called on the calling
// thread only; the sink's Prepare on any. Stops at the
// sink's first error and returns it.
Result<StreamDigest> GenerateSorted(const dataset::Spec& spec, BulkLoader* sink,
                                    const ProgressFn& progress = nullptr,
                                    unsigned jobs = 1);

// The fingerprint as 16 lowercase hex digits.
std::string FingerprintHex(uint64_t fingerprint);

}  // namespace flatbench::datagen
