#pragma once
// The files of an aging store's log of blocks, and their recovery: what
// both of the arena's writers (MergeWriter, merging in the foreground, and
// LiveStore, merging in the background) keep beside the store DIR
// (FORMAT.md, "Delta log"):
//
//   DIR.log         the blocks not yet merged (arena/delta_log.h)
//   DIR.log.frozen  while a merge runs: the blocks it merges; DIR.log then
//                   holds the blocks after them
//   DIR.log.tail    the stream's last blocks (WriterOptions::log_tail),
//                   left as DIR.log by Finish
//
// A merge: Freeze (DIR.log synced and renamed to DIR.log.frozen, a new
// DIR.log started at the next block), the merge made durable in the base,
// then DropFrozen. A kill anywhere leaves the base and the two segments
// holding every durable block: the base holds every block before the
// frozen segment's base (or, once the merge is durable, before the log's);
// replaying a block the base already holds changes nothing.

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "arena/delta_log.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

// The frozen segment beside a store: DIR.log.frozen.
std::string FrozenLogPath(const std::string& dir);
// Removes the frozen segment once the base holds its blocks durably (any
// thread; the writer does not touch that file between Freeze and the next
// Freeze).
Status DropFrozen(const std::string& dir);

// Reads what the logs beside the store `dir` hold, as ReadLog reads one
// (the frozen segment's blocks, if a kill left one, then the log's), for a
// reader that must not change them (`arena+delta`). The contents' base is
// the first segment's, its records and bytes those of both.
// kMissingInput when there is no log; kCorruption as ReadLog, or when the
// log does not start where the frozen segment ends.
Result<LogContents> ReadStoreLogs(
    const std::string& dir,
    const std::function<bool(uint64_t block, std::span<const KeyChange>)>&
        block);

// Driven from the writer's thread.
class BlockLog {
 public:
  using Gather = std::function<void(std::span<const KeyChange>)>;

  BlockLog(std::string dir, const WriterOptions& writer);
  BlockLog(const BlockLog&) = delete;
  BlockLog& operator=(const BlockLog&) = delete;

  // Recovery: passes every block the logs hold before writer.from_block to
  // `gather`, in order (a torn last record is cut: a kill's; blocks at or
  // after from_block are cut, to be applied again), and leaves one log,
  // DIR.log, open to append block from_block. A frozen segment a kill left
  // is joined to the log first (rewritten as one, through a rename). When
  // the log starts after from_block (the base holds blocks the caller will
  // apply again), nothing is gathered and the log starts again at
  // from_block. kCorruption naming the log when it is damaged, or holds
  // fewer blocks than from_block says are durable.
  Status Open(const Gather& gather);

  // Appends the next block (not yet synced), to the tail too when it is
  // one of the stream's last.
  Status Append(std::span<const KeyChange> changes);
  // Makes every appended block durable.
  Status Sync();
  // Before a merge of every block appended so far: DIR.log synced and
  // renamed to DIR.log.frozen, and a new DIR.log started at next_block().
  // A frozen segment still there (its merge failed) is joined to the
  // front of the log first.
  Status Freeze();
  // Every block is merged: no log is left, but the tail, whose blocks the
  // base holds too (reading them again changes nothing).
  Status Finish();

  // The stream's number of the next block to append.
  uint64_t next_block() const { return next_block_; }
  // Blocks Open gathered.
  uint64_t recovered() const { return recovered_; }
  // Bytes this writer appended and started, headers included.
  uint64_t bytes_written() const { return bytes_; }

 private:
  Status OpenTail();
  Status JoinFrozen();

  const std::string dir_;
  const WriterOptions writer_;
  LogWriter log_;
  // The log's tail: the stream's last blocks, appended to DIR.log.tail
  // from tail_from_ on.
  uint64_t tail_from_ = 0;
  bool tail_on_ = false;
  LogWriter tail_;
  uint64_t next_block_ = 0;
  uint64_t recovered_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace flatbench::arena
