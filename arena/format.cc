#include "arena/format.h"

namespace flatbench::arena {

// Byte offsets inside the header; FORMAT.md has the same table.
void EncodeHeader(const Header& h, char* out) {
  std::memset(out, 0, kHeaderSize);
  std::memcpy(out, kMagic.data(), kMagic.size());
  StoreU32(out + 8, h.format_version);
  StoreU32(out + 12, kHeaderSize);
  StoreU32(out + 16, kBlockSize);
  StoreU32(out + 20, h.key_width);
  StoreU32(out + 24, h.flags);
  StoreU32(out + 28, h.bloom_bits_per_key);
  StoreU32(out + 32, h.bloom_probes);
  StoreU32(out + 36, kNumShards);
  StoreU64(out + 40, h.file_size);
  StoreU64(out + 48, h.key_count);
  StoreU64(out + 56, h.value_bytes);
  StoreU64(out + 64, h.directory_offset);
  StoreU64(out + 72, h.directory_checksum);
  StoreU64(out + 80, h.build_micros);
  StoreU64(out + 88, h.build_unix_seconds);
  // 96..119 reserved, zero.
  StoreU64(out + kHeaderChecksumOffset,
           Checksum(out, kHeaderChecksumOffset, 0));
}

Header DecodeHeader(const char* in) {
  Header h;
  h.format_version = LoadU32(in + 8);
  h.key_width = LoadU32(in + 20);
  h.flags = LoadU32(in + 24);
  h.bloom_bits_per_key = LoadU32(in + 28);
  h.bloom_probes = LoadU32(in + 32);
  h.file_size = LoadU64(in + 40);
  h.key_count = LoadU64(in + 48);
  h.value_bytes = LoadU64(in + 56);
  h.directory_offset = LoadU64(in + 64);
  h.directory_checksum = LoadU64(in + 72);
  h.build_micros = LoadU64(in + 80);
  h.build_unix_seconds = LoadU64(in + 88);
  return h;
}

void EncodeShardEntry(const ShardEntry& e, char* out) {
  StoreU64(out + 0, e.data_offset);
  StoreU64(out + 8, e.data_bytes);
  StoreU64(out + 16, e.key_count);
  StoreU32(out + 24, e.block_count);
  StoreU32(out + 28, e.filter_lines);
  StoreU64(out + 32, e.index_offset);
  StoreU64(out + 40, e.index_checksum);
  StoreU64(out + 48, e.filter_offset);
  StoreU64(out + 56, e.filter_checksum);
}

ShardEntry DecodeShardEntry(const char* in) {
  ShardEntry e;
  e.data_offset = LoadU64(in + 0);
  e.data_bytes = LoadU64(in + 8);
  e.key_count = LoadU64(in + 16);
  e.block_count = LoadU32(in + 24);
  e.filter_lines = LoadU32(in + 28);
  e.index_offset = LoadU64(in + 32);
  e.index_checksum = LoadU64(in + 40);
  e.filter_offset = LoadU64(in + 48);
  e.filter_checksum = LoadU64(in + 56);
  return e;
}

}  // namespace flatbench::arena
