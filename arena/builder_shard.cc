#include "arena/builder_shard.h"

#include <cstring>

#include "arena/bloom.h"
#include "arena/builder.h"

namespace flatbench::arena {
namespace {

void PadString(std::string* s, uint64_t alignment) {
  s->resize((s->size() + alignment - 1) / alignment * alignment, '\0');
}

}  // namespace

ShardBuilder::ShardBuilder(const BuilderOptions& options)
    : options_(options),
      probes_(BloomProbes(options.bloom_bits_per_key)),
      cctx_(options.compress ? ZSTD_createCCtx() : nullptr, ZSTD_freeCCtx),
      block_(options.key_width),
      block_buf_(kBlockSize),
      compressed_(ZSTD_compressBound(kBlockPayload)) {}

void ShardBuilder::Start(int shard) {
  image_ = ShardImage();
  image_.shard = shard;
  block_.Reset();
  prefixes_.clear();
  offsets_.clear();
  hashes_.clear();
}

void ShardBuilder::Add(std::string_view key, std::string_view value) {
  if (!block_.Fits(value.size())) FlushBlock();
  if (block_.empty()) prefixes_.push_back(KeyPrefix(key.data(), key.size()));
  block_.Add(key, value);
  if (probes_ > 0) hashes_.push_back(FilterHash(key));
  image_.entry.key_count++;
}

// Raw blocks sit at data_offset + i * 4096 so the reader computes a block's
// address from its index position alone; compressed blocks are packed and
// their offsets kept in the index.
void ShardBuilder::FlushBlock() {
  ShardEntry& e = image_.entry;
  char* buf = block_buf_.data();
  const size_t raw_len = block_.FinishBody(buf + kBlockHeaderSize);
  const char* body = buf + kBlockHeaderSize;
  size_t body_len = raw_len;
  uint8_t kind = kBlockRaw;
  if (options_.compress) {
    const size_t n =
        ZSTD_compressCCtx(cctx_.get(), compressed_.data(), compressed_.size(),
                          body, raw_len, options_.zstd_level);
    if (!ZSTD_isError(n) && n < raw_len) {
      std::memcpy(buf + kBlockHeaderSize, compressed_.data(), n);
      body_len = n;
      kind = kBlockZstd;
    }
  } else if (e.block_count > 0) {
    PadString(&image_.bytes, kBlockSize);
  }
  const uint64_t offset = image_.bytes.size();
  if (options_.compress) offsets_.push_back(offset);
  const size_t stored_len = kBlockHeaderSize + body_len;
  StoreU64(buf, 0);  // The checksum, set by WriteShard.
  StoreU16(buf + 8, static_cast<uint16_t>(block_.count()));
  buf[10] = static_cast<char>(kind);
  buf[11] = 0;
  StoreU16(buf + 12, static_cast<uint16_t>(stored_len));
  StoreU16(buf + 14, static_cast<uint16_t>(raw_len));
  image_.bytes.append(buf, stored_len);
  image_.blocks.push_back(offset);
  e.block_count++;
  block_.Reset();
}

ShardImage ShardBuilder::Finish() {
  ShardEntry& e = image_.entry;
  if (!block_.empty()) FlushBlock();
  e.data_bytes = image_.bytes.size();

  std::vector<char> index(IndexBytes(e.block_count, options_.compress));
  char* p = index.data();
  for (uint64_t prefix : prefixes_) StoreU64(p, prefix), p += 8;
  if (options_.compress) {
    for (uint64_t off : offsets_) StoreU64(p, off), p += 8;
    StoreU64(p, e.data_bytes);
  }
  // A fresh page: reading the index at open then pulls in no data page.
  PadString(&image_.bytes, kIndexAlign);
  e.index_offset = image_.bytes.size();
  image_.bytes.append(index.data(), index.size());
  image_.index_bytes = index.size();

  const uint64_t lines = BloomLines(e.key_count, options_.bloom_bits_per_key);
  e.filter_lines = static_cast<uint32_t>(lines);
  if (lines > 0) {
    PadString(&image_.bytes, kFilterAlign);
    e.filter_offset = image_.bytes.size();
    const size_t at = image_.bytes.size();
    image_.bytes.resize(at + lines * kFilterLineBytes, '\0');
    for (uint64_t h : hashes_) BloomAdd(h, probes_, &image_.bytes[at], lines);
  }
  image_.filter_bytes = lines * kFilterLineBytes;
  ShardImage out = std::move(image_);
  Start(-1);
  return out;
}

Result<BuiltShard> BuildShard(const BuilderOptions& options,
                              const PairRun& run) {
  BuiltShard out;
  const size_t n = run.size();
  if (n == 0) return out;
  const int shard =
      static_cast<unsigned char>(run.key(0).empty() ? 0 : run.key(0)[0]);
  const uint64_t max_value = MaxValueSize(options.key_width);
  auto bad = [&](size_t i, const std::string& what) {
    return Status::Corruption("shard " + std::to_string(shard) + ", pair " +
                              std::to_string(i) + ": " + what);
  };
  ShardBuilder b(options);
  b.Start(shard);
  std::string_view prev;
  for (size_t i = 0; i < n; ++i) {
    const std::string_view key = run.key(i);
    const std::string_view value = run.value(i);
    if (key.size() != options.key_width) {
      return bad(i, "key width " + std::to_string(key.size()) + ", expected " +
                        std::to_string(options.key_width));
    }
    if (value.size() > max_value) {
      return bad(i, "value of " + std::to_string(value.size()) +
                        " bytes exceeds maximum " + std::to_string(max_value));
    }
    if (static_cast<unsigned char>(key[0]) != shard) {
      return bad(i, "key of another shard in the run");
    }
    if (i > 0) {
      const int c = key.compare(prev);
      if (c == 0) return bad(i, "duplicate key");
      if (c < 0) return bad(i, "key not ascending");
    }
    b.Add(key, value);
    out.key_bytes += key.size();
    out.value_bytes += value.size();
    prev = key;
  }
  out.first_key.assign(run.key(0));
  out.last_key.assign(prev);
  out.image = b.Finish();
  return out;
}

Result<ShardEntry> WriteShard(FileWriter* writer, ShardImage* image) {
  FLATBENCH_RETURN_IF_ERROR(writer->PadTo(kBlockSize));
  const uint64_t base = writer->offset();
  char* bytes = image->bytes.data();
  for (uint64_t rel : image->blocks) {
    char* buf = bytes + rel;
    const size_t stored_len = LoadU16(buf + 12);
    StoreU64(buf, Checksum(buf + 8, stored_len - 8, base + rel));
  }
  ShardEntry e = image->entry;
  e.data_offset = base;
  e.index_offset = base + image->entry.index_offset;
  e.index_checksum = Checksum(bytes + image->entry.index_offset,
                              image->index_bytes, e.index_offset);
  if (e.filter_lines > 0) {
    e.filter_offset = base + image->entry.filter_offset;
    e.filter_checksum = Checksum(bytes + image->entry.filter_offset,
                                 image->filter_bytes, e.filter_offset);
  } else {
    e.filter_offset = 0;
    e.filter_checksum = Checksum(bytes, 0, 0);
  }
  FLATBENCH_RETURN_IF_ERROR(writer->Append(image->bytes));
  return e;
}

}  // namespace flatbench::arena
