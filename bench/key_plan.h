#pragma once
// Which keys each thread of a pass reads, prepared before the timed loop.
//
// Keys come from a datagen::Sampler, a seeded permutation over the WHOLE key
// space of one (table, kind): hit keys span every account or slot of the
// dataset, and there is no key pool. A pass takes `threads` consecutive,
// disjoint ranges of `reads_per_thread` permutation indices starting at
// `first_index`; successive passes of the same (table, kind) continue where
// the previous pass stopped, so no key repeats within a pass, nor across
// passes until the space is exhausted.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/backend.h"
#include "datagen/sampler.h"

namespace flatbench::bench {

class KeyPlan {
 public:
  // Draws threads * reads_per_thread keys. REQUIRES: threads *
  // reads_per_thread <= sampler.space(), so the keys are distinct.
  KeyPlan(const datagen::Sampler& sampler, Table table, uint64_t first_index,
          int threads, uint64_t reads_per_thread);

  size_t key_size() const { return key_size_; }
  // Thread t's i-th key; views the plan's buffer.
  std::string_view Key(int t, uint64_t i) const {
    return {buffers_[static_cast<size_t>(t)].data() + i * key_size_, key_size_};
  }
  // Thread t's contiguous key bytes.
  const char* Buffer(int t) const {
    return buffers_[static_cast<size_t>(t)].data();
  }

 private:
  size_t key_size_;
  std::vector<std::string> buffers_;  // One contiguous buffer per thread.
};

// The seed of the sampler for (table, kind); fixed, so every backend reads
// the same keys in the same cell.
uint64_t DrawSeed(uint64_t base_seed, Table table, datagen::KeyKind kind);

}  // namespace flatbench::bench
