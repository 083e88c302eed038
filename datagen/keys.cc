#include "datagen/keys.h"

#include <xxhash.h>

#include <cstring>

#include "common/rng.h"
#include "datagen/keccak.h"

namespace flatbench::datagen {
namespace {

void PutBigEndian64(uint64_t v, uint8_t* out) {
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

// A per-item PRNG: the seed mixed with what identifies the item.
SplitMix64 ItemRng(uint64_t seed, uint64_t counter, uint64_t slot,
                   uint64_t tag) {
  uint64_t words[3] = {counter, slot, tag};
  return SplitMix64(XXH3_64bits_withSeed(words, sizeof(words), seed));
}

void FillRandom(SplitMix64& rng, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n; i += 8) {
    uint64_t r = rng.Next();
    size_t take = n - i < 8 ? n - i : 8;
    std::memcpy(out + i, &r, take);
  }
}

}  // namespace

AccountKey MakeAccountKey(uint64_t counter) {
  uint8_t be[8];
  PutBigEndian64(counter, be);
  Hash256 h = Keccak256({reinterpret_cast<const char*>(be), 8});
  AccountKey key;
  std::memcpy(key.data(), h.data(), key.size());
  return key;
}

StorageKey MakeStorageKey(const AccountKey& account, uint64_t counter,
                          uint64_t slot) {
  uint8_t be[16];
  PutBigEndian64(counter, be);
  PutBigEndian64(slot, be + 8);
  Hash256 slot_hash = Keccak256({reinterpret_cast<const char*>(be), 16});
  StorageKey key;
  std::memcpy(key.data(), account.data(), 4);
  std::memcpy(key.data() + 4, slot_hash.data(), 32);
  std::memcpy(key.data() + 36, account.data() + 4, 16);
  return key;
}

AccountValue MakeAccountValue(uint64_t seed, uint64_t counter) {
  SplitMix64 rng = ItemRng(seed, counter, 0, /*tag=*/1);
  uint64_t nonce = rng.Below(1024);
  uint8_t balance[9];
  FillRandom(rng, balance, sizeof(balance));
  balance[0] = static_cast<uint8_t>(1 + rng.Below(255));  // full 72 bits
  uint8_t root[32], code[32];
  FillRandom(rng, root, 32);
  FillRandom(rng, code, 32);

  // RLP payload: nonce, balance, storage root, code hash.
  uint8_t payload[90];
  size_t n = 0;
  if (nonce == 0) {
    payload[n++] = 0x80;
  } else if (nonce < 0x80) {
    payload[n++] = static_cast<uint8_t>(nonce);
  } else if (nonce < 0x100) {
    payload[n++] = 0x81;
    payload[n++] = static_cast<uint8_t>(nonce);
  } else {
    payload[n++] = 0x82;
    payload[n++] = static_cast<uint8_t>(nonce >> 8);
    payload[n++] = static_cast<uint8_t>(nonce);
  }
  payload[n++] = 0x80 + sizeof(balance);
  std::memcpy(payload + n, balance, sizeof(balance));
  n += sizeof(balance);
  payload[n++] = 0xa0;
  std::memcpy(payload + n, root, 32);
  n += 32;
  payload[n++] = 0xa0;
  std::memcpy(payload + n, code, 32);
  n += 32;

  AccountValue v;
  // Payload is 77..79 bytes, over 55, so the list header is 0xf8 <len>.
  v.bytes[0] = 0xf8;
  v.bytes[1] = static_cast<uint8_t>(n);
  std::memcpy(v.bytes.data() + 2, payload, n);
  v.size = n + 2;
  return v;
}

SlotValue MakeSlotValue(uint64_t seed, uint64_t counter, uint64_t slot) {
  SplitMix64 rng = ItemRng(seed, counter, slot, /*tag=*/2);
  SlotValue v;
  FillRandom(rng, v.data(), v.size());
  v[0] = static_cast<uint8_t>(1 + rng.Below(255));
  return v;
}

}  // namespace flatbench::datagen
