#pragma once
// Helpers shared by the arena tests: temp directories, seeded keys, and
// building a file from a std::map model.

#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include "arena/builder.h"
#include "arena/format.h"
#include "common/rng.h"
#include "test/temp_dir.h"

namespace flatbench::arena::testing {

using flatbench::testing::ReadAll;
using flatbench::testing::WriteAll;

using Model = std::map<std::string, std::string>;

// A fresh directory under $TMPDIR, removed with everything in it.
using flatbench::testing::TempDir;

// Deterministic generator, the dataset's own SplitMix64; never
// std::*_distribution.
class Rng : public SplitMix64 {
 public:
  using SplitMix64::SplitMix64;
  std::string Bytes(size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(Next() & 0xff);
    return s;
  }
};

// Builds `path` from `model`; REQUIREs success.
inline BuildStats BuildFile(const std::string& path, const Model& model,
                            const BuilderOptions& options) {
  auto builder = Builder::Create(path, options);
  REQUIRE(builder.ok());
  for (const auto& [k, v] : model) {
    Status st = builder.value()->Add(k, v);
    REQUIRE(st.ok());
  }
  Status st = builder.value()->Finish();
  INFO(st.message());
  REQUIRE(st.ok());
  return builder.value()->stats();
}

// Rewrites the raw block at `offset` of the file image `bytes` as a zstd
// block with the same body and a valid checksum: a block only a compressed
// file may hold (FORMAT.md, "Data blocks"). The block must not be the last
// of its shard, whose slot may end before 4 KiB. Returns its stored_len.
inline uint32_t RewriteAsZstdBlock(std::string* bytes, uint64_t offset) {
  char* p = bytes->data() + offset;
  REQUIRE(static_cast<unsigned char>(p[10]) == kBlockRaw);
  const uint32_t raw_len = LoadU16(p + 14);
  std::string frame(ZSTD_compressBound(raw_len), '\0');
  const size_t n = ZSTD_compress(frame.data(), frame.size(),
                                 p + kBlockHeaderSize, raw_len, 1);
  REQUIRE_FALSE(ZSTD_isError(n));
  // It fits in the block's 4 KiB slot (random bodies grow a little).
  REQUIRE(kBlockHeaderSize + n <= kBlockSize);
  const uint32_t stored_len = static_cast<uint32_t>(kBlockHeaderSize + n);
  std::memcpy(p + kBlockHeaderSize, frame.data(), n);
  p[10] = static_cast<char>(kBlockZstd);
  const uint16_t len16 = static_cast<uint16_t>(stored_len);
  std::memcpy(p + 12, &len16, 2);
  const uint64_t sum = Checksum(p + 8, stored_len - 8, offset);
  std::memcpy(p, &sum, 8);
  return stored_len;
}

// A file in memory (a memfd) that a test can change under an open reader,
// whose map is shared with it.
class MemFile {
 public:
  explicit MemFile(std::string_view bytes)
      : fd_(::memfd_create("arena", MFD_CLOEXEC)) {
    REQUIRE(fd_ >= 0);
    Put(0, bytes);
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  int fd() const { return fd_; }
  // Writes `bytes` at `off`.
  void Put(uint64_t off, std::string_view bytes) {
    REQUIRE(
        ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(off)) ==
        static_cast<ssize_t>(bytes.size()));
  }

 private:
  int fd_;
};

inline bool Exists(const std::string& path) {
  return std::filesystem::exists(path);
}

}  // namespace flatbench::arena::testing
