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

inline constexpr uint64_t kDefaultStreamSeed = 0x626c6f636b73ULL;  // "blocks"

// The stream of blocks that ages a dataset: what each block changes and how
// it draws the keys it overwrites (RESEARCH.md, "The live node" gives each
// default's source). The state after `blocks` blocks is a pure function of
// the Spec that holds this stream (datagen/blocks.h).
struct StreamSpec {
  uint64_t blocks = 0;  // Blocks applied; 0: the bulk-loaded dataset alone.
  uint64_t seed = kDefaultStreamSeed;
  uint32_t changes_per_block = 2000;
  // Shares of a block's changes, in per-mille; they sum to 1000.
  uint32_t account_updates = 250;
  uint32_t new_accounts = 20;
  uint32_t slot_updates = 450;
  uint32_t new_slots = 230;
  uint32_t slot_deletes = 50;
  // How updates and deletions draw their keys: uniformly over the live
  // keys (hot_share 0), or `hot_share` per-mille of them from a hot set of
  // the first `hot_accounts` per-mille of accounts (in a seeded order, so
  // the hot set spreads over every shard), the rest uniformly.
  uint32_t hot_share = 0;
  uint32_t hot_accounts = 10;

  // "blocks=N seed=S changes=C shares=a/n/u/s/d hot=h/a": empty for 0
  // blocks, so a fresh dataset's canonical text is what it always was.
  std::string Canonical() const;
  // Everything but `blocks`: whether two streams are the same stream.
  bool SameStream(const StreamSpec& o) const;
  bool operator==(const StreamSpec& o) const {
    return blocks == o.blocks && SameStream(o);
  }
};

// The arena's blocks per merge when aging (flatbench age --merge-every).
inline constexpr uint64_t kDefaultMergeEvery = 100;

struct Spec;
// Blocks of `stream` that change at least 10% of `spec`'s keys (at least
// 1): changes for 11% of them, since some draws meet a key again
// (RESEARCH.md section 11). gonogo --shape aged's default, the least aging
// the live-node question asks for.
uint64_t TenPercentBlocks(const Spec& spec, const StreamSpec& stream);

// kUsage naming the flag at fault: shares that do not sum to 1000, no
// changes per block, a hot set of no accounts.
Status ValidateStream(const StreamSpec& stream);

struct Spec {
  std::string scale;  // "tiny", "smoke", "medium", "full" or "custom".
  uint64_t accounts = 0;
  uint32_t slots_per_account = 0;
  uint64_t seed = kDefaultSeed;
  // The blocks applied on top of the bulk-loaded state (none by default).
  StreamSpec stream;

  uint64_t storage_slots() const { return accounts * slots_per_account; }
  // A canonical one-line text form; equal specs give equal text.
  std::string Canonical() const;
  bool operator==(const Spec& o) const {
    return accounts == o.accounts && slots_per_account == o.slots_per_account &&
           seed == o.seed && stream == o.stream;
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
