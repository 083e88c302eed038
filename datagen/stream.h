#pragma once
// The dataset as one ascending stream: every account pair in key order, then
// every storage pair in key order.
//
// Memory bound: 4 bytes per account (the counters, bucketed by first key
// byte) plus one bucket's sort buffer: 28 bytes per account of the bucket for
// the account table, 64 bytes per slot of the bucket for the storage table.
// At full scale (300M x 4) that is 1.2 GB + about 300 MB.

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
// called). Stops at the sink's first error and returns it.
Result<StreamDigest> GenerateSorted(const dataset::Spec& spec, BulkLoader* sink,
                                    const ProgressFn& progress = nullptr);

// The fingerprint as 16 lowercase hex digits.
std::string FingerprintHex(uint64_t fingerprint);

}  // namespace flatbench::datagen
