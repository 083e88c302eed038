#pragma once
// Ordered scan over one arena file: every key, ascending, across shards.

#include <memory>
#include <string>
#include <string_view>

#include "arena/block.h"
#include "arena/reader.h"
#include "common/status.h"

namespace flatbench::arena {

// Not thread-safe; use one per thread. The Reader must outlive it.
// key() and value() are valid until the next Seek/Next on this iterator
// (for uncompressed files they stay valid while the Reader lives).
// A corrupt block ends the scan: Valid() turns false and status() says why.
class Iterator {
 public:
  explicit Iterator(const Reader& reader);

  bool Valid() const { return valid_; }
  void SeekToFirst();
  // Positions at the first key >= `target`. REQUIRES: target is key_width
  // bytes (otherwise status() becomes kUsage).
  void Seek(std::string_view target);
  // REQUIRES: Valid().
  void Next();
  std::string_view key() const { return contents_.key(index_); }
  std::string_view value() const { return value_; }
  const Status& status() const { return status_; }

 private:
  // Positions at entry `index` of block_ of shard_ (loading it unless
  // `loaded`), moving on to later blocks and shards as needed.
  void Settle(uint32_t index, bool loaded);
  bool Load();
  void Fail(Status status);

  const Reader& reader_;
  std::unique_ptr<ReadBuffer> buffer_;
  int shard_ = 0;
  uint32_t block_ = 0;
  uint32_t index_ = 0;
  BlockContents contents_;
  std::string_view value_;
  bool valid_ = false;
  Status status_;
};

}  // namespace flatbench::arena
