#pragma once
// The account counters bucketed by their key's first byte. Keys are uniform
// hashes, so this splits the work into 256 near-equal buckets, each sorted
// on its own in memory. Bucket b holds exactly the pairs whose key starts
// with byte b, in both tables (a storage key starts with its account key's
// first 4 bytes).

#include <cstdint>
#include <vector>

#include "datagen/stream.h"

namespace flatbench::datagen {

using Buckets = std::vector<std::vector<uint32_t>>;

inline constexpr int kBuckets = 256;

// Counters ascending within each bucket whatever `jobs` is: the counter
// range is cut into `jobs` consecutive chunks, bucketed by one thread
// each, and each bucket is the chunks' parts joined in chunk order.
// `progress` is told the counters bucketed, out of `total`.
Buckets BucketCounters(uint64_t accounts, unsigned jobs,
                       const ProgressFn& progress, uint64_t total);

}  // namespace flatbench::datagen
