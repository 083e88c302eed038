#include "arena/builder.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

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

Result<std::unique_ptr<Builder>> Builder::Create(const std::string& path,
                                                 const BuilderOptions& options,
                                                 unsigned jobs) {
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
  auto builder = std::unique_ptr<Builder>(
      new Builder(path, options, jobs, std::move(writer)));
  // Reserve the header page; the header itself is written by Finish.
  static constexpr char kZeros[kFirstDataOffset] = {};
  Status st = builder->writer_->Append(std::string_view(kZeros, sizeof kZeros));
  if (!st.ok()) return builder->Fail(st);
  return builder;
}

Builder::Builder(std::string path, const BuilderOptions& options, unsigned jobs,
                 std::unique_ptr<FileWriter> writer)
    : path_(std::move(path)),
      tmp_path_(path_ + ".tmp"),
      options_(options),
      jobs_(std::max(1u, jobs)),
      writer_(std::move(writer)),
      start_micros_(NowMicros()),
      shard_builder_(options_) {}

Builder::~Builder() {
  flight_.clear();  // Joins the shard threads still running.
  if (!finished_ && writer_ != nullptr) {
    writer_.reset();
    ::unlink(tmp_path_.c_str());
  }
}

Status Builder::Fail(Status st) {
  status_ = st;
  flight_.clear();
  collecting_.reset();
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
  if (shard == shard_ && !shard_open_) {
    return Fail(Status::Usage("a key of shard " + std::to_string(shard) +
                              " after that shard was added whole"));
  }
  if (shard != shard_) {
    if (shard_open_) {
      Status st = EndShard(jobs_ - 1);
      if (!st.ok()) return Fail(st);
    }
    shard_ = shard;
    shard_open_ = true;
    if (jobs_ == 1) {
      shard_builder_.Start(shard);
    } else {
      collecting_ = std::make_unique<ShardJob>();
      collecting_->shard = shard;
    }
  }
  if (jobs_ == 1) {
    shard_builder_.Add(key, value);
  } else {
    std::string& p = collecting_->pairs;
    const uint16_t len = static_cast<uint16_t>(value.size());
    p.append(key);
    p.append(reinterpret_cast<const char*>(&len), sizeof len);
    p.append(value);
  }
  last_key_.assign(key);
  shards_[shard].key_count++;
  stats_.key_count++;
  stats_.key_bytes += key.size();
  stats_.value_bytes += value.size();
  return Status::Ok();
}

Status Builder::Write(ShardImage* image) {
  FLATBENCH_ASSIGN_OR_RETURN(ShardEntry e, WriteShard(writer_.get(), image));
  shards_[image->shard] = e;
  stats_.block_count += e.block_count;
  stats_.index_bytes += image->index_bytes;
  stats_.filter_bytes += image->filter_bytes;
  return Status::Ok();
}

Status Builder::AddShard(BuiltShard* shard) {
  if (!status_.ok()) return status_;
  if (finished_) return Fail(Status::Usage("AddShard after Finish"));
  const ShardImage& image = shard->image;
  if (image.entry.key_count == 0) return Status::Ok();
  if (stats_.key_count > 0) {
    const int c = std::string_view(shard->first_key).compare(last_key_);
    if (c == 0) return Fail(Status::Corruption("duplicate key"));
    if (c < 0) return Fail(Status::Corruption("key not ascending"));
  }
  Status st = EndShard(0);
  if (!st.ok()) return Fail(st);
  shard_ = image.shard;
  shard_open_ = false;
  st = Write(&shard->image);
  if (!st.ok()) return Fail(st);
  last_key_ = std::move(shard->last_key);
  stats_.key_count += shard->image.entry.key_count;
  stats_.key_bytes += shard->key_bytes;
  stats_.value_bytes += shard->value_bytes;
  return Status::Ok();
}

Status Builder::EndShard(size_t keep) {
  if (jobs_ == 1) {
    if (!shard_open_) return Status::Ok();
    shard_open_ = false;
    ShardImage image = shard_builder_.Finish();
    return Write(&image);
  }
  if (collecting_ != nullptr) {
    ShardJob* job = collecting_.get();
    const size_t width = options_.key_width;
    job->thread = std::jthread([this, job, width] {
      // Its own ShardBuilder: threads share nothing but the options.
      ShardBuilder b(options_);
      b.Start(job->shard);
      const char* p = job->pairs.data();
      const char* end = p + job->pairs.size();
      while (p < end) {
        uint16_t len;
        std::memcpy(&len, p + width, sizeof len);
        b.Add(std::string_view(p, width),
              std::string_view(p + width + sizeof len, len));
        p += width + sizeof len + len;
      }
      std::string().swap(job->pairs);
      job->image = b.Finish();
    });
    flight_.push_back(std::move(collecting_));
  }
  while (flight_.size() > keep) {
    std::unique_ptr<ShardJob> job = std::move(flight_.front());
    flight_.pop_front();
    job->thread.join();
    FLATBENCH_RETURN_IF_ERROR(Write(&job->image));
  }
  return Status::Ok();
}

Status Builder::Finish() {
  if (!status_.ok()) return status_;
  if (finished_) return Status::Ok();
  Status st = [&]() -> Status {
    FLATBENCH_RETURN_IF_ERROR(EndShard(0));
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
    h.bloom_probes = BloomProbes(options_.bloom_bits_per_key);
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
