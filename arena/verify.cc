#include "arena/verify.h"

#include <memory>
#include <string_view>

#include "arena/block.h"

namespace flatbench::arena {

Status Verify(const Reader& reader, VerifyReport* report) {
  *report = VerifyReport();
  report->checksums_checked = 2;  // header and directory, at open
  const ArenaInfo& info = reader.info();
  std::unique_ptr<ReadBuffer> buffer;
  if (reader.NeedsBuffer()) buffer = std::make_unique<ReadBuffer>();
  std::string last_key;
  bool have_last = false;
  for (int shard = 0; shard < static_cast<int>(kNumShards); ++shard) {
    auto where = [&] { return info.path + ": shard " + std::to_string(shard); };
    FLATBENCH_RETURN_IF_ERROR(
        reader.CheckShardMetadata(shard).WithContext(info.path));
    const uint32_t blocks = reader.BlockCount(shard);
    if (blocks > 0) report->checksums_checked += 2;
    uint64_t keys = 0;
    for (uint32_t b = 0; b < blocks; ++b) {
      auto at = [&] {
        return " at offset " + std::to_string(reader.BlockOffset(shard, b));
      };
      BlockContents c;
      Status st = reader.ReadBlock(shard, b, true, buffer.get(), &c);
      if (!st.ok()) return st.WithContext(where());
      report->checksums_checked++;
      report->block_count++;
      if (reader.BlockPrefix(shard, b) !=
          KeyPrefix(c.key_ptr(0), reader.key_width())) {
        return Status::Corruption(where() +
                                  ": index entry does not match block" + at());
      }
      for (uint32_t i = 0; i < c.count; ++i) {
        const std::string_view key = c.key(i);
        std::string_view value;
        if (!c.Value(i, &value)) {
          return Status::Corruption(where() + ": bad value offset" + at());
        }
        if (static_cast<unsigned char>(key[0]) != shard) {
          return Status::Corruption(where() + ": key in wrong shard" + at());
        }
        if (have_last && key <= std::string_view(last_key)) {
          return Status::Corruption(where() + ": keys out of order" + at());
        }
        if (!reader.FilterMayMatch(shard, key)) {
          return Status::Corruption(where() + ": filter misses a key" + at());
        }
        last_key.assign(key);
        have_last = true;
        report->value_bytes += value.size();
        ++keys;
      }
    }
    if (keys != info.shards[shard].key_count) {
      return Status::Corruption(where() + ": holds " + std::to_string(keys) +
                                " keys, directory says " +
                                std::to_string(info.shards[shard].key_count));
    }
    report->shard_keys[shard] = keys;
    report->key_count += keys;
  }
  if (report->key_count != info.key_count) {
    return Status::Corruption(info.path + ": key count does not match header");
  }
  if (report->value_bytes != info.value_bytes) {
    return Status::Corruption(info.path + ": value bytes do not match header");
  }
  return Status::Ok();
}

Status VerifyFile(const std::string& path, VerifyReport* report) {
  FLATBENCH_ASSIGN_OR_RETURN(auto reader, Reader::Open(path, ReaderOptions{}));
  return Verify(*reader, report);
}

}  // namespace flatbench::arena
