#pragma once
// Accumulates the entries of one data block (FORMAT.md, "Data blocks").

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arena/format.h"

namespace flatbench::arena {

class BlockBuilder {
 public:
  explicit BlockBuilder(uint32_t key_width) : key_width_(key_width) {}

  // Whether one more entry with a `value_size`-byte value fits.
  bool Fits(size_t value_size) const {
    return used_ + key_width_ + kValueEndSize + value_size <= kBlockPayload;
  }
  // REQUIRES: Fits(value.size()), key.size() == key_width, key greater than
  // every key added since the last Reset.
  void Add(std::string_view key, std::string_view value);
  bool empty() const { return ends_.empty(); }
  uint32_t count() const { return static_cast<uint32_t>(ends_.size()); }
  // Writes the body (keys, value ends, values) to `out`, which holds at least
  // kBlockPayload bytes, and returns its length.
  size_t FinishBody(char* out) const;
  void Reset();

 private:
  uint32_t key_width_;
  size_t used_ = 0;
  std::string keys_;
  std::vector<uint16_t> ends_;
  std::string values_;
};

}  // namespace flatbench::arena
