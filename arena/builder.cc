#include "arena/builder.h"

#include <unistd.h>

#include <chrono>

#include "arena/bloom.h"

namespace flatbench::arena {
namespace {

uint64_t NowMicros() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

std::string_view Bytes(const std::vector<char>& v) {
  return std::string_view(v.data(), v.size());
}

}  // namespace

Result<std::unique_ptr<Builder>> Builder::Create(
    const std::string& path, const BuilderOptions& options) {
  if (options.key_width < kMinKeyWidth || options.key_width > kMaxKeyWidth) {
    return Status::Usage("key width " + std::to_string(options.key_width) +
                         " outside 1..255");
  }
  if (options.bloom_bits_per_key > kMaxBloomBitsPerKey) {
    return Status::Usage("bloom bits per key " +
                         std::to_string(options.bloom_bits_per_key) +
                         " above 32");
  }
  FLATBENCH_ASSIGN_OR_RETURN(auto writer, FileWriter::Create(path + ".tmp"));
  auto builder =
      std::unique_ptr<Builder>(new Builder(path, options, std::move(writer)));
  // Reserve the header page; the header itself is written by Finish.
  static constexpr char kZeros[kFirstDataOffset] = {};
  Status st = builder->writer_->Append(std::string_view(kZeros, sizeof kZeros));
  if (!st.ok()) return builder->Fail(st);
  return builder;
}

Builder::Builder(std::string path, const BuilderOptions& options,
                 std::unique_ptr<FileWriter> writer)
    : path_(std::move(path)),
      tmp_path_(path_ + ".tmp"),
      options_(options),
      probes_(BloomProbes(options.bloom_bits_per_key)),
      writer_(std::move(writer)),
      cctx_(options.compress ? ZSTD_createCCtx() : nullptr, ZSTD_freeCCtx),
      start_micros_(NowMicros()),
      block_(options.key_width),
      block_buf_(kBlockSize),
      compressed_(ZSTD_compressBound(kBlockPayload)) {}

Builder::~Builder() {
  if (!finished_ && writer_ != nullptr) {
    writer_.reset();
    ::unlink(tmp_path_.c_str());
  }
}

Status Builder::Fail(Status st) {
  status_ = st;
  writer_.reset();
  ::unlink(tmp_path_.c_str());
  return st;
}

Status Builder::Add(std::string_view key, std::string_view value) {
  if (!status_.ok()) return status_;
  if (finished_) return Fail(Status::Usage("Add after Finish"));
  if (key.size() != options_.key_width) {
    return Fail(Status::Corruption("key width " + std::to_string(key.size()) +
                                   ", expected " +
                                   std::to_string(options_.key_width)));
  }
  if (value.size() > MaxValueSize(options_.key_width)) {
    return Fail(Status::Corruption(
        "value of " + std::to_string(value.size()) + " bytes exceeds maximum " +
        std::to_string(MaxValueSize(options_.key_width))));
  }
  if (stats_.key_count > 0) {
    const int c = key.compare(last_key_);
    if (c == 0) return Fail(Status::Corruption("duplicate key"));
    if (c < 0) return Fail(Status::Corruption("key not ascending"));
  }
  const int shard = static_cast<unsigned char>(key[0]);
  if (shard != shard_) {
    if (shard_ >= 0) FLATBENCH_RETURN_IF_ERROR(FinishShard());
    Status st = StartShard(shard);
    if (!st.ok()) return Fail(st);
  }
  if (!block_.Fits(value.size())) {
    Status st = FlushBlock();
    if (!st.ok()) return Fail(st);
  }
  if (block_.empty()) prefixes_.push_back(KeyPrefix(key.data(), key.size()));
  block_.Add(key, value);
  if (probes_ > 0) hashes_.push_back(FilterHash(key));
  last_key_.assign(key);
  shards_[shard].key_count++;
  stats_.key_count++;
  stats_.key_bytes += key.size();
  stats_.value_bytes += value.size();
  return Status::Ok();
}

Status Builder::StartShard(int shard) {
  FLATBENCH_RETURN_IF_ERROR(writer_->PadTo(kBlockSize));
  shard_ = shard;
  shards_[shard].data_offset = writer_->offset();
  prefixes_.clear();
  offsets_.clear();
  hashes_.clear();
  return Status::Ok();
}

// Raw blocks sit at data_offset + i * 4096 so the reader computes a block's
// address from its index position alone; compressed blocks are packed and
// their offsets kept in the index.
Status Builder::FlushBlock() {
  ShardEntry& e = shards_[shard_];
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
    FLATBENCH_RETURN_IF_ERROR(writer_->PadTo(kBlockSize));
  }
  const uint64_t offset = writer_->offset();
  if (options_.compress) offsets_.push_back(offset - e.data_offset);
  const size_t stored_len = kBlockHeaderSize + body_len;
  StoreU16(buf + 8, static_cast<uint16_t>(block_.count()));
  buf[10] = static_cast<char>(kind);
  buf[11] = 0;
  StoreU16(buf + 12, static_cast<uint16_t>(stored_len));
  StoreU16(buf + 14, static_cast<uint16_t>(raw_len));
  StoreU64(buf, Checksum(buf + 8, stored_len - 8, offset));
  FLATBENCH_RETURN_IF_ERROR(writer_->Append(std::string_view(buf, stored_len)));
  e.block_count++;
  stats_.block_count++;
  block_.Reset();
  return Status::Ok();
}

Status Builder::FinishShard() {
  Status st = [&]() -> Status {
    ShardEntry& e = shards_[shard_];
    if (!block_.empty()) FLATBENCH_RETURN_IF_ERROR(FlushBlock());
    e.data_bytes = writer_->offset() - e.data_offset;

    std::vector<char> index(IndexBytes(e.block_count, options_.compress));
    char* p = index.data();
    for (uint64_t prefix : prefixes_) StoreU64(p, prefix), p += 8;
    if (options_.compress) {
      for (uint64_t off : offsets_) StoreU64(p, off), p += 8;
      StoreU64(p, e.data_bytes);
    }
    // A fresh page: reading the index at open then pulls in no data page.
    FLATBENCH_RETURN_IF_ERROR(writer_->PadTo(kIndexAlign));
    e.index_offset = writer_->offset();
    e.index_checksum = Checksum(index.data(), index.size(), e.index_offset);
    FLATBENCH_RETURN_IF_ERROR(writer_->Append(Bytes(index)));
    stats_.index_bytes += index.size();

    const uint64_t lines = BloomLines(e.key_count, options_.bloom_bits_per_key);
    std::vector<char> filter(lines * kFilterLineBytes);
    for (uint64_t h : hashes_) BloomAdd(h, probes_, filter.data(), lines);
    e.filter_lines = static_cast<uint32_t>(lines);
    if (lines > 0) {
      FLATBENCH_RETURN_IF_ERROR(writer_->PadTo(kFilterAlign));
      e.filter_offset = writer_->offset();
    }
    e.filter_checksum = Checksum(filter.data(), filter.size(), e.filter_offset);
    FLATBENCH_RETURN_IF_ERROR(writer_->Append(Bytes(filter)));
    stats_.filter_bytes += filter.size();
    return Status::Ok();
  }();
  if (!st.ok()) return Fail(st);
  return st;
}

Status Builder::Finish() {
  if (!status_.ok()) return status_;
  if (finished_) return Status::Ok();
  if (shard_ >= 0) FLATBENCH_RETURN_IF_ERROR(FinishShard());
  Status st = [&]() -> Status {
    // Empty shards keep all-zero offsets; their empty index and filter
    // checksums are seeded with offset 0.
    for (ShardEntry& e : shards_) {
      if (e.key_count == 0) {
        e.index_checksum = Checksum("", 0, 0);
        e.filter_checksum = Checksum("", 0, 0);
      }
    }
    FLATBENCH_RETURN_IF_ERROR(writer_->PadTo(kDirectoryAlign));
    Header h;
    h.key_width = options_.key_width;
    h.flags = options_.compress ? kFlagZstd : 0;
    h.bloom_bits_per_key = options_.bloom_bits_per_key;
    h.bloom_probes = probes_;
    h.key_count = stats_.key_count;
    h.value_bytes = stats_.value_bytes;
    h.directory_offset = writer_->offset();
    std::vector<char> dir(kDirectorySize);
    for (size_t i = 0; i < kNumShards; ++i) {
      EncodeShardEntry(shards_[i], dir.data() + i * kShardEntrySize);
    }
    h.directory_checksum = Checksum(dir.data(), dir.size(), h.directory_offset);
    FLATBENCH_RETURN_IF_ERROR(writer_->Append(Bytes(dir)));
    h.file_size = writer_->offset();
    stats_.file_bytes = h.file_size;
    stats_.build_micros = NowMicros() - start_micros_;
    if (options_.record_build_time) {
      h.build_micros = stats_.build_micros;
      h.build_unix_seconds = static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::seconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count());
    }
    char header[kHeaderSize];
    EncodeHeader(h, header);
    FLATBENCH_RETURN_IF_ERROR(
        writer_->WriteAt(0, std::string_view(header, sizeof header)));
    FLATBENCH_RETURN_IF_ERROR(writer_->SyncAndClose());
    return RenameDurably(tmp_path_, path_);
  }();
  if (!st.ok()) return Fail(st);
  finished_ = true;
  writer_.reset();
  return Status::Ok();
}

}  // namespace flatbench::arena
