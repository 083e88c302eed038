#pragma once
// A buffered, append-only file with durable commit helpers. Writeback
// starts as it goes (sync_file_range), so the closing fsync is short.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace flatbench::arena {

class FileWriter {
 public:
  // Creates or truncates `path` for writing.
  static Result<std::unique_ptr<FileWriter>> Create(const std::string& path);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  Status Append(std::string_view data);
  // Appends zero bytes up to the next multiple of `alignment`.
  Status PadTo(uint64_t alignment);
  // Overwrites bytes already appended, at `offset`.
  Status WriteAt(uint64_t offset, std::string_view data);
  // Flushes the buffer and fsyncs the file, then closes it.
  Status SyncAndClose();
  // Bytes appended so far.
  uint64_t offset() const { return offset_; }

 private:
  FileWriter(std::string path, int fd);
  Status Flush();
  // Writes at the file's end, starting writeback every kWriteBehindBytes.
  Status WriteOut(const char* p, size_t n);

  std::string path_;
  int fd_;
  uint64_t offset_ = 0;
  uint64_t written_ = 0;    // bytes written to the file by WriteOut
  uint64_t writeback_ = 0;  // writeback started up to here
  std::vector<char> buffer_;
};

// Renames `from` to `to` and fsyncs the directory holding `to`.
Status RenameDurably(const std::string& from, const std::string& to);

}  // namespace flatbench::arena
