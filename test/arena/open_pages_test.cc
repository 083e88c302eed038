// Opening a file reads only metadata pages: each shard's index starts on a
// page of its own (format version 2), so no data page enters the page cache
// at open, eager or lazy. Checked with mincore after evicting the file's
// pages with POSIX_FADV_DONTNEED (the file is fsynced, so its pages are
// clean and the kernel drops them).

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "arena/reader.h"
#include "test/arena/test_util.h"
#include "test/skip.h"

namespace flatbench::arena {
namespace {

// Residency of every page of `path`.
std::vector<unsigned char> Resident(const std::string& path, uint64_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  void* m = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  REQUIRE(m != MAP_FAILED);
  std::vector<unsigned char> pages((size + kBlockSize - 1) / kBlockSize);
  REQUIRE(::mincore(m, size, pages.data()) == 0);
  ::munmap(m, size);
  ::close(fd);
  for (auto& p : pages) p &= 1;
  return pages;
}

bool EvictFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  ::close(fd);
  return ok;
}

TEST_CASE("opening a file reads no data page", "[arena][open]") {
  const bool lazy = GENERATE(false, true);
  const bool compress = GENERATE(false, true);
  CAPTURE(lazy, compress);
  testing::Rng rng(3);
  testing::Model model;
  for (int i = 0; i < 4000; ++i) {
    std::string k = rng.Bytes(20);
    k[0] = "\x01\x40\x90\xfe"[i % 4];
    model[k] = rng.Bytes(rng.Below(120));
  }
  testing::TempDir dir;
  const std::string path = dir.File("t.arena");
  BuilderOptions options;
  options.compress = compress;
  testing::BuildFile(path, model, options);
  const uint64_t size = testing::ReadAll(path).size();
  REQUIRE(EvictFile(path));
  std::vector<unsigned char> before = Resident(path, size);
  size_t still = 0;
  for (unsigned char p : before) still += p;
  if (still != 0) {
    // tmpfs, for one, keeps its pages: nothing here can be measured.
    flatbench::testing::SkipTest(path + ": the file system kept " +
                                     std::to_string(still) +
                                     " pages after DONTNEED",
                                 dir.path());
  }
  ReaderOptions ro;
  ro.lazy = lazy;
  auto reader = Reader::Open(path, ro);
  REQUIRE(reader.ok());
  const std::vector<unsigned char> after = Resident(path, size);
  const ArenaInfo& info = reader.value()->info();
  size_t data_pages = 0;
  for (const ShardInfo& s : info.shards) {
    if (s.block_count == 0) continue;
    const uint64_t first = s.data_offset / kBlockSize;
    const uint64_t end =
        (s.data_offset + s.data_bytes + kBlockSize - 1) / kBlockSize;
    for (uint64_t page = first; page < end; ++page) {
      CAPTURE(page);
      REQUIRE(after[page] == 0);
      ++data_pages;
    }
  }
  REQUIRE(data_pages > 20);
  // The header page was read, so the check above could have seen a page.
  REQUIRE(after[0] == 1);
}

}  // namespace
}  // namespace flatbench::arena
