#include "bench/key_plan.h"

#include <cassert>

namespace flatbench::bench {

KeyPlan::KeyPlan(const datagen::Sampler& sampler, Table table,
                 uint64_t first_index, int threads, uint64_t reads_per_thread)
    : key_size_(KeySize(table)), buffers_(static_cast<size_t>(threads)) {
  assert(static_cast<uint64_t>(threads) * reads_per_thread <= sampler.space());
  for (int t = 0; t < threads; ++t) {
    std::string& buf = buffers_[static_cast<size_t>(t)];
    buf.resize(reads_per_thread * key_size_);
    uint64_t base = first_index + static_cast<uint64_t>(t) * reads_per_thread;
    for (uint64_t i = 0; i < reads_per_thread; ++i) {
      sampler.DrawKey(base + i,
                      reinterpret_cast<uint8_t*>(buf.data() + i * key_size_));
    }
  }
}

uint64_t DrawSeed(uint64_t base_seed, Table table, datagen::KeyKind kind) {
  return base_seed ^
         (0x9e3779b97f4a7c15ULL *
          (static_cast<uint64_t>(table) * 8 + static_cast<uint64_t>(kind) + 1));
}

}  // namespace flatbench::bench
