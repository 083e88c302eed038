#include "baselines/rocksdb_sst_writer.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "baselines/rocksdb_options.h"

namespace flatbench::baselines {
namespace {

Status SstStatus(const rocksdb::Status& s, const std::string& path) {
  if (s.ok()) return Status::Ok();
  return Status::IOError(path + ": " + s.ToString());
}

std::unique_ptr<rocksdb::SstFileWriter> NewWriter(int table) {
  rocksdb::Options opts(
      RocksDbOptions(),
      RocksTableOptions(static_cast<Table>(table), /*lazy_metadata=*/false));
  return std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), opts);
}

// Writes one chunk's pairs into `path`, stopping early once `cancel` is
// set (another chunk failed).
Status WriteChunk(int table, const std::string& path, const std::string& pairs,
                  const std::atomic<bool>& cancel) {
  auto writer = NewWriter(table);
  FLATBENCH_RETURN_IF_ERROR(SstStatus(writer->Open(path), path));
  const size_t width = KeySize(static_cast<Table>(table));
  const char* p = pairs.data();
  const char* end = p + pairs.size();
  while (p < end) {
    if (cancel.load(std::memory_order_relaxed)) {
      return Status::IOError(path + ": stopped: another SST file failed");
    }
    uint16_t len;
    std::memcpy(&len, p + width, sizeof len);
    FLATBENCH_RETURN_IF_ERROR(
        SstStatus(writer->Put(rocksdb::Slice(p, width),
                              rocksdb::Slice(p + width + sizeof len, len)),
                  path));
    p += width + sizeof len + len;
  }
  return SstStatus(writer->Finish(), path);
}

}  // namespace

SstFiles::SstFiles(std::string staging_dir, unsigned jobs)
    : staging_dir_(std::move(staging_dir)), jobs_(std::max(1u, jobs)) {}

SstFiles::~SstFiles() { Abort(); }

void SstFiles::Abort() {
  cancel_.store(true);
  flight_.clear();
}

std::string SstFiles::NextPath(int table) {
  std::string path = staging_dir_ + "/" + TableName(static_cast<Table>(table)) +
                     "-" + std::to_string(files_[table].size()) + ".sst";
  files_[table].push_back(path);
  return path;
}

Status SstFiles::Add(Table table, std::string_view key,
                     std::string_view value) {
  if (!status_.ok()) return status_;
  const int t = static_cast<int>(table);
  if (t < current_) {
    return status_ =
               Status::Usage("rocksdb load: account pair after storage pairs");
  }
  if (jobs_ == 1) {
    if (t != current_ || writer_ == nullptr ||
        writer_->FileSize() >= SstTargetBytes(table)) {
      status_ = CloseDirect();
      current_ = t;
      if (status_.ok()) status_ = OpenDirect();
      if (!status_.ok()) return status_;
    }
    status_ =
        SstStatus(writer_->Put(rocksdb::Slice(key.data(), key.size()),
                               rocksdb::Slice(value.data(), value.size())),
                  files_[current_].back());
    return status_;
  }
  if (t != current_ || chunk_ == nullptr ||
      chunk_->pairs.size() >= SstTargetBytes(table)) {
    status_ = SubmitChunk();
    if (!status_.ok()) return status_;
    current_ = t;
    chunk_ = std::make_unique<Chunk>();
    chunk_->table = t;
    chunk_->pairs.reserve(SstTargetBytes(table) + 4096);
  }
  const uint16_t len = static_cast<uint16_t>(value.size());
  chunk_->pairs.append(key);
  chunk_->pairs.append(reinterpret_cast<const char*>(&len), sizeof len);
  chunk_->pairs.append(value);
  return Status::Ok();
}

Status SstFiles::OpenDirect() {
  std::error_code ec;
  std::filesystem::create_directories(staging_dir_, ec);
  if (ec) return Status::IOError(staging_dir_ + ": " + ec.message());
  writer_ = NewWriter(current_);
  const std::string path = NextPath(current_);
  return SstStatus(writer_->Open(path), path);
}

Status SstFiles::CloseDirect() {
  if (writer_ == nullptr) return Status::Ok();
  auto writer = std::move(writer_);
  if (writer->FileSize() == 0) {
    files_[current_].pop_back();
    return Status::Ok();
  }
  return SstStatus(writer->Finish(), files_[current_].back());
}

Status SstFiles::SubmitChunk() {
  if (chunk_ == nullptr) return Status::Ok();
  if (chunk_->pairs.empty()) {
    chunk_.reset();
    return Status::Ok();
  }
  std::error_code ec;
  std::filesystem::create_directories(staging_dir_, ec);
  if (ec) return Status::IOError(staging_dir_ + ": " + ec.message());
  FLATBENCH_RETURN_IF_ERROR(Drain(jobs_ - 1));
  Chunk* c = chunk_.get();
  c->path = NextPath(c->table);
  c->thread = std::jthread([this, c] {
    c->status = WriteChunk(c->table, c->path, c->pairs, cancel_);
    std::string().swap(c->pairs);
    if (!c->status.ok()) cancel_.store(true);
  });
  flight_.push_back(std::move(chunk_));
  return Status::Ok();
}

// Waits for the oldest chunks until at most `keep` are in flight; the
// first failed one's error is returned (the others were told to stop).
Status SstFiles::Drain(size_t keep) {
  while (flight_.size() > keep) {
    std::unique_ptr<Chunk> c = std::move(flight_.front());
    flight_.pop_front();
    c->thread.join();
    if (!c->status.ok()) {
      cancel_.store(true);
      flight_.clear();
      return c->status;
    }
  }
  return Status::Ok();
}

Status SstFiles::Finish() {
  if (!status_.ok()) return status_;
  if (jobs_ == 1) {
    status_ = CloseDirect();
  } else {
    status_ = SubmitChunk();
    if (status_.ok()) status_ = Drain(0);
  }
  return status_;
}

}  // namespace flatbench::baselines
