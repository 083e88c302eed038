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

// Blocks of `stream` after which every store of `spec` is at its steady
// state (RESEARCH.md section 11), by a model whose constants were measured
// at smoke scale and checked at 3M x 4: the most of
// - TenPercentBlocks;
// - RocksDB's: its compactions have written the store's size once the L0
//   trigger (4 files) of each family has filled from flushes of two
//   memtables at the production write_buffer_size, plus the store's bytes
//   over 3 compaction bytes per logical byte (4.2 measured at 3M x 4);
// - LMDB's: its storage leaf fill has come back from its trough to within
//   5 points of the settled fill once the stream has inserted half as many
//   slots as the bulk load holds (measured: 0.37 at smoke).
// age and gonogo --shape aged apply it when no --blocks is given.
uint64_t SteadyStateBlocks(const Spec& spec, const StreamSpec& stream);

// The arena's blocks per merge by default for `spec`: the interval at
// which a merge's rewrite of the base is 30 times the logical bytes of the
// blocks it merges (a write amplification of the order of a leveled LSM's),
// at least 100 blocks (20 minutes of chain) and at most 7,200 (a day, whose
// delta a node still holds in memory). RESEARCH.md section 11 gives the
// trade-off this picks from.
uint64_t DefaultMergeEvery(const Spec& spec, const StreamSpec& stream);
// The keys and values a block of `stream` changes, in bytes (a model: an
// account's value taken as 80 bytes).
double LogicalBytesPerBlock(const StreamSpec& stream);

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
