#include "arena/iterator.h"

#include "arena/block_index.h"
#include "arena/format.h"

namespace flatbench::arena {

Iterator::Iterator(const Reader& reader) : reader_(reader) {
  if (reader.NeedsBuffer()) buffer_ = std::make_unique<ReadBuffer>();
}

void Iterator::Fail(Status status) {
  valid_ = false;
  status_ = std::move(status);
}

bool Iterator::Load() {
  Status st = reader_.ReadBlock(shard_, block_, reader_.info().verify_checksums,
                                buffer_.get(), &contents_);
  if (!st.ok()) {
    Fail(st.WithContext(reader_.info().path));
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
          Fail(Status::Corruption(
              reader_.info().path + ": bad value offset at offset " +
              std::to_string(reader_.BlockOffset(shard_, block_))));
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
  uint32_t b = kNoBlock;
  if (reader_.BlockCount(shard_) > 0) {
    Status st = reader_.SeekBlock(shard_, target, buffer_.get(), &b);
    if (!st.ok()) {
      Fail(st);
      return;
    }
  }
  if (b == kNoBlock) {
    block_ = 0;
    Settle(0, false);
    return;
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
