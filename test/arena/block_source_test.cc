// Every read path's block source (read_path.h's registry) gives the same
// blocks for the same file: fetched one at a time as Get fetches, fetched
// again (a cache hit, a block the bitmap has checked), and placed and
// completed as a batch does, each against the block decoded straight from
// the file's bytes. A source's prefetch hint, where it gives one, points at
// the block's own bytes.

#include "arena/block_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "arena/page_cache_probe.h"
#include "arena/read_path.h"
#include "arena/reader.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

using testing::Model;
using testing::Rng;

constexpr uint32_t kWidth = 20;

// Keys in three shards, values of 0 to 89 bytes: about ten blocks a shard.
Model SourceModel() {
  Rng rng(23);
  Model m;
  for (int shard : {0, 77, 255}) {
    for (int i = 0; i < 600; ++i) {
      std::string k = rng.Bytes(kWidth);
      k[0] = static_cast<char>(shard);
      m[k] = rng.Bytes(rng.Below(90));
    }
  }
  return m;
}

// Every data block of the file, in file order, located with the Reader's
// public geometry.
std::vector<BlockAddress> Blocks(const Reader& reader) {
  std::vector<BlockAddress> blocks;
  uint32_t id = 0;
  for (int shard = 0; shard < static_cast<int>(kNumShards); ++shard) {
    const ShardInfo& si = reader.info().shards[shard];
    const uint64_t end = si.data_offset + si.data_bytes;
    const uint32_t count = reader.BlockCount(shard);
    for (uint32_t b = 0; b < count; ++b) {
      BlockAddress at;
      at.id = id++;
      at.offset = reader.BlockOffset(shard, b);
      const uint64_t next =
          b + 1 < count ? reader.BlockOffset(shard, b + 1) : end;
      at.avail = reader.compressed()
                     ? next - at.offset
                     : std::min<uint64_t>(kBlockSize, end - at.offset);
      blocks.push_back(at);
    }
  }
  return blocks;
}

// A decoded block as bytes: its keys, then each value with its length.
std::string Flatten(const BlockContents& c) {
  std::string out(c.keys, size_t{c.count} * c.key_width);
  for (uint32_t i = 0; i < c.count; ++i) {
    std::string_view v;
    REQUIRE(c.Value(i, &v));
    out += std::to_string(v.size()) + ":";
    out.append(v);
  }
  return out;
}

// The file mapped read-only, as the Reader maps it.
class Mapped {
 public:
  explicit Mapped(const std::string& path) : bytes_(testing::ReadAll(path)) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    void* m = ::mmap(nullptr, bytes_.size(), PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    REQUIRE(m != MAP_FAILED);
    map_ = static_cast<const char*>(m);
  }
  ~Mapped() { ::munmap(const_cast<char*>(map_), bytes_.size()); }
  Mapped(const Mapped&) = delete;
  Mapped& operator=(const Mapped&) = delete;
  const char* map() const { return map_; }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  const char* map_ = nullptr;
};

// A batch of one block, driven as Reader::MultiGet drives it: Place, the
// read it describes (a pread loop), and Complete.
std::string PlaceAndComplete(const BlockSource& source, const BlockAddress& at,
                             bool verify, PageTrend* pages) {
  struct FreeBuffer {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, FreeBuffer> buffer(
      static_cast<char*>(std::aligned_alloc(kBlockSize, ReadBuffer::kIoSize)));
  REQUIRE(buffer != nullptr);
  BlockRead read;
  BlockCache::Pin pin;
  BlockCache::Load load;
  BatchSlot slot;
  slot.buffer = buffer.get();
  slot.read = &read;
  slot.pin = &pin;
  slot.load = &load;
  slot.pages = pages;
  Status outcome;
  if (source.Place(at, &slot)) {
    BatchIo io(/*use_uring=*/false);
    io.Begin(std::span<BlockRead>(&read, 1));
    io.Submit(0);
    size_t i = 0;
    REQUIRE(io.Next(&i));
    const uint64_t need = static_cast<uint64_t>(slot.src - read.dst) + at.avail;
    if (read.result < 0 || static_cast<uint64_t>(read.result) < need) {
      // The planner's rule: a read marked for a retry is done again
      // buffered; any other short read fails the block.
      REQUIRE(slot.retry_fd >= 0);
      uint64_t done = 0;
      REQUIRE(ReadAt(slot.retry_fd, read.dst, at.avail, at.offset, &done).ok());
      REQUIRE(done == at.avail);
    }
  }
  REQUIRE(slot.src != nullptr);
  ReadBuffer scratch;
  BlockContents c;
  const Status st =
      source.Complete(at, std::move(outcome), verify, &slot, &scratch, &c);
  INFO(st.message());
  REQUIRE(st.ok());
  return Flatten(c);
}

TEST_CASE("the registry lists every read path once, in enum order",
          "[arena][source]") {
  const auto paths = ReadPaths();
  REQUIRE(paths.size() == 4);
  for (size_t i = 0; i < paths.size(); ++i) {
    REQUIRE(paths[i].path == static_cast<ReadPath>(i));
    REQUIRE(&ReadPathOf(paths[i].path) == &paths[i]);
    REQUIRE(std::string(ReadPathName(paths[i].path)) == paths[i].name);
    REQUIRE(paths[i].open != nullptr);
  }
  REQUIRE(std::string(ReadPathName(ReadPath::kCache)) == "cache");
}

// A small file, its blocks, and each block as its bytes decode, checked.
struct SourceFile {
  explicit SourceFile(bool compress) : format{kWidth, compress} {
    BuilderOptions options;
    options.key_width = kWidth;
    options.compress = compress;
    testing::BuildFile(path, SourceModel(), options);
    auto reader = Reader::Open(path);
    REQUIRE(reader.ok());
    blocks = Blocks(*reader.value());
    REQUIRE(blocks.size() > 20);
    mapped = std::make_unique<Mapped>(path);
    ReadBuffer scratch;
    for (const BlockAddress& at : blocks) {
      BlockContents c;
      REQUIRE(
          DecodeAt(format, bytes() + at.offset, at, true, &scratch, &c).ok());
      want.push_back(Flatten(c));
    }
  }
  const char* bytes() const { return mapped->bytes().data(); }
  FileView View() const {
    return FileView{mapped->map(), format, blocks.size(), true};
  }

  testing::TempDir dir;
  const std::string path = dir.File("s.arena");
  const BlockFormat format;
  std::vector<BlockAddress> blocks;
  std::unique_ptr<Mapped> mapped;
  std::vector<std::string> want;
};

// Makes and attaches `entry`'s source for `f` (null where the file system
// refuses O_DIRECT).
std::unique_ptr<BlockSource> OpenSource(const ReadPathEntry& entry,
                                        const SourceFile& f, bool verify) {
  ReaderOptions ro;
  ro.read_path = entry.path;
  ro.verify_checksums = verify;
  ro.cache_bytes = 16 * kBlockSize;  // fewer frames than blocks: evictions
  const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto opened = entry.open(SourceOpen{&f.path, fd, f.path, ro});
  ::close(fd);  // not taken over
  if (!opened.ok() && entry.path == ReadPath::kDirect &&
      opened.status().code() == Code::kIOError) {
    WARN("file system refuses O_DIRECT: " << opened.status().message());
    return nullptr;
  }
  INFO(opened.status().message());
  REQUIRE(opened.ok());
  std::unique_ptr<BlockSource> source = std::move(opened).value();
  REQUIRE(source->Attach(f.View()).ok());
  return source;
}

// Block i of `f` fetched as Get fetches it; the hint, where there is one.
void CheckFetch(const BlockSource& source, const SourceFile& f, size_t i,
                bool verify, ReadBuffer* buffer) {
  const BlockAddress& at = f.blocks[i];
  BlockContents c;
  const Status st = source.Fetch(at, verify, buffer, buffer->pin(), &c);
  INFO(st.message());
  REQUIRE(st.ok());
  REQUIRE(Flatten(c) == f.want[i]);
  const char* hint = source.Hint(at.id, at.offset);
  if (hint != nullptr) {
    REQUIRE(std::memcmp(hint, f.bytes() + at.offset, at.avail) == 0);
  }
}

TEST_CASE("every block source returns the same blocks for the same file",
          "[arena][source]") {
  const bool compress = GENERATE(false, true);
  const bool verify = GENERATE(false, true);
  const SourceFile f(compress);
  for (const ReadPathEntry& entry : ReadPaths()) {
    CAPTURE(compress, verify, entry.name);
    const std::unique_ptr<BlockSource> source = OpenSource(entry, f, verify);
    if (source == nullptr) continue;
    REQUIRE(source->NeedsBuffer() == (entry.path != ReadPath::kMmap));
    ReadBuffer buffer;
    PageTrend pages;
    // The first round meets each block in a batch first, the second in a
    // fetch first: each may load the block (the cache path), and each may
    // find it loaded.
    for (int round = 0; round < 2; ++round) {
      pages.Begin();
      for (size_t i = 0; i < f.blocks.size(); ++i) {
        const BlockAddress& at = f.blocks[i];
        CAPTURE(round, at.id, at.offset);
        if (round == 0) {
          REQUIRE(PlaceAndComplete(*source, at, verify, &pages) == f.want[i]);
        }
        CheckFetch(*source, f, i, verify, &buffer);
        if (round == 1) {
          REQUIRE(PlaceAndComplete(*source, at, verify, &pages) == f.want[i]);
        }
      }
      pages.End();
    }
    buffer.Release();
    if (entry.path == ReadPath::kCache) {
      REQUIRE(source->cache() != nullptr);
      REQUIRE(source->cache()->loads() > 0);
    } else {
      REQUIRE(source->cache() == nullptr);
      REQUIRE(source->cache_loads().empty());
    }
  }
}

}  // namespace
}  // namespace flatbench::arena
