#pragma once
// Helpers shared by the arena tests: temp directories, seeded keys, and
// building a file from a std::map model.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "arena/builder.h"
#include "common/rng.h"
#include "test/temp_dir.h"

namespace flatbench::arena::testing {

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

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void WriteAll(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

inline bool Exists(const std::string& path) {
  return std::filesystem::exists(path);
}

}  // namespace flatbench::arena::testing
