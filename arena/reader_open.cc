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

// The header's checks, in FORMAT.md's order, up to the directory's bounds.
Status ReadHeader(int fd, uint64_t size, Header* out) {
  char hb[kHeaderSize] = {};
  const size_t head =
      static_cast<size_t>(std::min<uint64_t>(size, kHeaderSize));
  FLATBENCH_RETURN_IF_ERROR(PreadFully(fd, hb, head, 0));
  if (head < kMagic.size() ||
      std::memcmp(hb, kMagic.data(), kMagic.size()) != 0) {
    return Status::NotOurFormat("not an arena file");
  }
  if (head < kHeaderSize) return Status::Corruption("truncated header");
  *out = DecodeHeader(hb);
  const Header& h = *out;
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
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Reader>> Reader::Open(const std::string& path,
                                             const ReaderOptions& options) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open " + path);
  auto r = OpenWith(fd, &path, path, options);
  ::close(fd);
  return r;
}

Result<std::unique_ptr<Reader>> Reader::OpenFd(int fd, const std::string& name,
                                               const ReaderOptions& options) {
  return OpenWith(fd, nullptr, name, options);
}

// The read path's source is made first: it opens what it reads with (a
// duplicate of `fd`, the file again with O_DIRECT), so a path that cannot
// read this file refuses before the file is examined.
Result<std::unique_ptr<Reader>> Reader::OpenWith(int fd,
                                                 const std::string* path,
                                                 const std::string& name,
                                                 const ReaderOptions& options) {
  std::unique_ptr<Reader> reader(new Reader());
  reader->name_ = name;
  reader->read_path_ = options.read_path;
  FLATBENCH_ASSIGN_OR_RETURN(
      reader->source_,
      ReadPathOf(options.read_path).open(SourceOpen{path, fd, name, options}));
  reader->needs_buffer_ = reader->source_->NeedsBuffer();
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
  source_.reset();  // it borrows the map
  if (map_ != nullptr) ::munmap(const_cast<char*>(map_), map_size_);
}

Status Reader::Validate(int fd, uint64_t size, const ReaderOptions& options) {
  Header h;
  FLATBENCH_RETURN_IF_ERROR(ReadHeader(fd, size, &h));
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
  FLATBENCH_RETURN_IF_ERROR(AttachSource());
  // Metadata is loaded; from now on the map is read a block at a time.
  // The fd's POSIX_FADV_RANDOM does not reach the fault path: without
  // MADV_RANDOM a cold hit's fault reads the pages around it too, not one
  // 4 KiB block (RESEARCH.md section 8, "Where the mmap reader's cold time
  // goes", which also compares MADV_NORMAL, one map per shard and huge
  // pages with this).
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
    // them (the block sources' Attach).
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

// What the source reads: the map, the blocks' shape and number, and
// whether every block can be read with O_DIRECT (every shard's data region
// starts on a page; the directory check makes it so, and it is asked again
// here rather than assumed).
Status Reader::AttachSource() {
  FileView file;
  file.map = map_;
  file.format = BlockFormat{key_width_, compressed_};
  file.blocks = total_blocks_;
  for (const Shard& s : shards_) {
    if (s.block_count != 0 && s.data_offset % kBlockSize != 0) {
      file.data_aligned = false;
    }
  }
  return source_->Attach(file);
}

}  // namespace flatbench::arena
