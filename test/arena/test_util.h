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

namespace flatbench::arena::testing {

using Model = std::map<std::string, std::string>;
__extension__ typedef unsigned __int128 TestU128;

// A fresh directory under $TMPDIR, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string templ =
        (std::filesystem::temp_directory_path() / "arena_test_XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Deterministic generator (splitmix64); never std::*_distribution.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform-enough in [0, n) for tests: multiply-shift range mapping.
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<TestU128>(Next()) * n) >> 64);
  }
  std::string Bytes(size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(Next() & 0xff);
    return s;
  }

 private:
  uint64_t state_;
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
