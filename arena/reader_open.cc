// Opening a Reader: validation of an untrusted file, in the order FORMAT.md
// lists, then loading (or, lazily, locating) each shard's index and filter.
//
// Nothing is mapped until every size and offset has been checked with pread
// reads of the header and directory, so a short or garbage file is an error
// and never a SIGBUS.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "arena/bloom.h"
#include "arena/reader.h"

namespace flatbench::arena {
namespace {

// True when [off, off + len) lies within [0, size); overflow-safe.
bool InBounds(uint64_t off, uint64_t len, uint64_t size) {
  return len <= size && off <= size - len;
}
Status PreadFully(int fd, char* p, size_t n, uint64_t off,
                  const std::string& name) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(off));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("read " + name);
    }
    if (r == 0) return Status::IOError("read " + name + ": short read");
    p += r;
    n -= static_cast<size_t>(r);
    off += static_cast<uint64_t>(r);
  }
  return Status::Ok();
}
}  // namespace

Result<std::unique_ptr<Reader>> Reader::Open(const std::string& path,
                                             const ReaderOptions& options) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open " + path);
  auto r = OpenFd(fd, path, options);
  ::close(fd);
  return r;
}

Result<std::unique_ptr<Reader>> Reader::OpenFd(int fd, const std::string& name,
                                               const ReaderOptions& options) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return Status::FromErrno("stat " + name);
  if (!S_ISREG(st.st_mode)) return Status::Usage(name + ": not a regular file");
  // No readahead on this file: the metadata preads below would otherwise
  // pull megabytes of neighbouring data blocks into the page cache at open
  // (read_ahead_kb is often 128 KiB to 8 MiB), and a cold read that follows
  // would find its page already resident.
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
  std::unique_ptr<Reader> reader(new Reader());
  reader->name_ = name;
  Status s = reader->Validate(fd, static_cast<uint64_t>(st.st_size), options);
  if (!s.ok()) return s.WithContext(name);
  return reader;
}

Reader::~Reader() {
  if (map_ != nullptr) ::munmap(const_cast<char*>(map_), map_size_);
}

Status Reader::Validate(int fd, uint64_t size, const ReaderOptions& options) {
  char hb[kHeaderSize] = {};
  const size_t head =
      static_cast<size_t>(std::min<uint64_t>(size, kHeaderSize));
  FLATBENCH_RETURN_IF_ERROR(PreadFully(fd, hb, head, 0, name_));
  if (head < kMagic.size() ||
      std::memcmp(hb, kMagic.data(), kMagic.size()) != 0) {
    return Status::Corruption("not an arena file");
  }
  if (head < kHeaderSize) return Status::Corruption("truncated header");
  const Header h = DecodeHeader(hb);
  if (h.format_version < kOldestReadableVersion ||
      h.format_version > kFormatVersion) {
    return Status::Corruption("unsupported version " +
                              std::to_string(h.format_version));
  }
  if (Checksum(hb, kHeaderChecksumOffset, 0) !=
      LoadU64(hb + kHeaderChecksumOffset)) {
    return Status::Corruption("header checksum mismatch");
  }
  if (h.file_size != size) {
    return Status::Corruption("file size " + std::to_string(size) +
                              " does not match header (" +
                              std::to_string(h.file_size) + ")");
  }
  if (LoadU32(hb + 12) != kHeaderSize || LoadU32(hb + 16) != kBlockSize ||
      LoadU32(hb + 36) != kNumShards) {
    return Status::Corruption("unexpected header geometry");
  }
  if (h.key_width < kMinKeyWidth || h.key_width > kMaxKeyWidth) {
    return Status::Corruption("bad key width " + std::to_string(h.key_width));
  }
  if ((h.flags & ~kKnownFlags) != 0) return Status::Corruption("unknown flags");
  if (h.bloom_bits_per_key > kMaxBloomBitsPerKey ||
      h.bloom_probes != BloomProbes(h.bloom_bits_per_key)) {
    return Status::Corruption("bad bloom settings");
  }
  if (h.directory_offset < kFirstDataOffset || h.directory_offset % 8 != 0 ||
      !InBounds(h.directory_offset, kDirectorySize, size) ||
      h.directory_offset + kDirectorySize != size) {
    return Status::Corruption("directory out of bounds");
  }
  // The directory is read with pread, so a file that fails validation is
  // never mapped.
  std::vector<char> dir(kDirectorySize);
  FLATBENCH_RETURN_IF_ERROR(
      PreadFully(fd, dir.data(), dir.size(), h.directory_offset, name_));
  if (Checksum(dir.data(), kDirectorySize, h.directory_offset) !=
      h.directory_checksum) {
    return Status::Corruption("directory checksum mismatch");
  }
  key_width_ = h.key_width;
  probes_ = h.bloom_probes;
  compressed_ = (h.flags & kFlagZstd) != 0;
  verify_ = options.verify_checksums;

  const uint64_t data_end = h.directory_offset;
  const uint64_t max_per_block = kBlockPayload / (key_width_ + kValueEndSize);
  uint64_t keys = 0;
  for (size_t i = 0; i < kNumShards; ++i) {
    const ShardEntry e = DecodeShardEntry(dir.data() + i * kShardEntrySize);
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
    if (e.data_offset < kFirstDataOffset || e.data_offset % kBlockSize != 0 ||
        !InBounds(e.data_offset, e.data_bytes, data_end)) {
      return Status::Corruption(where() + "data out of bounds");
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
    if (e.index_offset % kIndexAlign != 0 ||
        !InBounds(e.index_offset, IndexBytes(blocks, compressed_), data_end)) {
      return Status::Corruption(where() + "index out of bounds");
    }
    const uint64_t filter_bytes = uint64_t{e.filter_lines} * kFilterLineBytes;
    if (e.filter_lines == 0
            ? e.filter_offset != 0
            : (probes_ == 0 || e.filter_offset % kFilterAlign != 0 ||
               !InBounds(e.filter_offset, filter_bytes, data_end))) {
      return Status::Corruption(where() + "filter out of bounds");
    }
    keys += e.key_count;
  }
  if (keys != h.key_count) {
    return Status::Corruption("shard key counts do not add up to header");
  }
  if (!options.lazy) FLATBENCH_RETURN_IF_ERROR(LoadMetadata(fd));

  // Every size and offset is now known to be in bounds, so every page the
  // reader can touch is backed by the file.
  void* m = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return Status::FromErrno("mmap");
  map_ = static_cast<const char*>(m);
  map_size_ = size;
  FLATBENCH_RETURN_IF_ERROR(SetUpShards(options));
  // Metadata is loaded; from now on the map is read a block at a time.
  ::madvise(m, size, MADV_RANDOM);

  info_.path = name_;
  info_.format_version = h.format_version;
  info_.key_width = key_width_;
  info_.compressed = compressed_;
  info_.bloom_bits_per_key = h.bloom_bits_per_key;
  info_.bloom_probes = probes_;
  info_.lazy = options.lazy;
  info_.verify_checksums = options.verify_checksums;
  info_.file_bytes = size;
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
  info_.expected_fp_rate =
      info_.nonempty_shards > 0 ? fp_sum / info_.nonempty_shards : 1.0;
  return Status::Ok();
}

// Copies every index and filter into two owned arrays with pread (one
// sequential read each, no page faults through the map) and checks the
// copies, so what is verified is what is used.
Status Reader::LoadMetadata(int fd) {
  uint64_t index_words = 0;
  uint64_t filter_lines = 0;
  for (const ShardEntry& e : entries_) {
    index_words += IndexBytes(e.block_count, compressed_) / 8;
    filter_lines += e.filter_lines;
  }
  owned_index_.resize(index_words);
  owned_filter_.resize(filter_lines);
  char* index_out = reinterpret_cast<char*>(owned_index_.data());
  char* filter_out = reinterpret_cast<char*>(owned_filter_.data());
  for (size_t i = 0; i < kNumShards; ++i) {
    const ShardEntry& e = entries_[i];
    if (e.block_count == 0) continue;
    const uint64_t index_bytes = IndexBytes(e.block_count, compressed_);
    FLATBENCH_RETURN_IF_ERROR(
        PreadFully(fd, index_out, index_bytes, e.index_offset, name_));
    if (Checksum(index_out, index_bytes, e.index_offset) != e.index_checksum) {
      return Status::Corruption("shard " + std::to_string(i) +
                                ": index checksum mismatch");
    }
    index_out += index_bytes;
    const uint64_t filter_bytes = uint64_t{e.filter_lines} * kFilterLineBytes;
    FLATBENCH_RETURN_IF_ERROR(
        PreadFully(fd, filter_out, filter_bytes, e.filter_offset, name_));
    if (Checksum(filter_out, filter_bytes, e.filter_offset) !=
        e.filter_checksum) {
      return Status::Corruption("shard " + std::to_string(i) +
                                ": filter checksum mismatch");
    }
    filter_out += filter_bytes;
  }
  return Status::Ok();
}

// Points each shard at its index and filter: the owned copies, or the map
// when lazy.
Status Reader::SetUpShards(const ReaderOptions& options) {
  const uint64_t* index_in = owned_index_.data();
  const FilterLine* filter_in = owned_filter_.data();
  for (size_t i = 0; i < kNumShards; ++i) {
    const ShardEntry& e = entries_[i];
    Shard& s = shards_[i];
    if (e.block_count == 0) continue;
    const char* index = map_ + e.index_offset;
    const char* filter = map_ + e.filter_offset;
    if (!options.lazy) {
      index = reinterpret_cast<const char*>(index_in);
      index_in += IndexBytes(e.block_count, compressed_) / 8;
      filter = reinterpret_cast<const char*>(filter_in);
      filter_in += e.filter_lines;
    }
    s.prefixes = reinterpret_cast<const uint64_t*>(index);
    s.offsets = compressed_ ? s.prefixes + e.block_count : nullptr;
    s.data = map_ + e.data_offset;
    s.filter = filter;
    s.data_offset = e.data_offset;
    s.data_bytes = e.data_bytes;
    s.block_count = e.block_count;
    s.filter_lines = e.filter_lines;
    if (!options.lazy && compressed_) {
      FLATBENCH_RETURN_IF_ERROR(CheckBlockOffsets(static_cast<int>(i)));
    }
  }
  return Status::Ok();
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
    if (s.prefixes[b] > s.prefixes[b + 1]) {
      return Status::Corruption(where() + "index not ascending");
    }
  }
  return CheckBlockOffsets(shard);
}

Status Reader::CheckBlockOffsets(int shard) const {
  const Shard& s = shards_[shard];
  auto where = [shard] { return "shard " + std::to_string(shard) + ": "; };
  if (compressed_) {
    if (s.offsets[0] != 0 || s.offsets[s.block_count] != s.data_bytes) {
      return Status::Corruption(where() + "bad block offsets");
    }
    for (uint32_t b = 0; b < s.block_count; ++b) {
      if (s.offsets[b] >= s.offsets[b + 1] ||
          s.offsets[b + 1] - s.offsets[b] > kBlockSize) {
        return Status::Corruption(where() + "bad block offsets");
      }
    }
  }
  return Status::Ok();
}

}  // namespace flatbench::arena
