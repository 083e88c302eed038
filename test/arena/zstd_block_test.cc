// A zstd block in a file whose flags do not allow compression (FORMAT.md,
// "Data blocks"), with a valid checksum, is refused as corrupt by every
// read path and by Verify, naming its offset.

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "arena/reader.h"
#include "arena/verify.h"
#include "test/arena/test_util.h"
#include "test/skip.h"

namespace flatbench::arena {
namespace {

using testing::Model;
using testing::Rng;

// A zstd block written into an uncompressed file, read through
// `read_path`: every read and verify refuses it naming the offset. A direct
// read on a file system that refuses O_DIRECT (tmpfs) skips the test.
void CheckZstdBlockRefused(ReadPath read_path) {
  // One shard of several blocks: the first is not the last, so it has a
  // whole 4 KiB slot for the rewritten block.
  testing::TempDir dir;
  const std::string path = dir.File("t.arena");
  Rng rng(11);
  Model model;
  for (int i = 0; i < 200; ++i) {
    std::string k = rng.Bytes(20);
    k[0] = 17;
    model[k] = rng.Bytes(60);
  }
  testing::BuildFile(path, model, BuilderOptions{});
  const std::string original = testing::ReadAll(path);
  // The keys of one block, and where it starts.
  std::vector<std::string> keys;
  uint64_t offset = 0;
  {
    auto reader = Reader::Open(path);
    REQUIRE(reader.ok());
    REQUIRE(reader.value()->BlockCount(17) > 1);
    BlockContents c;
    REQUIRE(reader.value()->ReadBlock(17, 0, true, nullptr, &c).ok());
    for (uint32_t i = 0; i < c.count; ++i) keys.emplace_back(c.key(i));
    offset = reader.value()->BlockOffset(17, 0);
  }
  const std::string where = "at offset " + std::to_string(offset);
  std::string bytes = original;
  testing::RewriteAsZstdBlock(&bytes, offset);
  testing::WriteAll(path, bytes);

  const bool verify = GENERATE(true, false);
  CAPTURE(static_cast<int>(read_path), verify);
  ReaderOptions options;
  options.read_path = read_path;
  options.verify_checksums = verify;
  auto opened = Reader::Open(path, options);
  if (!opened.ok() && read_path == ReadPath::kDirect &&
      opened.status().code() == Code::kIOError) {
    flatbench::testing::SkipTest(opened.status().message(), dir.path());
  }
  REQUIRE(opened.ok());
  const Reader& reader = *opened.value();
  ReadBuffer buffer;
  for (const std::string& key : keys) {
    bool found = false;
    std::string_view value;
    Status st = reader.Get(key, &found, &value, &buffer);
    INFO(st.message());
    CHECK(st.code() == Code::kCorruption);
    CHECK(st.message().rfind(path, 0) == 0);
    CHECK(st.message().find("compressed block in a file whose flags do not "
                            "allow compression " +
                            where) != std::string::npos);
  }
  // Verify as the CLI runs it (no buffer for an mmap reader of an
  // uncompressed file) and with one.
  VerifyReport report;
  Status st = Verify(reader, &report);
  INFO(st.message());
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message().find(where) != std::string::npos);
  BlockContents c;
  st = reader.ReadBlock(17, 0, verify, &buffer, &c);
  CHECK(st.code() == Code::kCorruption);
  // The same bytes as the block of a compressed file would be valid: the
  // file's flags alone make it wrong.
  REQUIRE(DecodeBlock(bytes.data() + offset, kBlockSize, offset, 20,
                      /*compressed_file=*/true, true, buffer.data(),
                      buffer.dctx(), &c)
              .ok());
  CHECK(c.count == keys.size());
}

TEST_CASE("a zstd block in an uncompressed file is refused by every read",
          "[arena][corruption]") {
  CheckZstdBlockRefused(
      GENERATE(ReadPath::kMmap, ReadPath::kPread, ReadPath::kCache));
}

// Its own Meson test: it exits 77 (skipped) where O_DIRECT is refused.
TEST_CASE("a direct read refuses a zstd block in an uncompressed file",
          "[arena][corruption][direct]") {
  CheckZstdBlockRefused(ReadPath::kDirect);
}

}  // namespace
}  // namespace flatbench::arena
