#pragma once
// Byte-level access to a store's file for the tests that damage it.

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

namespace flatbench::testing {

// LMDB's page size on the hosts this project builds for.
inline constexpr uint64_t kPage = 4096;

// Overwrites the byte of `path` at `offset` with `c`.
inline void PutByte(const std::string& path, uint64_t offset, char c) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(c);
  REQUIRE(f);
}

// The T stored at byte `at` of `file` (a file's bytes, host order).
template <typename T>
T Load(const std::string& file, uint64_t at) {
  REQUIRE(at + sizeof(T) <= file.size());
  T v;
  std::memcpy(&v, file.data() + at, sizeof(v));
  return v;
}

}  // namespace flatbench::testing
