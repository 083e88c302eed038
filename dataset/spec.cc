#include "dataset/spec.h"

#include <algorithm>
#include <cmath>

namespace flatbench::dataset {

std::string Spec::Canonical() const {
  return "flatbench-dataset v" + std::to_string(kGeneratorVersion) +
         " accounts=" + std::to_string(accounts) +
         " slots_per_account=" + std::to_string(slots_per_account) +
         " seed=" + std::to_string(seed) +
         (stream.blocks == 0 ? "" : " " + stream.Canonical());
}

std::string StreamSpec::Canonical() const {
  if (blocks == 0) return "";
  return "blocks=" + std::to_string(blocks) +
         " stream_seed=" + std::to_string(seed) +
         " changes=" + std::to_string(changes_per_block) +
         " shares=" + std::to_string(account_updates) + "/" +
         std::to_string(new_accounts) + "/" + std::to_string(slot_updates) +
         "/" + std::to_string(new_slots) + "/" + std::to_string(slot_deletes) +
         " hot=" + std::to_string(hot_share) + "/" +
         std::to_string(hot_accounts);
}

bool StreamSpec::SameStream(const StreamSpec& o) const {
  return seed == o.seed && changes_per_block == o.changes_per_block &&
         account_updates == o.account_updates &&
         new_accounts == o.new_accounts && slot_updates == o.slot_updates &&
         new_slots == o.new_slots && slot_deletes == o.slot_deletes &&
         hot_share == o.hot_share && hot_accounts == o.hot_accounts;
}

uint64_t TenPercentBlocks(const Spec& spec, const StreamSpec& stream) {
  const uint64_t pairs = spec.accounts + spec.storage_slots();
  const uint64_t per_block = std::max<uint64_t>(1, stream.changes_per_block);
  const uint64_t changes = pairs / 100 * 11 + pairs % 100 * 11 / 100;
  return std::max<uint64_t>(1, (changes + per_block - 1) / per_block);
}

namespace {

// The dataset's bytes per pair: keys, and values (an account's slim RLP is
// 70-90 bytes, a slot's 32).
constexpr double kAccountPairBytes = 20 + 80;
constexpr double kSlotPairBytes = 52 + 32;
// A memtable entry's bytes beyond its key and value (RocksDB's skiplist
// node and internal key trailer).
constexpr double kMemtableEntryOverhead = 24;
// RocksDB's production write_buffer_size per family
// (baselines/rocksdb_options.cc) and the memtables a flush merges, times the
// L0 files that trigger the first compaction.
constexpr double kAccountWriteBuffer = 16e6, kStorageWriteBuffer = 32e6;
constexpr double kFlushesToFirstCompaction = 2 * 4;
// Compaction bytes per logical byte of the stream once the first round has
// run: 4.2 measured at 3M x 4 (steady at block 3,770); 3 keeps a margin.
constexpr double kCompactionBytesPerLogical = 3;
// Slots the stream inserts, over the slots the bulk load holds, at which
// LMDB's storage leaf fill is back within 5 points of its settled fill.
constexpr double kLmdbInsertsToSettle = 0.5;

uint64_t BlocksFor(double amount, double per_block) {
  if (!(per_block > 0)) return 0;
  return static_cast<uint64_t>(std::ceil(amount / per_block));
}

double LiveBytes(const Spec& spec) {
  return static_cast<double>(spec.accounts) * kAccountPairBytes +
         static_cast<double>(spec.storage_slots()) * kSlotPairBytes;
}

}  // namespace

double LogicalBytesPerBlock(const StreamSpec& s) {
  const double c = s.changes_per_block / 1000.0;
  return c * (s.account_updates + s.new_accounts) * kAccountPairBytes +
         c * (s.slot_updates + s.new_slots) * kSlotPairBytes +
         c * s.slot_deletes * 52;
}

uint64_t SteadyStateBlocks(const Spec& spec, const StreamSpec& s) {
  const double c = s.changes_per_block / 1000.0;
  const double account_memtable = c * (s.account_updates + s.new_accounts) *
                                  (kAccountPairBytes + kMemtableEntryOverhead);
  const double storage_memtable =
      c * (s.slot_updates + s.new_slots + s.slot_deletes) *
      (kSlotPairBytes + kMemtableEntryOverhead);
  const uint64_t first_compaction =
      std::max(BlocksFor(kFlushesToFirstCompaction * kAccountWriteBuffer,
                         account_memtable),
               BlocksFor(kFlushesToFirstCompaction * kStorageWriteBuffer,
                         storage_memtable));
  const uint64_t rocks =
      first_compaction +
      BlocksFor(LiveBytes(spec),
                kCompactionBytesPerLogical * LogicalBytesPerBlock(s));
  const uint64_t lmdb = BlocksFor(
      kLmdbInsertsToSettle * static_cast<double>(spec.storage_slots()),
      c * s.new_slots);
  return std::max({TenPercentBlocks(spec, s), rocks, lmdb});
}

uint64_t DefaultMergeEvery(const Spec& spec, const StreamSpec& s) {
  const uint64_t m = BlocksFor(LiveBytes(spec), 30 * LogicalBytesPerBlock(s));
  return std::clamp<uint64_t>(m, 100, 7200);
}

Status ValidateStream(const StreamSpec& s) {
  if (s.changes_per_block == 0 || s.changes_per_block > 10'000'000) {
    return Status::Usage("--changes-per-block " +
                         std::to_string(s.changes_per_block) +
                         ": must be 1..10000000");
  }
  const uint64_t sum = uint64_t{s.account_updates} + s.new_accounts +
                       s.slot_updates + s.new_slots + s.slot_deletes;
  if (sum != 1000) {
    return Status::Usage(
        "--account-updates, --new-accounts, --slot-updates, --new-slots and "
        "--slot-deletes: per-mille shares that sum to " +
        std::to_string(sum) + ", not 1000");
  }
  if (s.hot_share > 1000) {
    return Status::Usage("--hot-share " + std::to_string(s.hot_share) +
                         ": per-mille, at most 1000");
  }
  if (s.hot_accounts == 0 || s.hot_accounts > 1000) {
    return Status::Usage("--hot-accounts " + std::to_string(s.hot_accounts) +
                         ": per-mille of the accounts, 1..1000");
  }
  return Status::Ok();
}

Result<Spec> MakeSpec(const std::string& scale, uint64_t accounts,
                      uint32_t slots_per_account, uint64_t seed) {
  Spec spec;
  spec.scale = scale;
  spec.seed = seed;
  if (scale == "tiny") {
    spec.accounts = 10'000;
    spec.slots_per_account = 5;
  } else if (scale == "smoke") {
    spec.accounts = 100'000;
    spec.slots_per_account = 5;
  } else if (scale == "medium") {
    spec.accounts = 10'000'000;
    spec.slots_per_account = 4;
  } else if (scale == "full") {
    spec.accounts = 300'000'000;
    spec.slots_per_account = 4;
  } else if (scale == "custom") {
    if (accounts == 0) {
      return Status::Usage("--accounts: a custom scale needs at least 1");
    }
    if (accounts > kMaxAccounts) {
      return Status::Usage("--accounts: at most " +
                           std::to_string(kMaxAccounts));
    }
    if (slots_per_account > 1'000'000) {
      return Status::Usage("--slots-per-account: at most 1000000");
    }
    spec.accounts = accounts;
    spec.slots_per_account = slots_per_account;
  } else {
    return Status::Usage("--scale: unknown scale '" + scale +
                         "' (tiny, smoke, medium, full or custom)");
  }
  return spec;
}

}  // namespace flatbench::dataset
