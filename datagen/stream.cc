#include "datagen/stream.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "common/hex.h"
#include "datagen/keys.h"

namespace flatbench::datagen {
namespace {

// Keys are uniform hashes, so bucketing counters by first key byte splits
// the work into 256 near-equal buckets, each sorted on its own in memory.
// Bucket b holds exactly the pairs whose key starts with byte b, in both
// tables (a storage key starts with its account key's first 4 bytes).
using Buckets = std::vector<std::vector<uint32_t>>;

Buckets BucketCounters(uint64_t accounts, const ProgressFn& progress,
                       uint64_t total) {
  Buckets buckets(256);
  for (auto& b : buckets) b.reserve(accounts / 256 + accounts / 2048 + 16);
  for (uint64_t c = 0; c < accounts; ++c) {
    buckets[MakeAccountKey(c)[0]].push_back(static_cast<uint32_t>(c));
    if (progress && (c & 0xffff) == 0) progress(c, total);
  }
  return buckets;
}

class TableHasher {
 public:
  TableHasher() : state_(XXH3_createState()) { XXH3_64bits_reset(state_); }
  ~TableHasher() { XXH3_freeState(state_); }
  TableHasher(const TableHasher&) = delete;
  TableHasher& operator=(const TableHasher&) = delete;
  void Add(std::string_view key, std::string_view value) {
    uint32_t len = static_cast<uint32_t>(value.size());
    XXH3_64bits_update(state_, key.data(), key.size());
    XXH3_64bits_update(state_, &len, sizeof(len));
    XXH3_64bits_update(state_, value.data(), value.size());
  }
  uint64_t Digest() const { return XXH3_64bits_digest(state_); }

 private:
  XXH3_state_t* state_;
};

struct AccountEntry {
  AccountKey key;
  uint32_t counter;
};
struct StorageEntry {
  StorageKey key;
  uint32_t counter;
  uint32_t slot;
};

template <typename Entry>
void SortByKey(std::vector<Entry>& v) {
  std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) {
    return std::memcmp(a.key.data(), b.key.data(), a.key.size()) < 0;
  });
}

}  // namespace

std::string FingerprintHex(uint64_t fingerprint) { return Hex64(fingerprint); }

Result<StreamDigest> GenerateSorted(const dataset::Spec& spec, BulkLoader* sink,
                                    const ProgressFn& progress) {
  if (spec.accounts > dataset::kMaxAccounts) {
    return Status::Usage("accounts: at most " +
                         std::to_string(dataset::kMaxAccounts));
  }
  // Progress counts the bucketing pass as one unit per account, then one
  // unit per pair emitted.
  const uint64_t total = 2 * spec.accounts + spec.storage_slots();
  Buckets buckets = BucketCounters(spec.accounts, progress, total);
  StreamDigest d;
  uint64_t done = spec.accounts;
  auto report = [&] {
    if (progress) progress(done, total);
  };

  TableHasher account_hash;
  std::vector<AccountEntry> accounts;
  for (const auto& bucket : buckets) {
    accounts.clear();
    for (uint32_t c : bucket) accounts.push_back({MakeAccountKey(c), c});
    SortByKey(accounts);
    for (const auto& e : accounts) {
      AccountValue v = MakeAccountValue(spec.seed, e.counter);
      FLATBENCH_RETURN_IF_ERROR(
          sink->Add(Table::kAccount, View(e.key), v.view()));
      account_hash.Add(View(e.key), v.view());
      d.value_bytes[0] += v.size;
    }
    d.pairs[0] += accounts.size();
    done += accounts.size();
    report();
  }
  d.key_bytes[0] = d.pairs[0] * kAccountKeySize;

  TableHasher storage_hash;
  std::vector<StorageEntry> slots;
  for (const auto& bucket : buckets) {
    slots.clear();
    for (uint32_t c : bucket) {
      AccountKey ak = MakeAccountKey(c);
      for (uint32_t s = 0; s < spec.slots_per_account; ++s) {
        slots.push_back({MakeStorageKey(ak, c, s), c, s});
      }
    }
    SortByKey(slots);
    for (const auto& e : slots) {
      SlotValue v = MakeSlotValue(spec.seed, e.counter, e.slot);
      FLATBENCH_RETURN_IF_ERROR(
          sink->Add(Table::kStorage, View(e.key), View(v)));
      storage_hash.Add(View(e.key), View(v));
    }
    d.pairs[1] += slots.size();
    done += slots.size();
    report();
  }
  d.key_bytes[1] = d.pairs[1] * kStorageKeySize;
  d.value_bytes[1] = d.pairs[1] * 32;

  d.table_digest[0] = account_hash.Digest();
  d.table_digest[1] = storage_hash.Digest();
  std::string text = spec.Canonical();
  text.append(reinterpret_cast<const char*>(d.table_digest),
              sizeof(d.table_digest));
  d.fingerprint = XXH3_64bits(text.data(), text.size());
  return d;
}

}  // namespace flatbench::datagen
