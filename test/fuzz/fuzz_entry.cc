#include "test/fuzz/fuzz_entry.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "arena/batch.h"
#include "arena/iterator.h"
#include "arena/reader.h"
#include "arena/verify.h"

namespace flatbench::arena {
namespace {

// The batch path (Reader::MultiGet) on `keys`, twice (with io_uring where
// built, and the pread loop): every answer must be Get's, status, message
// and value; a difference is a crash the fuzzer reports.
void CheckBatch(const Reader& reader, const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  std::vector<std::string_view> views(keys.begin(), keys.end());
  // A repeat and a key of the wrong width ride along.
  views.push_back(keys.front());
  const std::string short_key(reader.key_width() > 1 ? 1 : 2, 'k');
  views.push_back(short_key);
  std::vector<GetResult> results(views.size());
  ReadBuffer buffer;
  for (const bool uring : {true, false}) {
    BatchScratch scratch(uring);
    reader.MultiGet(views, results, &scratch);
    for (size_t i = 0; i < views.size(); ++i) {
      bool found = false;
      std::string_view value;
      const Status st = reader.Get(views[i], &found, &value, &buffer);
      const GetResult& r = results[i];
      if (r.status.code() != st.code() || r.status.message() != st.message() ||
          (st.ok() && (r.found != found || (found && r.value != value)))) {
        __builtin_trap();
      }
    }
  }
}

// Looks up keys cut from the input and keys produced by a scan, one by one
// and as batches.
void CheckLookups(const Reader& reader, const uint8_t* data, size_t size) {
  ReadBuffer buffer;
  bool found = false;
  std::string_view value;
  std::vector<std::string> batch;
  // Keys cut from the input itself land in real shards and blocks.
  const size_t w = reader.key_width();
  for (size_t off = 0; off + w <= size && off < 64 * 1024; off += 509) {
    std::string key(reinterpret_cast<const char*>(data) + off, w);
    (void)reader.Get(key, &found, &value, &buffer);
    batch.push_back(std::move(key));
  }
  CheckBatch(reader, batch);
  batch.clear();
  // Keys from a scan, looked up and re-sought.
  Iterator it(reader);
  int n = 0;
  for (it.SeekToFirst(); it.Valid() && n < 256; it.Next(), ++n) {
    const std::string key(it.key());
    (void)reader.Get(key, &found, &value, &buffer);
    it.Seek(key);
    if (n % 4 == 0) batch.push_back(key);
  }
  CheckBatch(reader, batch);
  (void)reader.MeasureFalsePositiveRate(16, 1);
}

// Random bytes almost never carry valid checksums, so a fuzzer mutating a
// seed stops at "checksum mismatch". This rewrites every checksum it can
// locate (header, directory, index, filter, blocks) so the structural checks
// and the block decoders behind them get exercised too. It trusts nothing:
// every location is bounds-checked first.
std::string FixChecksums(const uint8_t* data, size_t size) {
  std::string b(reinterpret_cast<const char*>(data), size);
  if (size < kHeaderSize) return b;
  const Header h = DecodeHeader(b.data());
  const bool compressed = (h.flags & kFlagZstd) != 0;
  auto in = [size](uint64_t off, uint64_t len) {
    return len <= size && off <= size - len;
  };
  const uint64_t dir_off = h.directory_offset;
  if (in(dir_off, kDirectorySize)) {
    for (size_t s = 0; s < kNumShards; ++s) {
      char* entry = b.data() + dir_off + s * kShardEntrySize;
      ShardEntry e = DecodeShardEntry(entry);
      const uint64_t index_bytes = IndexBytes(e.block_count, compressed);
      if (in(e.index_offset, index_bytes)) {
        e.index_checksum =
            Checksum(b.data() + e.index_offset, index_bytes, e.index_offset);
      }
      const uint64_t filter_bytes = uint64_t{e.filter_lines} * kFilterLineBytes;
      if (in(e.filter_offset, filter_bytes)) {
        e.filter_checksum =
            Checksum(b.data() + e.filter_offset, filter_bytes, e.filter_offset);
      }
      const uint64_t blocks = std::min<uint64_t>(e.block_count, size / 16);
      for (uint64_t i = 0; i < blocks; ++i) {
        uint64_t off = e.data_offset + i * kBlockSize;
        if (compressed) {
          const uint64_t slot = e.index_offset + (e.block_count + i) * 8;
          if (!in(slot, 8)) break;
          off = e.data_offset + LoadU64(b.data() + slot);
        }
        if (off < e.data_offset || !in(off, kBlockHeaderSize)) break;
        const uint64_t len = LoadU16(b.data() + off + 12);
        if (len < 8 || !in(off, len)) continue;
        StoreU64(b.data() + off, Checksum(b.data() + off + 8, len - 8, off));
      }
      EncodeShardEntry(e, entry);
    }
    StoreU64(b.data() + 72,
             Checksum(b.data() + dir_off, kDirectorySize, dir_off));
  }
  StoreU64(b.data() + kHeaderChecksumOffset,
           Checksum(b.data(), kHeaderChecksumOffset, 0));
  return b;
}

int OpenAndExercise(const uint8_t* data, size_t size);

}  // namespace

int FuzzArenaBytes(const uint8_t* data, size_t size) {
  const int opened = OpenAndExercise(data, size);
  const std::string fixed = FixChecksums(data, size);
  OpenAndExercise(reinterpret_cast<const uint8_t*>(fixed.data()), fixed.size());
  return opened;
}

namespace {

int OpenAndExercise(const uint8_t* data, size_t size) {
  const int fd = ::memfd_create("arena_fuzz", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t done = 0;
  while (done < size) {
    const ssize_t w = ::write(fd, data + done, size - done);
    if (w <= 0) {
      ::close(fd);
      return 0;
    }
    done += static_cast<size_t>(w);
  }
  int opened = 0;
  for (int mode = 0; mode < 5; ++mode) {
    ReaderOptions options;
    options.lazy = (mode & 1) != 0;
    options.verify_checksums = (mode & 2) != 0 || mode == 4;
    // The pread read path shares every check but the block fetch.
    if (mode == 3) options.read_path = ReadPath::kPread;
    // The cache read path, with its smallest cache (64 frames), so lookups
    // also evict.
    if (mode == 4) {
      options.read_path = ReadPath::kCache;
      options.cache_bytes = 0;
    }
    auto reader = Reader::OpenFd(fd, "fuzz", options);
    if (!reader.ok()) continue;
    ++opened;
    CheckLookups(*reader.value(), data, size);
    VerifyReport report;
    (void)Verify(*reader.value(), &report);
  }
  ::close(fd);
  return opened;
}

}  // namespace
}  // namespace flatbench::arena
