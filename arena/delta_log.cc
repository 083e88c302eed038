#include "arena/delta_log.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "arena/format.h"

namespace flatbench::arena {
namespace {

constexpr char kLogMagic[] = "FBLOG001";
// u32 length and u64 block number before the payload, u64 checksum after.
constexpr size_t kRecordHead = 12;
constexpr size_t kRecordTail = 8;
// A block's record is at most this long: 10M changes of the largest size
// are far below it, and a length above it is damage, not a block.
constexpr uint32_t kMaxPayload = uint32_t{1} << 31;

void LogPut64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void LogPut32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t LogGet(const char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

std::string LogHeader(uint64_t base) {
  std::string h(kLogMagic, 8);
  LogPut64(&h, base);
  LogPut64(&h, XXH3_64bits(h.data(), h.size()));
  return h;
}

Status LogWriteAll(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Status::IOError(path + ": write: " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Parses one payload into `out`; false when it does not parse.
bool ParseLogPayload(std::string_view p, std::vector<KeyChange>* out) {
  out->clear();
  size_t i = 0;
  while (i < p.size()) {
    if (p.size() - i < 2) return false;
    const auto table = static_cast<uint8_t>(p[i]);
    const auto op = static_cast<uint8_t>(p[i + 1]);
    if (table > 1 || op > 1) return false;
    KeyChange c;
    c.table = static_cast<Table>(table);
    c.erase = op == 1;
    const size_t width = KeySize(c.table);
    i += 2;
    if (p.size() - i < width) return false;
    c.key = p.substr(i, width);
    i += width;
    if (!c.erase) {
      if (p.size() - i < 2) return false;
      const size_t len = LogGet(p.data() + i, 2);
      i += 2;
      if (len > MaxValueSize(width) || p.size() - i < len) return false;
      c.value = p.substr(i, len);
      i += len;
    }
    out->push_back(c);
  }
  return true;
}

}  // namespace

std::string LogPath(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + ".log";
}

Result<LogContents> ReadLog(
    const std::string& path,
    const std::function<bool(uint64_t, std::span<const KeyChange>)>& block) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Status::MissingInput(path + ": no log");
  }
  FLATBENCH_ASSIGN_OR_RETURN(const std::string bytes, ReadSmallFile(path));
  LogContents c;
  if (bytes.size() < kLogHeaderSize || bytes.compare(0, 8, kLogMagic) != 0 ||
      XXH3_64bits(bytes.data(), 16) != LogGet(bytes.data() + 16, 8)) {
    return Status::Corruption(path + ": not a flatbench block log (header)");
  }
  c.base = LogGet(bytes.data() + 8, 8);
  size_t at = kLogHeaderSize;
  std::vector<KeyChange> changes;
  while (at < bytes.size()) {
    const std::string where = path + ": record " + std::to_string(c.records) +
                              " at byte " + std::to_string(at);
    const size_t left = bytes.size() - at;
    if (left < kRecordHead) {
      c.torn = true;
      break;
    }
    const uint32_t len = static_cast<uint32_t>(LogGet(bytes.data() + at, 4));
    if (len > kMaxPayload) {
      return Status::Corruption(where + ": a length of " + std::to_string(len) +
                                " bytes");
    }
    const size_t whole = kRecordHead + len + kRecordTail;
    if (left < whole) {
      c.torn = true;
      break;
    }
    const bool last = left == whole;
    const size_t body = kRecordHead + len;
    if (XXH3_64bits(bytes.data() + at, body) !=
        LogGet(bytes.data() + at + body, 8)) {
      if (last) {
        c.torn = true;
        break;
      }
      return Status::Corruption(where + ": checksum mismatch");
    }
    const uint64_t number = LogGet(bytes.data() + at + 4, 8);
    if (number != c.base + c.records) {
      return Status::Corruption(
          where + ": block " + std::to_string(number) + " where block " +
          std::to_string(c.base + c.records) + " belongs");
    }
    if (!ParseLogPayload(std::string_view(bytes).substr(at + kRecordHead, len),
                         &changes)) {
      return Status::Corruption(where + ": a change that does not parse");
    }
    if (!block(number, changes)) break;
    ++c.records;
    at += whole;
  }
  c.bytes = at;
  return c;
}

Status LogWriter::OpenAt(const std::string& path, uint64_t keep) {
  path_ = path;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return Status::IOError(path + ": open: " + std::strerror(errno));
  }
  fd_ = std::make_unique<UniqueFd>(fd);
  if (::ftruncate(fd, static_cast<off_t>(keep)) != 0 ||
      ::lseek(fd, static_cast<off_t>(keep), SEEK_SET) < 0 ||
      ::fdatasync(fd) != 0) {
    return Status::IOError(path + ": cut at byte " + std::to_string(keep) +
                           ": " + std::strerror(errno));
  }
  bytes_ = keep;
  return Status::Ok();
}

Status LogWriter::Start(const std::string& path, uint64_t base) {
  path_ = path;
  fd_.reset();
  FLATBENCH_RETURN_IF_ERROR(WriteFileAtomic(path, LogHeader(base)));
  return OpenAt(path, kLogHeaderSize);
}

Status LogWriter::Append(uint64_t number, std::span<const KeyChange> changes) {
  record_.assign(kRecordHead, '\0');
  for (const KeyChange& c : changes) {
    record_.push_back(static_cast<char>(c.table));
    record_.push_back(static_cast<char>(c.erase ? 1 : 0));
    record_.append(c.key);
    if (c.erase) continue;
    record_.push_back(static_cast<char>(c.value.size() & 0xff));
    record_.push_back(static_cast<char>(c.value.size() >> 8));
    record_.append(c.value);
  }
  const size_t len = record_.size() - kRecordHead;
  if (len > kMaxPayload) {
    return Status::Usage(path_ + ": block " + std::to_string(number) +
                         " is too large for one log record");
  }
  std::string head;
  LogPut32(&head, static_cast<uint32_t>(len));
  LogPut64(&head, number);
  record_.replace(0, kRecordHead, head);
  LogPut64(&record_, XXH3_64bits(record_.data(), record_.size()));
  FLATBENCH_RETURN_IF_ERROR(LogWriteAll(fd_->get(), record_, path_));
  bytes_ += record_.size();
  return Status::Ok();
}

Status LogWriter::Sync() {
  if (!fd_ || ::fdatasync(fd_->get()) == 0) return Status::Ok();
  return Status::IOError(path_ + ": sync: " + std::strerror(errno));
}

Status LogWriter::Remove() {
  fd_.reset();
  std::error_code ec;
  std::filesystem::remove(path_, ec);
  if (ec) return Status::IOError(path_ + ": " + ec.message());
  return Status::Ok();
}

}  // namespace flatbench::arena
