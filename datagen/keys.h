#pragma once
// Keys and values as pure functions of (seed, counter, slot index).
//
// Account key:  keccak256(big-endian int64 counter)[0..20].
// Slot hash:    keccak256(big-endian int64 counter || big-endian int64 slot).
// Storage key:  account key[0..4] | slot hash (32) | account key[4..20].
// Hits use counters below Spec::accounts and slots below slots_per_account.
// Misses use counters at or above Spec::accounts (absent account) or a live
// counter with a slot at or above slots_per_account (live-account miss).

#include <array>
#include <cstdint>
#include <string_view>

#include "dataset/spec.h"

namespace flatbench::datagen {

using AccountKey = std::array<uint8_t, 20>;
using StorageKey = std::array<uint8_t, 52>;
using SlotValue = std::array<uint8_t, 32>;

// The largest account value MakeAccountValue writes.
inline constexpr size_t kMaxAccountValueSize = 96;
struct AccountValue {
  std::array<uint8_t, kMaxAccountValueSize> bytes;
  size_t size = 0;
  std::string_view view() const {
    return {reinterpret_cast<const char*>(bytes.data()), size};
  }
};

AccountKey MakeAccountKey(uint64_t counter);
StorageKey MakeStorageKey(const AccountKey& account, uint64_t counter,
                          uint64_t slot);
// Slim-RLP account: [nonce, balance (72-bit), storage root, code hash].
AccountValue MakeAccountValue(uint64_t seed, uint64_t counter);
// 32 bytes, first byte nonzero.
SlotValue MakeSlotValue(uint64_t seed, uint64_t counter, uint64_t slot);

template <size_t N>
std::string_view View(const std::array<uint8_t, N>& a) {
  return {reinterpret_cast<const char*>(a.data()), N};
}

}  // namespace flatbench::datagen
