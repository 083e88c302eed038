#pragma once
// The filesystem store's layout: one file per key, its value as the file's
// content, under a two-level fan-out by the key's first two bytes:
//
//   DIR/<table>/<hex of byte 0>/<hex of byte 1>/<hex of the whole key>
//
// e.g. DIR/account/3f/a0/3fa0...(40 hex digits). Hex digits are lowercase
// and fixed-width, so the byte order of keys is the name order of folders
// and files: an ordered walk lists folders in name order.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace flatbench::baselines::fs_layout {

// The most pairs a store is built for: smoke scale (100k accounts x 5
// slots). One file per key beyond that costs inodes and a 4 KiB block per
// pair (dataset/estimate.h, EstimateFsStore).
inline constexpr uint64_t kMaxPairs = 600'000;

// Longest relative path "ab/cd/<hex key>" plus its NUL, for a 52-byte key.
inline constexpr size_t kMaxKeyBytes = 52;
inline constexpr size_t kPathBytes = 6 + 2 * kMaxKeyBytes + 1;

inline constexpr char kDigits[] = "0123456789abcdef";

// Writes "ab/cd/<hex key>" and a NUL into `out` (kPathBytes long).
// REQUIRES: 2 <= key.size() <= kMaxKeyBytes.
inline void RelativePath(std::string_view key, char* out) {
  auto hex = [](unsigned char c, char* p) {
    p[0] = kDigits[c >> 4];
    p[1] = kDigits[c & 15];
  };
  hex(static_cast<unsigned char>(key[0]), out);
  out[2] = '/';
  hex(static_cast<unsigned char>(key[1]), out + 3);
  out[5] = '/';
  char* p = out + 6;
  for (unsigned char c : key) {
    hex(c, p);
    p += 2;
  }
  *p = '\0';
}

// Decodes a file or folder name of lowercase hex into `out` (name.size()/2
// bytes). False for an odd length or any other character.
inline bool DecodeName(std::string_view name, char* out) {
  if (name.size() % 2 != 0) return false;
  auto nibble = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  for (size_t i = 0; i < name.size(); i += 2) {
    int hi = nibble(name[i]), lo = nibble(name[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i / 2] = static_cast<char>(hi << 4 | lo);
  }
  return true;
}

}  // namespace flatbench::baselines::fs_layout
