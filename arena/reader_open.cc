// Opening a Reader: validation of an untrusted file, in the order FORMAT.md
// lists, then loading (or, lazily, locating) each shard's index and filter.
//
// Nothing is mapped until every size and offset has been checked with pread
// reads of the header and directory, so a short or garbage file is an error
// and never a SIGBUS. The shard directory itself is checked in
// reader_directory.cc.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "arena/bloom.h"
#include "arena/reader.h"

namespace flatbench::arena {
namespace {

Status PreadFully(int fd, char* p, size_t n, uint64_t off) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(off));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("read");
    }
    if (r == 0) return Status::IOError("short read");
    p += r;
    n -= static_cast<size_t>(r);
    off += static_cast<uint64_t>(r);
  }
  return Status::Ok();
}

}  // namespace

const char* ReadPathName(ReadPath path) {
  switch (path) {
    case ReadPath::kMmap:
      return "mmap";
    case ReadPath::kPread:
      return "pread";
    case ReadPath::kDirect:
      return "direct";
    case ReadPath::kCache:
      return "cache";
  }
  return "mmap";
}

Result<std::unique_ptr<Reader>> Reader::Open(const std::string& path,
                                             const ReaderOptions& options) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open " + path);
  int data_fd = -1;
  std::string direct_refused;
  if (options.read_path == ReadPath::kDirect) {
    data_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
    if (data_fd < 0) {
      Status st = Status::FromErrno("open " + path + " with O_DIRECT");
      ::close(fd);
      return st;
    }
  } else if (options.read_path == ReadPath::kCache) {
    if (!options.direct_cache_loads) {
      direct_refused = "O_DIRECT loads not asked for";
    } else {
      // Not fatal: loads are then buffered, as on a file system (or an
      // older tmpfs) that refuses O_DIRECT.
      data_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
      if (data_fd < 0) {
        direct_refused =
            std::string("open with O_DIRECT refused: ") + std::strerror(errno);
      }
    }
  }
  auto r = OpenWith(fd, data_fd, path, options, std::move(direct_refused));
  ::close(fd);
  return r;
}

Result<std::unique_ptr<Reader>> Reader::OpenFd(int fd, const std::string& name,
                                               const ReaderOptions& options) {
  if (options.read_path == ReadPath::kDirect) {
    return Status::Usage(name + ": the direct read path needs Reader::Open");
  }
  return OpenWith(fd, -1, name, options,
                  "opened from a descriptor, no path to open with O_DIRECT");
}

// Takes over `data_fd` (the O_DIRECT descriptor, or -1). `direct_refused`
// says why the cache path has no O_DIRECT descriptor.
Result<std::unique_ptr<Reader>> Reader::OpenWith(int fd, int data_fd,
                                                 const std::string& name,
                                                 const ReaderOptions& options,
                                                 std::string direct_refused) {
  std::unique_ptr<Reader> reader(new Reader());
  reader->name_ = name;
  if (options.read_path == ReadPath::kCache) {
    reader->direct_fd_ = data_fd;
  } else {
    reader->data_fd_ = data_fd;
  }
  reader->cache_loads_ = std::move(direct_refused);
  reader->read_path_ = options.read_path;
  if (options.read_path == ReadPath::kPread ||
      options.read_path == ReadPath::kCache) {
    reader->data_fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (reader->data_fd_ < 0) return Status::FromErrno("dup " + name);
  } else if (options.read_path == ReadPath::kMmap) {
    // A batch (MultiGet) reads the blocks it lacks with io_uring from a
    // descriptor; without one it reads them through the map.
    reader->data_fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) return Status::FromErrno("stat " + name);
  // A device, FIFO or directory holds no arena: bad data (README's exit
  // table), as an empty regular file is.
  if (!S_ISREG(st.st_mode)) {
    return Status::Corruption(name + ": not a regular file");
  }
  // No readahead on this file: the metadata preads below would otherwise
  // pull megabytes of neighbouring data blocks into the page cache at open
  // (read_ahead_kb is often 128 KiB to 8 MiB), and a cold read that follows
  // would find its page already resident. The pread path shares the open
  // file description, so this covers it too; O_DIRECT bypasses the cache.
  if (const int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); rc != 0) {
    reader->advice_warnings_.push_back(
        "posix_fadvise(POSIX_FADV_RANDOM) failed: " +
        std::string(std::strerror(rc)));
  }
  Status s = reader->Validate(fd, static_cast<uint64_t>(st.st_size), options);
  if (!s.ok()) return s.WithContext(name);
  return reader;
}

Reader::~Reader() {
  if (map_ != nullptr) ::munmap(const_cast<char*>(map_), map_size_);
  if (data_fd_ >= 0) ::close(data_fd_);
  if (direct_fd_ >= 0) ::close(direct_fd_);
}

Status Reader::Validate(int fd, uint64_t size, const ReaderOptions& options) {
  char hb[kHeaderSize] = {};
  const size_t head =
      static_cast<size_t>(std::min<uint64_t>(size, kHeaderSize));
  FLATBENCH_RETURN_IF_ERROR(PreadFully(fd, hb, head, 0));
  if (head < kMagic.size() ||
      std::memcmp(hb, kMagic.data(), kMagic.size()) != 0) {
    return Status::NotOurFormat("not an arena file");
  }
  if (head < kHeaderSize) return Status::Corruption("truncated header");
  const Header h = DecodeHeader(hb);
  if (h.format_version < kOldestReadableVersion ||
      h.format_version > kFormatVersion) {
    return Status::VersionMismatch(
        "unsupported version " + std::to_string(h.format_version) +
        " (this build reads " + std::to_string(kOldestReadableVersion) + ".." +
        std::to_string(kFormatVersion) + ")");
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
  if (h.directory_offset < kFirstDataOffset ||
      h.directory_offset % kDirectoryAlign != 0 || h.directory_offset > size ||
      size - h.directory_offset != kDirectorySize) {
    return Status::Corruption("directory out of bounds");
  }
  // The directory is read with pread, so a file that fails validation is
  // never mapped.
  std::vector<char> dir(kDirectorySize);
  FLATBENCH_RETURN_IF_ERROR(
      PreadFully(fd, dir.data(), dir.size(), h.directory_offset));
  if (Checksum(dir.data(), kDirectorySize, h.directory_offset) !=
      h.directory_checksum) {
    return Status::Corruption("directory checksum mismatch");
  }
  key_width_ = h.key_width;
  probes_ = h.bloom_probes;
  compressed_ = (h.flags & kFlagZstd) != 0;
  verify_ = options.verify_checksums;
  FLATBENCH_RETURN_IF_ERROR(
      CheckDirectory(dir.data(), h.directory_offset, h.key_count));
  if (!options.lazy) FLATBENCH_RETURN_IF_ERROR(LoadMetadata(fd));

  // Every size and offset is now known to be in bounds, so every page the
  // reader can touch is backed by the file.
  void* m = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return Status::FromErrno("mmap");
  map_ = static_cast<const char*>(m);
  map_size_ = size;
  FLATBENCH_RETURN_IF_ERROR(SetUpShards(options));
  FLATBENCH_RETURN_IF_ERROR(SetUpVerification(options));
  if (options.read_path == ReadPath::kCache) SetUpCacheLoads();
  ProbeCachestat();
  // Metadata is loaded; from now on the map is read a block at a time.
  // The fd's POSIX_FADV_RANDOM does not reach the fault path: without
  // MADV_RANDOM a cold hit reads 16-52 KB through the map instead of one
  // 4 KiB block (RESEARCH.md section 8, "Where the mmap reader's cold time
  // goes", which also measured MADV_NORMAL, one map per shard and huge
  // pages; none beat this).
  if (::madvise(m, size, MADV_RANDOM) != 0) {
    advice_warnings_.push_back("madvise(MADV_RANDOM) failed: " +
                               std::string(std::strerror(errno)));
  }
  FillInfo(h, options);
  return Status::Ok();
}

// Copies every index and filter into two owned arrays with pread (no page
// faults through the map; each index starts on its own page, so no data page
// is read) and checks the copies, so what is verified is what is used. The
// directory check guarantees the regions are disjoint, so the arrays are
// never larger than the file.
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
        PreadFully(fd, index_out, index_bytes, e.index_offset));
    if (Checksum(index_out, index_bytes, e.index_offset) != e.index_checksum) {
      return Status::Corruption("shard " + std::to_string(i) +
                                ": index checksum mismatch");
    }
    index_out += index_bytes;
    const uint64_t filter_bytes = uint64_t{e.filter_lines} * kFilterLineBytes;
    FLATBENCH_RETURN_IF_ERROR(
        PreadFully(fd, filter_out, filter_bytes, e.filter_offset));
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
  const char* index_in = reinterpret_cast<const char*>(owned_index_.data());
  const FilterLine* filter_in = owned_filter_.data();
  uint64_t first_block = 0;
  for (size_t i = 0; i < kNumShards; ++i) {
    const ShardEntry& e = entries_[i];
    Shard& s = shards_[i];
    // Block numbers are u32 (bitmap and cache words); a file past 2^32 - 2
    // blocks (16 TiB) keeps its shards' numbers clamped and reads without
    // them (SetUpVerification).
    s.first_block =
        static_cast<uint32_t>(std::min<uint64_t>(first_block, UINT32_MAX));
    first_block += e.block_count;
    total_blocks_ = first_block;
    if (e.block_count == 0) continue;
    const char* index = map_ + e.index_offset;
    const char* filter = map_ + e.filter_offset;
    if (!options.lazy) {
      index = index_in;
      index_in += IndexBytes(e.block_count, compressed_);
      filter = reinterpret_cast<const char*>(filter_in);
      filter_in += e.filter_lines;
    }
    s.prefixes = index;
    s.offsets = compressed_ ? index + 8 * uint64_t{e.block_count} : nullptr;
    s.data = map_ + e.data_offset;
    s.filter = filter;
    s.data_offset = e.data_offset;
    s.data_bytes = e.data_bytes;
    s.block_count = e.block_count;
    s.filter_lines = e.filter_lines;
    // A hint only (PrefetchBlock), kept to what one block can hold, so a
    // wrong directory count cannot aim a prefetch outside the block.
    const uint64_t max_count = kBlockPayload / (key_width_ + kValueEndSize);
    s.count_hint = static_cast<uint32_t>(
        std::clamp<uint64_t>(e.key_count / e.block_count, 1, max_count));
    if (!options.lazy && compressed_) {
      FLATBENCH_RETURN_IF_ERROR(CheckBlockOffsets(static_cast<int>(i)));
    }
  }
  return Status::Ok();
}

// The mmap path's verify-once bitmap, or the cache path's cache.
Status Reader::SetUpVerification(const ReaderOptions& options) {
  const bool numbered = total_blocks_ < UINT32_MAX;
  if (options.read_path == ReadPath::kCache) {
    if (!numbered) {
      return Status::Usage(
          "the cache read path numbers at most 2^32 - 2 "
          "blocks; this file has " +
          std::to_string(total_blocks_));
    }
    FLATBENCH_ASSIGN_OR_RETURN(
        cache_, BlockCache::Create(total_blocks_, options.cache_bytes));
  } else if (options.read_path == ReadPath::kMmap && verify_ &&
             !options.verify_every_read && numbered) {
    verified_ =
        std::make_unique<std::atomic<uint64_t>[]>((total_blocks_ + 63) / 64);
  }
  return Status::Ok();
}

// O_DIRECT needs the file offset, length and buffer aligned to the
// device's logical block: a load reads the block's whole page into a frame
// (or the ReadBuffer's I/O area), so every block must start on a page. An
// uncompressed file's blocks do when each shard's data region does; a
// compressed file packs blocks at any offset.
void Reader::SetUpCacheLoads() {
  if (direct_fd_ < 0) return;
  const char* why = nullptr;
  if (compressed_) {
    why = "compressed blocks are not page-aligned";
  } else {
    for (const Shard& s : shards_) {
      if (s.block_count != 0 && s.data_offset % kBlockSize != 0) {
        why = "a shard's data region is not page-aligned";
      }
    }
  }
  if (why == nullptr) {
    cache_loads_ = "O_DIRECT";
    return;
  }
  ::close(direct_fd_);
  direct_fd_ = -1;
  cache_loads_ = why;
}

// PageCached's question, asked of every read path that has a descriptor:
// the cache path's loads and the batches of every path.
void Reader::ProbeCachestat() {
#if defined(__x86_64__) || defined(__aarch64__)
  if (data_fd_ < 0) return;
  CachestatRange range{0, kBlockSize};
  Cachestat stat{};
  cachestat_ = ::syscall(kSysCachestat, data_fd_, &range, &stat, 0) == 0;
#endif
}

}  // namespace flatbench::arena
