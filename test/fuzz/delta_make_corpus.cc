// Writes the delta fuzz seed corpus: valid deltas (valid_*, which must
// decode) and damaged ones.
//
//   build/test/fuzz/delta_make_corpus test/fuzz/delta_corpus

#include <cstdio>
#include <fstream>
#include <string>

#include "arena/delta.h"

namespace {

using namespace flatbench;
using namespace flatbench::arena;

bool Write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 64;
  }
  const std::string dir = argv[1];
  Delta d;
  // Puts and erases in both tables, in shards the fuzz base holds (first
  // byte 0..3) and one it does not.
  for (int i = 0; i < 6; ++i) {
    std::string key(20, static_cast<char>(i * 3));
    key[0] = static_cast<char>(i);
    d.ops[0].push_back(
        {key, i % 3 == 2, i % 3 == 2 ? "" : std::string(i, 'v')});
  }
  for (int i = 0; i < 4; ++i) {
    std::string key(52, static_cast<char>(i));
    key[0] = static_cast<char>(i);
    d.ops[1].push_back({key, i == 1, i == 1 ? "" : std::string(32, 'w')});
  }
  const std::string valid = EncodeDelta(d);
  std::string flipped = valid;
  flipped[12] ^= 0x40;
  bool ok =
      Write(dir + "/valid_mixed.delta", valid) &&
      Write(dir + "/valid_empty.delta", EncodeDelta(Delta())) &&
      Write(dir + "/flip_record.delta", flipped) &&
      Write(dir + "/truncated.delta", valid.substr(0, valid.size() / 2)) &&
      Write(dir + "/garbage.delta", "FBDELTA1 not a delta at all");
  return ok ? 0 : 74;
}
