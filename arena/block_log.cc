#include "arena/block_log.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "common/files.h"

namespace flatbench::arena {
namespace {

std::string ParentOf(const std::string& path) {
  const std::string p = std::filesystem::path(path).parent_path().string();
  return p.empty() ? "." : p;
}

}  // namespace

std::string FrozenLogPath(const std::string& dir) {
  return LogPath(dir) + ".frozen";
}

Status DropFrozen(const std::string& dir) {
  const std::string path = FrozenLogPath(dir);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (ec) return Status::IOError(path + ": " + ec.message());
  return SyncDir(ParentOf(path));
}

Result<LogContents> ReadStoreLogs(
    const std::string& dir,
    const std::function<bool(uint64_t, std::span<const KeyChange>)>& block) {
  const std::string frozen = FrozenLogPath(dir);
  const std::string log = LogPath(dir);
  auto none = [](uint64_t, auto) { return false; };
  std::error_code ec;
  if (!std::filesystem::exists(frozen, ec)) return ReadLog(log, block);
  FLATBENCH_ASSIGN_OR_RETURN(const LogContents fh, ReadLog(frozen, none));
  auto head = ReadLog(log, none);
  // A frozen segment the log already holds (an interrupted join).
  if (head.ok() && head->base == fh.base) return ReadLog(log, block);
  bool stopped = false;
  auto first = [&](uint64_t b, std::span<const KeyChange> c) {
    stopped = !block(b, c);
    return !stopped;
  };
  FLATBENCH_ASSIGN_OR_RETURN(LogContents f, ReadLog(frozen, first));
  if (head.status().code() == Code::kMissingInput || stopped) return f;
  FLATBENCH_RETURN_IF_ERROR(head.status());
  if (f.torn || head->base != f.base + f.records) {
    return Status::Corruption(
        log + ": starts at block " + std::to_string(head->base) + ", but " +
        frozen + " ends before block " + std::to_string(f.base + f.records));
  }
  FLATBENCH_ASSIGN_OR_RETURN(const LogContents l, ReadLog(log, block));
  f.records += l.records;
  f.bytes += l.bytes;
  f.torn = l.torn;
  return f;
}

BlockLog::BlockLog(std::string dir, const WriterOptions& writer)
    : dir_(std::move(dir)), writer_(writer), next_block_(writer.from_block) {}

// The tail from its first block on; one a resumed run finds is kept up to
// from_block, if it reaches that far.
Status BlockLog::OpenTail() {
  const uint64_t tail = std::min(writer_.log_tail, writer_.to_block);
  if (tail == 0) return Status::Ok();
  tail_from_ = writer_.to_block - tail;
  const std::string path = LogPath(dir_) + ".tail";
  const uint64_t from = writer_.from_block;
  std::error_code ec;
  if (from <= tail_from_) {
    std::filesystem::remove(path, ec);
    tail_on_ = true;
    if (from == tail_from_) return tail_.Start(path, tail_from_);
    return Status::Ok();
  }
  auto read = ReadLog(path, [&](uint64_t block, auto) { return block < from; });
  if (!read.ok() || read->base != tail_from_ ||
      read->base + read->records < from) {
    if (writer_.progress) {
      std::fprintf(stderr,
                   "age arena: warning: the log's tail from block %llu was "
                   "not kept by the run that stopped; no tail is left\n",
                   static_cast<unsigned long long>(tail_from_));
    }
    std::filesystem::remove(path, ec);
    return Status::Ok();
  }
  tail_on_ = true;
  return tail_.OpenAt(path, read->bytes);
}

// A frozen segment a kill left becomes the front of the log again: the
// merge that froze it may not have reached the base.
Status BlockLog::JoinFrozen() {
  const std::string frozen = FrozenLogPath(dir_);
  const std::string log = LogPath(dir_);
  std::error_code ec;
  if (!std::filesystem::exists(frozen, ec)) return Status::Ok();
  if (!std::filesystem::exists(log, ec)) {
    // Killed between the rename and the new log's start.
    if (std::rename(frozen.c_str(), log.c_str()) != 0) {
      return Status::FromErrno(frozen + ": rename to " + log);
    }
    return SyncDir(ParentOf(log));
  }
  auto all = [](uint64_t, auto) { return true; };
  FLATBENCH_ASSIGN_OR_RETURN(const LogContents f, ReadLog(frozen, all));
  FLATBENCH_ASSIGN_OR_RETURN(const LogContents l, ReadLog(log, all));
  // Equal bases: an earlier join renamed the whole log in and was killed
  // before the frozen segment went.
  if (l.base != f.base) {
    if (f.torn || l.base != f.base + f.records) {
      return Status::Corruption(
          log + ": starts at block " + std::to_string(l.base) + ", but " +
          frozen + " ends before block " + std::to_string(f.base + f.records) +
          (f.torn ? " (torn)" : ""));
    }
    FLATBENCH_ASSIGN_OR_RETURN(std::string joined, ReadSmallFile(frozen));
    FLATBENCH_ASSIGN_OR_RETURN(const std::string rest, ReadSmallFile(log));
    joined.resize(f.bytes);
    joined.append(rest, kLogHeaderSize, l.bytes - kLogHeaderSize);
    FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic(log, joined));
  }
  return DropFrozen(dir_);
}

Status BlockLog::Open(const Gather& gather) {
  FLATBENCH_RETURN_IF_ERROR(OpenTail());
  FLATBENCH_RETURN_IF_ERROR(JoinFrozen());
  const std::string path = LogPath(dir_);
  const uint64_t from = writer_.from_block;
  // Blocks before the log's base are in the base; a log that starts after
  // from_block gathers nothing (its first block is past it).
  auto read = ReadLog(path, [&](uint64_t block, auto changes) {
    if (block >= from) return false;
    gather(changes);
    return true;
  });
  if (read.status().code() == Code::kMissingInput) {
    FLATBENCH_RETURN_IF_ERROR(log_.Start(path, from));
    bytes_ += log_.bytes();
    return Status::Ok();
  }
  FLATBENCH_RETURN_IF_ERROR(read.status());
  const LogContents& c = read.value();
  // The base holds every block before c.base (a merge that was killed
  // before its frozen segment went holds more, which the replay repeats
  // harmlessly); the log must reach from_block.
  if (c.base > from) {
    FLATBENCH_RETURN_IF_ERROR(log_.Start(path, from));
    bytes_ += log_.bytes();
    return Status::Ok();
  }
  if (c.base + c.records < from) {
    return Status::Corruption(
        path + ": holds blocks " + std::to_string(c.base) + " to " +
        std::to_string(c.base + c.records) + ", but " + std::to_string(from) +
        " blocks are recorded durable" +
        (c.torn ? " (its last record is torn)" : ""));
  }
  recovered_ = c.records;
  if (writer_.progress && (recovered_ > 0 || c.torn)) {
    std::fprintf(stderr,
                 "age arena: recovered %llu unmerged block(s) from %s%s\n",
                 static_cast<unsigned long long>(recovered_), path.c_str(),
                 c.torn ? " (its torn last record cut)" : "");
  }
  return log_.OpenAt(path, c.bytes);
}

Status BlockLog::Append(std::span<const KeyChange> changes) {
  const uint64_t before = log_.bytes();
  FLATBENCH_RETURN_IF_ERROR(log_.Append(next_block_, changes));
  bytes_ += log_.bytes() - before;
  if (tail_on_ && next_block_ >= tail_from_) {
    if (next_block_ == tail_from_) {
      FLATBENCH_RETURN_IF_ERROR(
          tail_.Start(LogPath(dir_) + ".tail", tail_from_));
    }
    FLATBENCH_RETURN_IF_ERROR(tail_.Append(next_block_, changes));
  }
  ++next_block_;
  return Status::Ok();
}

Status BlockLog::Sync() {
  FLATBENCH_RETURN_IF_ERROR(log_.Sync());
  return tail_.Sync();
}

Status BlockLog::Freeze() {
  const std::string log = LogPath(dir_);
  const std::string frozen = FrozenLogPath(dir_);
  FLATBENCH_RETURN_IF_ERROR(log_.Sync());
  // A segment a failed merge left is joined to the front of the log
  // first, so that the rename below loses none of its blocks.
  std::error_code ec;
  if (std::filesystem::exists(frozen, ec)) {
    FLATBENCH_RETURN_IF_ERROR(JoinFrozen());
  }
  if (std::rename(log.c_str(), frozen.c_str()) != 0) {
    return Status::FromErrno(log + ": rename to " + frozen);
  }
  // The rename durable before the new log can replace it.
  FLATBENCH_RETURN_IF_ERROR(SyncDir(ParentOf(log)));
  FLATBENCH_RETURN_IF_ERROR(log_.Start(log, next_block_));
  bytes_ += log_.bytes();
  return Status::Ok();
}

Status BlockLog::Finish() {
  FLATBENCH_RETURN_IF_ERROR(log_.Remove());
  if (!tail_on_) return Status::Ok();
  FLATBENCH_RETURN_IF_ERROR(tail_.Sync());
  const std::string tail = LogPath(dir_) + ".tail";
  std::error_code ec;
  std::filesystem::rename(tail, LogPath(dir_), ec);
  if (ec) return Status::IOError(tail + ": " + ec.message());
  return SyncDir(ParentOf(LogPath(dir_)));
}

}  // namespace flatbench::arena
