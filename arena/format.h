#pragma once
// Constants and fixed-size records of the arena file format. The layout is
// specified in arena/FORMAT.md; this header is its single source in code.
//
// All integers are little-endian. The code assumes a little-endian host.

#include <xxhash.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace flatbench::arena {

static_assert(std::endian::native == std::endian::little,
              "the arena code reads little-endian integers in place");

// First 8 bytes of every arena file.
inline constexpr std::string_view kMagic{"FBARENA\x1a", 8};
// Version this code writes. Version 2 starts each shard's block index on a
// fresh 4 KiB page, so reading the metadata at open touches no data page.
inline constexpr uint32_t kFormatVersion = 2;
// Oldest version this code can read (version 1 put the index right after
// the shard's last block, in the same page).
inline constexpr uint32_t kOldestReadableVersion = 2;

inline constexpr size_t kHeaderSize = 128;
inline constexpr size_t kHeaderChecksumOffset = 120;
inline constexpr size_t kBlockSize = 4096;  // also the alignment of data
inline constexpr size_t kNumShards = 256;
inline constexpr size_t kShardEntrySize = 64;
inline constexpr size_t kDirectorySize = kNumShards * kShardEntrySize;
inline constexpr size_t kBlockHeaderSize = 16;
// Bytes of keys, value-end offsets and values one block can hold.
inline constexpr size_t kBlockPayload = kBlockSize - kBlockHeaderSize;
inline constexpr size_t kValueEndSize = 2;  // u16 per entry
inline constexpr size_t kMinKeyWidth = 1;
inline constexpr size_t kMaxKeyWidth = 255;
inline constexpr size_t kFilterLineBytes = 64;  // one cache line
inline constexpr size_t kFilterLineBits = kFilterLineBytes * 8;
inline constexpr uint32_t kMaxBloomBitsPerKey = 32;
inline constexpr uint32_t kMaxBloomProbes = 16;
// Each shard's index starts on its own page, after the shard's data.
inline constexpr size_t kIndexAlign = kBlockSize;
inline constexpr size_t kFilterAlign = kFilterLineBytes;
// The directory follows the last shard at the next multiple of this.
inline constexpr size_t kDirectoryAlign = 64;
// The first data block starts after the header page.
inline constexpr uint64_t kFirstDataOffset = kBlockSize;

// Header flags.
inline constexpr uint32_t kFlagZstd = 1;  // blocks may be zstd-compressed
inline constexpr uint32_t kKnownFlags = kFlagZstd;

// Block kinds (byte 10 of a block header).
inline constexpr uint8_t kBlockRaw = 0;
inline constexpr uint8_t kBlockZstd = 1;

static_assert(kHeaderSize <= kBlockSize);
static_assert(kHeaderChecksumOffset + 8 == kHeaderSize);
static_assert(kBlockPayload == 4080);
static_assert(kBlockSize <= UINT16_MAX, "block lengths are u16");
static_assert(kFilterLineBits == 512);
static_assert(kDirectorySize == 16384);

// Largest value a table of `key_width`-byte keys can hold: one entry (key,
// u16 value end, value) must fit in one block's payload.
constexpr size_t MaxValueSize(size_t key_width) {
  return kBlockPayload - kValueEndSize - key_width;
}
static_assert(MaxValueSize(20) == 4058);
static_assert(MaxValueSize(52) == 4026);
static_assert(MaxValueSize(kMaxKeyWidth) == 3823);

// The file header, at offset 0 (see FORMAT.md for byte offsets).
struct Header {
  uint32_t format_version = kFormatVersion;
  uint32_t key_width = 0;
  uint32_t flags = 0;
  uint32_t bloom_bits_per_key = 0;
  uint32_t bloom_probes = 0;
  uint64_t file_size = 0;
  uint64_t key_count = 0;
  uint64_t value_bytes = 0;
  uint64_t directory_offset = 0;
  uint64_t directory_checksum = 0;
  uint64_t build_micros = 0;
  uint64_t build_unix_seconds = 0;
};

// One shard's entry in the directory.
struct ShardEntry {
  uint64_t data_offset = 0;  // first block; a multiple of kBlockSize
  uint64_t data_bytes = 0;   // from data_offset to the end of the last block
  uint64_t key_count = 0;
  uint32_t block_count = 0;
  uint32_t filter_lines = 0;
  uint64_t index_offset = 0;  // a multiple of kBlockSize, after the data
  uint64_t index_checksum = 0;
  uint64_t filter_offset = 0;  // 64-aligned
  uint64_t filter_checksum = 0;
};

inline uint16_t LoadU16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t LoadU64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void StoreU16(char* p, uint16_t v) { std::memcpy(p, &v, sizeof v); }
inline void StoreU32(char* p, uint32_t v) { std::memcpy(p, &v, sizeof v); }
inline void StoreU64(char* p, uint64_t v) { std::memcpy(p, &v, sizeof v); }

// XXH3-64 of `n` bytes seeded with `seed`; every region's checksum is seeded
// with its own file offset so that a valid region in the wrong place fails.
inline uint64_t Checksum(const void* p, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(p, n, seed);
}

// The first min(8, width) key bytes as a big-endian integer, zero-padded:
// ordered like the keys themselves, so the index can interpolate on it.
inline uint64_t KeyPrefix(const char* key, size_t width) {
  if (width >= 8) {
    uint64_t v;
    std::memcpy(&v, key, 8);
    return __builtin_bswap64(v);
  }
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    v = v << 8 | (i < width ? static_cast<unsigned char>(key[i]) : 0u);
  }
  return v;
}

// Bytes of a shard's index: block_count prefixes, plus block_count + 1
// block offsets when the file is compressed.
inline uint64_t IndexBytes(uint64_t block_count, bool compressed) {
  if (block_count == 0) return 0;
  return block_count * 8 + (compressed ? (block_count + 1) * 8 : 0);
}

void EncodeHeader(const Header& h, char* out);          // kHeaderSize bytes
Header DecodeHeader(const char* in);                    // no validation
void EncodeShardEntry(const ShardEntry& e, char* out);  // kShardEntrySize
ShardEntry DecodeShardEntry(const char* in);

}  // namespace flatbench::arena
