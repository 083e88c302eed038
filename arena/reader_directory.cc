// Checking the shard directory of an untrusted file (FORMAT.md, "Validation
// a reader performs at open", step 7), the later metadata checks Verify
// asks for, and the summary an open file reports.
//
// Regions must be in file order and disjoint: each shard's data, then its
// index on a fresh page, then its filter, then the next shard. Besides
// catching corruption early, this bounds what LoadMetadata allocates by the
// file's size (a crafted directory pointing all 256 shards at one large
// region would otherwise make it allocate 256 times the file).

#include "arena/block_index.h"
#include "arena/bloom.h"
#include "arena/reader.h"

namespace flatbench::arena {
namespace {

// True when [off, off + len) lies within [0, size); overflow-safe.
bool InBounds(uint64_t off, uint64_t len, uint64_t size) {
  return len <= size && off <= size - len;
}

}  // namespace

Status Reader::CheckDirectory(const char* dir, uint64_t data_end,
                              uint64_t header_keys) {
  const uint64_t max_per_block = kBlockPayload / (key_width_ + kValueEndSize);
  uint64_t keys = 0;
  // End of the previous non-empty shard's last region.
  uint64_t previous_end = kFirstDataOffset;
  for (size_t i = 0; i < kNumShards; ++i) {
    const ShardEntry e = DecodeShardEntry(dir + i * kShardEntrySize);
    auto where = [i] { return "shard " + std::to_string(i) + ": "; };
    entries_[i] = e;
    if (e.key_count == 0 || e.block_count == 0) {
      if (e.key_count != 0 || e.block_count != 0 || e.data_offset != 0 ||
          e.data_bytes != 0 || e.index_offset != 0 || e.filter_offset != 0 ||
          e.filter_lines != 0) {
        return Status::Corruption(where() + "bad empty shard entry");
      }
      continue;
    }
    if (e.data_offset % kBlockSize != 0 ||
        !InBounds(e.data_offset, e.data_bytes, data_end)) {
      return Status::Corruption(where() + "data out of bounds");
    }
    if (e.data_offset < previous_end) {
      return Status::Corruption(where() +
                                "regions overlap (data starts inside an "
                                "earlier shard)");
    }
    const uint64_t blocks = e.block_count;
    const bool raw_geometry_ok = (blocks - 1) * kBlockSize < e.data_bytes &&
                                 e.data_bytes <= blocks * kBlockSize;
    const bool packed_geometry_ok = blocks * kBlockHeaderSize <= e.data_bytes;
    if (compressed_ ? !packed_geometry_ok : !raw_geometry_ok) {
      return Status::Corruption(where() + "block count does not fit data");
    }
    if (e.key_count < blocks || e.key_count > blocks * max_per_block) {
      return Status::Corruption(where() + "key count does not fit blocks");
    }
    const uint64_t index_bytes = IndexBytes(blocks, compressed_);
    if (e.index_offset % kIndexAlign != 0 ||
        !InBounds(e.index_offset, index_bytes, data_end)) {
      return Status::Corruption(where() + "index out of bounds");
    }
    if (e.index_offset < e.data_offset + e.data_bytes) {
      return Status::Corruption(where() +
                                "regions overlap (index inside data)");
    }
    previous_end = e.index_offset + index_bytes;
    const uint64_t filter_bytes = uint64_t{e.filter_lines} * kFilterLineBytes;
    if (e.filter_lines == 0
            ? e.filter_offset != 0
            : (probes_ == 0 || e.filter_offset % kFilterAlign != 0 ||
               !InBounds(e.filter_offset, filter_bytes, data_end))) {
      return Status::Corruption(where() + "filter out of bounds");
    }
    if (e.filter_lines != 0) {
      if (e.filter_offset < previous_end) {
        return Status::Corruption(where() +
                                  "regions overlap (filter inside index)");
      }
      previous_end = e.filter_offset + filter_bytes;
    }
    keys += e.key_count;
  }
  if (keys != header_keys) {
    return Status::Corruption("shard key counts do not add up to header");
  }
  return Status::Ok();
}

void Reader::FillInfo(const Header& h, const ReaderOptions& options) {
  info_.path = name_;
  info_.format_version = h.format_version;
  info_.key_width = key_width_;
  info_.compressed = compressed_;
  info_.bloom_bits_per_key = h.bloom_bits_per_key;
  info_.bloom_probes = probes_;
  info_.lazy = options.lazy;
  info_.verify_checksums = options.verify_checksums;
  info_.read_path = options.read_path;
  info_.file_bytes = map_size_;
  info_.key_count = h.key_count;
  info_.value_bytes = h.value_bytes;
  info_.build_micros = h.build_micros;
  info_.build_unix_seconds = h.build_unix_seconds;
  info_.resident_bytes = owned_index_.size() * sizeof(uint64_t) +
                         owned_filter_.size() * kFilterLineBytes;
  double fp_sum = 0;
  for (size_t i = 0; i < kNumShards; ++i) {
    const ShardEntry& e = entries_[i];
    ShardInfo& si = info_.shards[i];
    si.key_count = e.key_count;
    si.block_count = e.block_count;
    si.data_offset = e.data_offset;
    si.data_bytes = e.data_bytes;
    si.index_bytes = IndexBytes(e.block_count, compressed_);
    si.filter_bytes = uint64_t{e.filter_lines} * kFilterLineBytes;
    info_.block_count += si.block_count;
    info_.data_bytes += si.data_bytes;
    info_.index_bytes += si.index_bytes;
    info_.filter_bytes += si.filter_bytes;
    if (e.key_count > 0) {
      info_.nonempty_shards++;
      fp_sum += BloomExpectedFpRate(e.key_count, e.filter_lines, probes_);
    }
  }
  // Unweighted: absent keys are spread evenly over first bytes, so each
  // non-empty shard sees the same share of them (FORMAT.md, Bloom filter).
  info_.expected_fp_rate =
      info_.nonempty_shards > 0 ? fp_sum / info_.nonempty_shards : 1.0;
}

Status Reader::CheckShardMetadata(int shard) const {
  const ShardEntry& e = entries_[shard];
  auto where = [shard] { return "shard " + std::to_string(shard) + ": "; };
  if (e.block_count == 0) return Status::Ok();
  if (Checksum(map_ + e.index_offset, IndexBytes(e.block_count, compressed_),
               e.index_offset) != e.index_checksum) {
    return Status::Corruption(where() + "index checksum mismatch");
  }
  if (Checksum(map_ + e.filter_offset,
               uint64_t{e.filter_lines} * kFilterLineBytes,
               e.filter_offset) != e.filter_checksum) {
    return Status::Corruption(where() + "filter checksum mismatch");
  }
  const Shard& s = shards_[shard];
  for (uint32_t b = 0; b + 1 < s.block_count; ++b) {
    if (IndexWord(s.prefixes, b) > IndexWord(s.prefixes, b + 1)) {
      return Status::Corruption(where() + "index not ascending");
    }
  }
  return CheckBlockOffsets(shard);
}

Status Reader::CheckBlockOffsets(int shard) const {
  const Shard& s = shards_[shard];
  if (!compressed_) return Status::Ok();
  auto bad = [shard] {
    return Status::Corruption("shard " + std::to_string(shard) +
                              ": bad block offsets");
  };
  if (IndexWord(s.offsets, 0) != 0 ||
      IndexWord(s.offsets, s.block_count) != s.data_bytes) {
    return bad();
  }
  for (uint32_t b = 0; b < s.block_count; ++b) {
    const uint64_t begin = IndexWord(s.offsets, b);
    const uint64_t end = IndexWord(s.offsets, b + 1);
    if (begin >= end || end - begin > kBlockSize) return bad();
  }
  return Status::Ok();
}

}  // namespace flatbench::arena
