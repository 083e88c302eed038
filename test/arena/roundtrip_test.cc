// Model round-trip: files built from a std::map read back exactly, across a
// grid of key widths, value sizes, shard shapes, bloom and compression.

#include <catch2/catch.hpp>
#include <string>

#include "arena/iterator.h"
#include "arena/reader.h"
#include "arena/verify.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

using testing::Model;
using testing::Rng;

enum class Shape {
  kEmpty,
  kOneKey,
  kSparse,
  kDense,
  kMaxValues,
  kSharedPrefix
};

const char* ShapeName(Shape s) {
  switch (s) {
    case Shape::kEmpty:
      return "empty";
    case Shape::kOneKey:
      return "one-key";
    case Shape::kSparse:
      return "sparse";
    case Shape::kDense:
      return "dense";
    case Shape::kMaxValues:
      return "max-values";
    case Shape::kSharedPrefix:
      return "shared-prefix";
  }
  return "?";
}

// Values of mixed sizes including 0 and the maximum.
std::string ValueFor(Rng& rng, size_t width) {
  const uint64_t pick = rng.Below(10);
  if (pick == 0) return "";
  if (pick == 1) return rng.Bytes(MaxValueSize(width));
  return rng.Bytes(rng.Below(120));
}

Model MakeModel(Shape shape, size_t width, uint64_t seed) {
  Rng rng(seed);
  Model m;
  switch (shape) {
    case Shape::kEmpty:
      break;
    case Shape::kOneKey:
      m[rng.Bytes(width)] = rng.Bytes(7);
      break;
    case Shape::kSparse:
      // Three shards: one with a single key, others with several; the rest
      // of the shards stay empty.
      for (int shard : {3, 128, 255}) {
        const int n = shard == 128 ? 1 : 40;
        for (int i = 0; i < n; ++i) {
          std::string k = rng.Bytes(width);
          k[0] = static_cast<char>(shard);
          m[k] = ValueFor(rng, width);
        }
      }
      break;
    case Shape::kDense:
      // Four crowded shards of many blocks each, so the index search and
      // block boundaries get exercised; width 1 has only 256 keys at all.
      for (int i = 0; i < (width == 1 ? 200 : 2000); ++i) {
        std::string k = rng.Bytes(width);
        if (width > 1) k[0] = "\x00\x41\x80\xff"[i % 4];
        m[k] = rng.Bytes(rng.Below(60));
      }
      break;
    case Shape::kMaxValues:
      for (int i = 0; i < 40; ++i) m[rng.Bytes(width)] = ValueFor(rng, width);
      break;
    case Shape::kSharedPrefix:
      // Many keys share their first 8 bytes, so several blocks carry the
      // same index prefix and lookups must step back across them.
      for (int i = 0; i < 600; ++i) {
        std::string k = rng.Bytes(width);
        for (size_t j = 0; j < std::min<size_t>(8, width - 1); ++j) {
          k[j] = static_cast<char>(0x42 + (j == 0 ? 0 : 0));
        }
        m[k] = rng.Bytes(rng.Below(100));
      }
      break;
  }
  return m;
}

void CheckAgainstModel(const Reader& reader, const Model& model, Rng& rng) {
  ReadBuffer buffer;
  bool found = false;
  std::string_view value;
  for (const auto& [k, v] : model) {
    REQUIRE(reader.Get(k, &found, &value, &buffer).ok());
    REQUIRE(found);
    REQUIRE(value == v);
  }
  // Absent keys: random ones and near neighbours of present ones.
  const size_t width = reader.key_width();
  for (int i = 0; i < 300; ++i) {
    std::string k = rng.Bytes(width);
    if (!model.empty() && i % 2 == 0) {
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng.Below(model.size())));
      k = it->first;
      k.back() = static_cast<char>(k.back() ^ 1);
    }
    if (model.count(k) != 0) continue;
    REQUIRE(reader.Get(k, &found, &value, &buffer).ok());
    REQUIRE_FALSE(found);
  }
  // Full scan equals the model.
  Iterator it(reader);
  auto m = model.begin();
  for (it.SeekToFirst(); it.Valid(); it.Next(), ++m) {
    REQUIRE(m != model.end());
    REQUIRE(it.key() == m->first);
    REQUIRE(it.value() == m->second);
  }
  REQUIRE(it.status().ok());
  REQUIRE(m == model.end());
  // Seek lands on the model's lower_bound.
  for (int i = 0; i < 200; ++i) {
    std::string target = rng.Bytes(width);
    if (!model.empty() && i % 3 == 0) {
      auto e = model.begin();
      std::advance(e, static_cast<long>(rng.Below(model.size())));
      target = e->first;
    }
    it.Seek(target);
    auto lb = model.lower_bound(target);
    if (lb == model.end()) {
      REQUIRE_FALSE(it.Valid());
    } else {
      REQUIRE(it.Valid());
      REQUIRE(it.key() == lb->first);
      REQUIRE(it.value() == lb->second);
      it.Next();
      ++lb;
      REQUIRE(it.Valid() == (lb != model.end()));
      if (lb != model.end()) REQUIRE(it.key() == lb->first);
    }
  }
  REQUIRE(it.status().ok());
}

TEST_CASE("arena round-trips a model across the option grid", "[arena]") {
  const size_t width = GENERATE(1, 8, 20, 52);
  const Shape shape =
      GENERATE(Shape::kEmpty, Shape::kOneKey, Shape::kSparse, Shape::kDense,
               Shape::kMaxValues, Shape::kSharedPrefix);
  const uint32_t bloom = GENERATE(0u, 10u);
  const bool compress = GENERATE(false, true);
  const uint64_t seed = 1000 + width * 7 + static_cast<uint64_t>(shape);
  CAPTURE(width, ShapeName(shape), bloom, compress, seed);
  if (shape == Shape::kSharedPrefix && width < 9) return;  // needs width > 8

  const Model model = MakeModel(shape, width, seed);
  testing::TempDir dir;
  const std::string path = dir.File("t.arena");
  BuilderOptions options;
  options.key_width = static_cast<uint32_t>(width);
  options.bloom_bits_per_key = bloom;
  options.compress = compress;
  const BuildStats stats = testing::BuildFile(path, model, options);
  REQUIRE(stats.key_count == model.size());
  REQUIRE_FALSE(testing::Exists(path + ".tmp"));

  // Eager without checksums and lazy with them cover both index homes and
  // both checksum settings; the pread, direct and cache read paths each run
  // once more. The full grid would multiply the time for no new code.
  struct Mode {
    bool lazy;
    bool verify;
    ReadPath path;
  };
  for (const Mode& mode :
       {Mode{false, false, ReadPath::kMmap}, Mode{true, true, ReadPath::kMmap},
        Mode{false, true, ReadPath::kPread},
        Mode{true, false, ReadPath::kDirect},
        Mode{false, true, ReadPath::kCache}}) {
    {
      const bool lazy = mode.lazy;
      CAPTURE(lazy, mode.verify, ReadPathName(mode.path));
      ReaderOptions ro;
      ro.lazy = lazy;
      ro.verify_checksums = mode.verify;
      ro.read_path = mode.path;
      auto reader = Reader::Open(path, ro);
      INFO(reader.status().message());
      REQUIRE(reader.ok());
      const ArenaInfo& info = reader.value()->info();
      REQUIRE(info.key_count == model.size());
      REQUIRE(info.key_width == width);
      REQUIRE(info.compressed == compress);
      REQUIRE(info.resident_bytes ==
              (lazy ? 0 : info.index_bytes + info.filter_bytes));
      Rng rng(seed + 1);
      CheckAgainstModel(*reader.value(), model, rng);
      VerifyReport report;
      Status st = Verify(*reader.value(), &report);
      INFO(st.message());
      REQUIRE(st.ok());
      REQUIRE(report.key_count == model.size());
    }
  }
}

TEST_CASE("wrong-width lookups are usage errors", "[arena]") {
  testing::TempDir dir;
  Model model{{std::string(20, 'a'), "v"}};
  testing::BuildFile(dir.File("t.arena"), model, BuilderOptions{});
  auto reader = Reader::Open(dir.File("t.arena"));
  REQUIRE(reader.ok());
  bool found = true;
  std::string_view value;
  Status st = reader.value()->Get("short", &found, &value);
  REQUIRE(st.code() == Code::kUsage);
  REQUIRE_FALSE(found);
}

}  // namespace
}  // namespace flatbench::arena
