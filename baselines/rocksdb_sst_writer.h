#pragma once
// The RocksDB loader's SST files: one table's ascending pairs cut into
// files of about SstTargetBytes, written with SstFileWriter, for one
// IngestExternalFile per table at the end.
//
// With one job the caller's thread writes each file as the pairs come.
// With `jobs` > 1 the pairs of a file are copied into a chunk (cut at
// SstTargetBytes of key and value bytes) and each chunk is written by a
// thread of its own, up to `jobs` at once; the caller's thread waits for the
// oldest when all are busy. Files are numbered in key order either way, so
// the ingested database holds the same pairs. Memory with `jobs` > 1:
// jobs + 1 chunks of SstTargetBytes.

#include <rocksdb/sst_file_writer.h>

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/backend.h"
#include "common/status.h"

namespace flatbench::baselines {

class SstFiles {
 public:
  // Files go to `staging_dir` (created on the first file).
  SstFiles(std::string staging_dir, unsigned jobs);
  ~SstFiles();  // Waits for the threads still writing.
  SstFiles(const SstFiles&) = delete;
  SstFiles& operator=(const SstFiles&) = delete;

  // Pairs of `table`, ascending; every account pair before the first
  // storage pair. The first error (naming the file) is kept and returned.
  Status Add(Table table, std::string_view key, std::string_view value);
  // Closes the last file and waits for every thread.
  Status Finish();
  // Tells the threads still writing to stop, and waits for them.
  void Abort();
  // Each table's files in key order; valid after Finish.
  const std::vector<std::string>& files(Table table) const {
    return files_[static_cast<int>(table)];
  }

 private:
  struct Chunk {
    int table = 0;
    std::string path;
    std::string pairs;  // key, u16 value length, value; repeated
    Status status;
    std::jthread thread;
  };

  std::string NextPath(int table);
  Status OpenDirect();
  Status CloseDirect();
  Status SubmitChunk();
  Status Drain(size_t keep);

  const std::string staging_dir_;
  const unsigned jobs_;
  Status status_;
  int current_ = 0;
  std::vector<std::string> files_[kNumTables];
  // One job.
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  // More jobs.
  std::unique_ptr<Chunk> chunk_;
  std::atomic<bool> cancel_{false};  // A chunk failed: the others stop.
  // Last: its threads are joined before anything they read goes.
  std::deque<std::unique_ptr<Chunk>> flight_;
};

}  // namespace flatbench::baselines
