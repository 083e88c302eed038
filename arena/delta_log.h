#pragma once
// The arena's log of blocks: each block's changes appended as one record
// beside the store (DIR.log) as it is applied, so that the delta gathered
// between two merges survives a kill (FORMAT.md, "Delta log"):
//
//   "FBLOG001" | u64 base (LE): the blocks the base held when the log was
//   started | u64 XXH3-64 of the 16 bytes before            24 bytes
//   records, one per block, block numbers base, base + 1, ...:
//     u32 payload length | u64 block number | payload
//     | u64 XXH3-64 of the length, block number and payload (LE)
//   payload: per change, u8 table (0 account, 1 storage) | u8 op (0 put,
//   1 erase) | key (20 or 52 bytes) | put only: u16 value length | value
//
// Synced at the writer's checkpoints (the cadence RocksDB's WAL is synced
// at); started again, through "<path>.tmp" and a rename, after each merge
// has made its blocks durable in the base.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "common/backend.h"
#include "common/files.h"
#include "common/status.h"

namespace flatbench::arena {

// The log beside a store: DIR.log.
std::string LogPath(const std::string& dir);

// The header's bytes; records follow it.
inline constexpr size_t kLogHeaderSize = 24;

// What reading a log found.
struct LogContents {
  uint64_t base = 0;     // Its header's base.
  uint64_t records = 0;  // Whole records read, blocks base .. base+records-1.
  uint64_t bytes = 0;    // Bytes of the header and those records.
  bool torn = false;     // Its last record was cut short or damaged.
};

// Reads the log at `path` and calls `block` for each whole record, in
// order, until it returns false. A last record cut short, or whose checksum
// fails with nothing after it, is torn (a write a kill interrupted):
// reported, not an error. Anything else wrong (the header, a record in the
// middle, a block out of sequence, a change that does not parse) is
// kCorruption naming `path` and the record; kMissingInput when there is no
// log.
Result<LogContents> ReadLog(
    const std::string& path,
    const std::function<bool(uint64_t block, std::span<const KeyChange>)>&
        block);

// The log appended to by a writer.
class LogWriter {
 public:
  LogWriter() = default;
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;

  // Opens the log at `path`, keeping its first `keep` bytes (a header and
  // whole records ReadLog returned) and cutting what follows.
  Status OpenAt(const std::string& path, uint64_t keep);
  // Starts a new log at `path` whose base is `base` (written through
  // "<path>.tmp", synced and renamed over the old one).
  Status Start(const std::string& path, uint64_t base);
  // Appends block `number`'s record (not yet synced).
  Status Append(uint64_t number, std::span<const KeyChange> changes);
  // Makes every appended record durable (fdatasync).
  Status Sync();
  // Removes the log (a store whose every block is merged needs none).
  Status Remove();

  uint64_t bytes() const { return bytes_; }

 private:
  std::string path_;
  std::unique_ptr<UniqueFd> fd_;
  uint64_t bytes_ = 0;
  std::string record_;
};

}  // namespace flatbench::arena
