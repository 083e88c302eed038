// Writes the fuzz seed corpus: a few tiny valid arena files and corrupt
// variants. Files named valid_* must open; the rest may fail.
//
//   build/test/fuzz/arena_make_corpus test/fuzz/corpus

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "arena/builder.h"
#include "arena/format.h"

namespace {

using namespace flatbench::arena;

std::string Build(const std::string& path,
                  const std::map<std::string, std::string>& model,
                  BuilderOptions options) {
  options.record_build_time = false;
  auto b = Builder::Create(path, options);
  if (!b.ok()) return "";
  for (const auto& [k, v] : model) {
    if (!b.value()->Add(k, v).ok()) return "";
  }
  if (!b.value()->Finish().ok()) return "";
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::remove(path.c_str());
  return bytes;
}

void Write(const std::string& dir, const std::string& name,
           const std::string& bytes) {
  std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 64;
  }
  const std::string dir = argv[1];
  const std::string tmp = dir + "/tmp.arena";
  BuilderOptions o;
  const std::string empty = Build(tmp, {}, o);
  std::map<std::string, std::string> one{{std::string(20, '\x42'), "value"}};
  const std::string one_key = Build(tmp, one, o);
  std::map<std::string, std::string> many;
  for (int i = 0; i < 30; ++i) {
    std::string k(52, static_cast<char>(i * 7));
    k[0] = '\x99';
    many[k] = std::string(static_cast<size_t>(i), 'v');
  }
  o.key_width = 52;
  o.compress = true;
  const std::string zstd = Build(tmp, many, o);
  o.compress = false;
  o.bloom_bits_per_key = 0;
  std::map<std::string, std::string> tiny{{"\x05", "x"}};
  o.key_width = 1;
  const std::string width1 = Build(tmp, tiny, o);
  if (empty.empty() || one_key.empty() || zstd.empty() || width1.empty()) {
    std::fprintf(stderr, "build failed\n");
    return 74;
  }
  Write(dir, "valid_empty.bin", empty);
  Write(dir, "valid_one_key.bin", one_key);
  Write(dir, "valid_zstd_w52.bin", zstd);
  Write(dir, "valid_w1_nobloom.bin", width1);
  Write(dir, "trunc_header.bin", one_key.substr(0, 100));
  Write(dir, "trunc_tail.bin", one_key.substr(0, one_key.size() - 1000));
  std::string flipped = one_key;
  flipped[4096 + 20] ^= 0x10;  // inside the first data block's key
  Write(dir, "flip_block.bin", flipped);
  std::string version = one_key;
  version[8] = 9;
  Write(dir, "bad_version.bin", version);
  Write(dir, "garbage.bin", std::string("not an arena file at all\n"));
  // A filter placed on its own shard's index, every checksum resealed:
  // only the overlap check can refuse it.
  std::string overlap = one_key;
  const uint64_t dir_off = overlap.size() - kDirectorySize;
  char* entry = overlap.data() + dir_off + 0x42 * kShardEntrySize;
  ShardEntry e = DecodeShardEntry(entry);
  e.filter_offset = e.index_offset;
  e.filter_checksum =
      Checksum(overlap.data() + e.filter_offset,
               uint64_t{e.filter_lines} * kFilterLineBytes, e.filter_offset);
  EncodeShardEntry(e, entry);
  StoreU64(overlap.data() + 72,
           Checksum(overlap.data() + dir_off, kDirectorySize, dir_off));
  StoreU64(overlap.data() + kHeaderChecksumOffset,
           Checksum(overlap.data(), kHeaderChecksumOffset, 0));
  Write(dir, "overlap.bin", overlap);
  return 0;
}
