#include "arena/block_builder.h"

#include <cassert>
#include <cstring>

namespace flatbench::arena {

void BlockBuilder::Add(std::string_view key, std::string_view value) {
  assert(Fits(value.size()));
  assert(key.size() == key_width_);
  keys_.append(key);
  values_.append(value);
  ends_.push_back(static_cast<uint16_t>(values_.size()));
  used_ += key_width_ + kValueEndSize + value.size();
}

size_t BlockBuilder::FinishBody(char* out) const {
  char* p = out;
  std::memcpy(p, keys_.data(), keys_.size());
  p += keys_.size();
  for (uint16_t end : ends_) {
    StoreU16(p, end);
    p += kValueEndSize;
  }
  std::memcpy(p, values_.data(), values_.size());
  p += values_.size();
  return static_cast<size_t>(p - out);
}

void BlockBuilder::Reset() {
  used_ = 0;
  keys_.clear();
  ends_.clear();
  values_.clear();
}

}  // namespace flatbench::arena
