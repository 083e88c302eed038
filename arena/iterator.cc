#include "arena/iterator.h"

#include "arena/block_index.h"
#include "arena/format.h"

namespace flatbench::arena {

Iterator::Iterator(const Reader& reader) : reader_(reader) {
  if (reader.compressed()) buffer_ = std::make_unique<ReadBuffer>();
}

void Iterator::Fail(const char* what) {
  valid_ = false;
  status_ =
      Status::Corruption(reader_.info().path + ": " + what + " at offset " +
                         std::to_string(reader_.BlockOffset(shard_, block_)));
}

bool Iterator::Load() {
  if (const char* err =
          reader_.ReadBlock(shard_, block_, reader_.info().verify_checksums,
                            buffer_.get(), &contents_)) {
    Fail(err);
    return false;
  }
  return true;
}

void Iterator::Settle(uint32_t index, bool loaded) {
  valid_ = false;
  while (shard_ < static_cast<int>(kNumShards)) {
    if (block_ < reader_.BlockCount(shard_)) {
      if (!loaded && !Load()) return;
      loaded = false;
      if (index < contents_.count) {
        if (!contents_.Value(index, &value_)) {
          Fail("bad value offset");
          return;
        }
        index_ = index;
        valid_ = true;
        return;
      }
      ++block_;
    } else {
      ++shard_;
      block_ = 0;
    }
    index = 0;
  }
}

void Iterator::SeekToFirst() {
  if (!status_.ok()) return;
  shard_ = 0;
  block_ = 0;
  Settle(0, false);
}

void Iterator::Seek(std::string_view target) {
  if (!status_.ok()) return;
  if (target.size() != reader_.key_width()) {
    valid_ = false;
    status_ = Status::Usage("seek key of wrong width");
    return;
  }
  shard_ = static_cast<unsigned char>(target[0]);
  const uint32_t blocks = reader_.BlockCount(shard_);
  const uint64_t prefix = KeyPrefix(target.data(), target.size());
  uint32_t b = kNoBlock;
  if (blocks > 0) {
    // Binary search through the accessor keeps this independent of where
    // the index lives; scans are not the hot path.
    uint32_t lo = 0, hi = blocks;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (reader_.BlockPrefix(shard_, mid) <= prefix) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    b = lo == 0 ? kNoBlock : lo - 1;
  }
  if (b == kNoBlock) {
    block_ = 0;
    Settle(0, false);
    return;
  }
  // Step back over blocks that share the prefix but start after target.
  while (b > 0 && reader_.BlockPrefix(shard_, b) == prefix) {
    block_ = b;
    if (!Load()) return;
    if (contents_.key(0) <= target) break;
    --b;
  }
  block_ = b;
  if (!Load()) return;
  Settle(contents_.LowerBound(target), true);
}

void Iterator::Next() {
  if (!valid_) return;
  Settle(index_ + 1, true);
}

}  // namespace flatbench::arena
