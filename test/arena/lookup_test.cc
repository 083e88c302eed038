// Lookups beyond uniform hash keys: keys sharing a long common prefix (many
// blocks tie on their 8-byte index prefix), and the three read paths, which
// must give identical answers.

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "arena/iterator.h"
#include "arena/reader.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

using testing::Model;

constexpr size_t kKeyWidth = 32;

// 24 shared bytes, then a big-endian counter stepping by 2 (so odd counters
// are misses that fall between present keys).
std::string PrefixKey(uint64_t counter) {
  std::string k(kKeyWidth, '\x5a');
  for (int i = 0; i < 8; ++i) {
    k[kKeyWidth - 1 - i] = static_cast<char>((counter >> (8 * i)) & 0xff);
  }
  return k;
}

Model LongPrefixModel(uint64_t n) {
  testing::Rng rng(41);
  Model m;
  for (uint64_t i = 0; i < n; ++i) m[PrefixKey(2 * i + 2)] = rng.Bytes(60);
  return m;
}

TEST_CASE("keys sharing a long prefix are found in about log2 block reads",
          "[arena][lookup]") {
  const bool compress = GENERATE(false, true);
  const ReadPath path = GENERATE(ReadPath::kMmap, ReadPath::kPread,
                                 ReadPath::kDirect, ReadPath::kCache);
  CAPTURE(compress, ReadPathName(path));
  const Model model = LongPrefixModel(20'000);
  testing::TempDir dir;
  const std::string file = dir.File("p.arena");
  BuilderOptions options;
  options.key_width = kKeyWidth;
  options.compress = compress;
  const BuildStats stats = testing::BuildFile(file, model, options);
  // Every block starts with the same 8 bytes.
  REQUIRE(stats.block_count > 400);
  ReaderOptions ro;
  ro.read_path = path;
  ro.verify_checksums = true;
  auto reader = Reader::Open(file, ro);
  INFO(reader.status().message());
  REQUIRE(reader.ok());
  const Reader& r = *reader.value();
  // Binary search over the tied blocks, the block found, and one more.
  const uint64_t bound =
      static_cast<uint64_t>(std::ceil(std::log2(stats.block_count))) + 2;
  ReadBuffer buffer;
  bool found = false;
  std::string_view value;
  uint64_t worst = 0;
  auto lookup = [&](const std::string& key) {
    const uint64_t before = buffer.blocks_read();
    Status st = r.Get(key, &found, &value, &buffer);
    REQUIRE(st.ok());
    worst = std::max(worst, buffer.blocks_read() - before);
  };
  // O_DIRECT reads go to the device every time: sample every 41st key.
  const uint64_t step = path == ReadPath::kDirect ? 41 : 1;
  uint64_t n = 0;
  for (const auto& [k, v] : model) {
    if (n++ % step != 0) continue;
    lookup(k);
    REQUIRE(found);
    REQUIRE(value == v);
  }
  for (uint64_t c = 1; c <= 2 * 20'000 + 3; c += 2 * step) {
    lookup(PrefixKey(c));
    REQUIRE_FALSE(found);
  }
  CAPTURE(stats.block_count, bound, worst);
  REQUIRE(worst <= bound);

  // Seek over the same ties lands on the model's lower bound.
  Iterator it(r);
  for (uint64_t c = 0; c <= 2 * 20'000 + 3; c += 97) {
    const std::string target = PrefixKey(c);
    it.Seek(target);
    auto lb = model.lower_bound(target);
    REQUIRE(it.Valid() == (lb != model.end()));
    if (lb != model.end()) REQUIRE(it.key() == lb->first);
  }
  REQUIRE(it.status().ok());
}

// The model round trip covers each path on random shapes; this holds the
// four paths to the same answer, key by key, on one file, and checks that
// pread, direct and cache values live in the session's buffer.
TEST_CASE("the four read paths answer identically", "[arena][lookup]") {
  const bool compress = GENERATE(false, true);
  CAPTURE(compress);
  testing::Rng rng(5);
  Model model;
  for (int i = 0; i < 5000; ++i)
    model[rng.Bytes(20)] = rng.Bytes(rng.Below(90));
  testing::TempDir dir;
  const std::string file = dir.File("r.arena");
  BuilderOptions options;
  options.compress = compress;
  testing::BuildFile(file, model, options);
  constexpr int kPaths = 4;
  std::unique_ptr<Reader> readers[kPaths];
  const ReadPath paths[kPaths] = {ReadPath::kMmap, ReadPath::kPread,
                                  ReadPath::kDirect, ReadPath::kCache};
  for (int p = 0; p < kPaths; ++p) {
    ReaderOptions ro;
    ro.read_path = paths[p];
    auto opened = Reader::Open(file, ro);
    INFO(opened.status().message());
    REQUIRE(opened.ok());
    readers[p] = std::move(opened).value();
    REQUIRE(readers[p]->info().read_path == paths[p]);
    REQUIRE(readers[p]->NeedsBuffer() == (compress || p > 0));
  }
  ReadBuffer buffers[kPaths];
  auto check = [&](const std::string& key) {
    bool found[kPaths];
    std::string_view value[kPaths];
    for (int p = 0; p < kPaths; ++p) {
      REQUIRE(readers[p]->Get(key, &found[p], &value[p], &buffers[p]).ok());
    }
    for (int p = 1; p < kPaths; ++p) REQUIRE(found[p] == found[0]);
    if (!found[0]) return;
    for (int p = 1; p < kPaths; ++p) REQUIRE(value[p] == value[0]);
    for (int p = 1; p < kPaths; ++p) {
      const char* io = buffers[p].io();
      const char* data = buffers[p].data();
      // The cache path's value may also lie in the frame the buffer pins.
      const BlockCache::Pin* pin = buffers[p].pin();
      const bool in_buffer = (value[p].data() >= io &&
                              value[p].data() <= io + ReadBuffer::kIoSize) ||
                             (value[p].data() >= data &&
                              value[p].data() <= data + kBlockPayload) ||
                             (paths[p] == ReadPath::kCache && pin->held() &&
                              value[p].data() >= pin->data() &&
                              value[p].data() <= pin->data() + kBlockSize);
      REQUIRE(in_buffer);
    }
  };
  for (const auto& [k, v] : model) check(k);
  for (int i = 0; i < 5000; ++i) check(rng.Bytes(20));
  // A pread path without a buffer is the caller's error, not a crash.
  bool found = false;
  std::string_view value;
  REQUIRE(readers[1]->Get(model.begin()->first, &found, &value).code() ==
          Code::kUsage);
}

}  // namespace
}  // namespace flatbench::arena
