#pragma once
// The dataset definition: scale, seed and counts. Every key and value of a
// dataset is a pure function of its Spec (see RESEARCH.md, "Dataset").

#include <cstdint>
#include <string>

#include "common/status.h"

namespace flatbench::dataset {

inline constexpr uint64_t kDefaultSeed = 0x666c617462656e63ULL;  // "flatbenc"
// Generator version: bumped whenever the bytes a Spec produces change.
inline constexpr int kGeneratorVersion = 1;

struct Spec {
  std::string scale;  // "tiny", "smoke", "medium", "full" or "custom".
  uint64_t accounts = 0;
  uint32_t slots_per_account = 0;
  uint64_t seed = kDefaultSeed;

  uint64_t storage_slots() const { return accounts * slots_per_account; }
  // A canonical one-line text form; equal specs give equal text.
  std::string Canonical() const;
  bool operator==(const Spec& o) const {
    return accounts == o.accounts && slots_per_account == o.slots_per_account &&
           seed == o.seed;
  }
};

// Largest account count: counters must fit in 32 bits (see stream.cc), and
// miss counters live above the dataset's counters.
inline constexpr uint64_t kMaxAccounts = 2'000'000'000ULL;

// Builds a Spec from a named scale, or from custom counts when `scale` is
// "custom". Errors are kUsage and name the bad argument.
Result<Spec> MakeSpec(const std::string& scale, uint64_t accounts,
                      uint32_t slots_per_account, uint64_t seed);

}  // namespace flatbench::dataset
