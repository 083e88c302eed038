#include "arena/import.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "common/files.h"
#include "common/hex.h"

namespace flatbench::arena {
namespace {

// Splits a file into lines with read(2) and a fixed buffer, refusing a line
// as soon as it passes `limit` bytes: std::getline would read a line of any
// length into memory before it could be judged.
class LineReader {
 public:
  LineReader(int fd, size_t limit) : fd_(fd), limit_(limit) {
    chunk_.resize(64 * 1024);
  }
  // Sets *line to the next line without its '\n'. Returns false at the end
  // of input or on error (then status() says which).
  bool Next(std::string* line) {
    line->clear();
    for (;;) {
      if (pos_ == len_) {
        if (eof_) return !line->empty();
        const ssize_t r = ::read(fd_, chunk_.data(), chunk_.size());
        if (r < 0) {
          if (errno == EINTR) continue;
          status_ = Status::FromErrno("read");
          return false;
        }
        pos_ = 0;
        len_ = static_cast<size_t>(r);
        if (r == 0) {
          eof_ = true;
          continue;
        }
      }
      const char* start = chunk_.data() + pos_;
      const void* nl = std::memchr(start, '\n', len_ - pos_);
      const size_t n =
          nl != nullptr
              ? static_cast<size_t>(static_cast<const char*>(nl) - start)
              : len_ - pos_;
      if (line->size() + n > limit_) {
        too_long_ = true;
        return false;
      }
      line->append(start, n);
      pos_ += n;
      if (nl != nullptr) {
        ++pos_;
        return true;
      }
    }
  }
  bool too_long() const { return too_long_; }
  const Status& status() const { return status_; }

 private:
  int fd_;
  size_t limit_;
  std::vector<char> chunk_;
  size_t pos_ = 0;
  size_t len_ = 0;
  bool eof_ = false;
  bool too_long_ = false;
  Status status_;
};

}  // namespace

Status ImportTsv(const std::string& input_path, const std::string& output_path,
                 const BuilderOptions& options, BuildStats* stats) {
  UniqueFd in(::open(input_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) return Status::FromErrno("open " + input_path);
  struct stat st;
  if (::stat(output_path.c_str(), &st) == 0) {
    return Status::RefuseOverwrite(output_path +
                                   ": already exists; remove it first");
  }
  // A temporary file left by an import that was killed: ours to remove.
  ::unlink((output_path + ".tmp").c_str());
  std::unique_ptr<Builder> builder;
  std::string line;
  std::string key;
  std::string value;
  uint64_t line_no = 0;
  LineReader reader(in.get(), kMaxTsvLineBytes);
  while (reader.Next(&line)) {
    ++line_no;
    const std::string at = input_path + ":" + std::to_string(line_no) + ": ";
    std::string_view text(line);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    const size_t tab = text.find('\t');
    if (text.empty()) return Status::Corruption(at + "empty line");
    if (tab == std::string_view::npos) {
      return Status::Corruption(at + "no tab between key and value");
    }
    if (!FromHex(text.substr(0, tab), &key)) {
      return Status::Corruption(at + "key is not even-length hex");
    }
    if (!FromHex(text.substr(tab + 1), &value)) {
      return Status::Corruption(at + "value is not even-length hex");
    }
    if (builder == nullptr) {
      if (key.empty() || key.size() > kMaxKeyWidth) {
        return Status::Corruption(
            at + "key width " + std::to_string(key.size()) + " outside 1..255");
      }
      BuilderOptions o = options;
      o.key_width = static_cast<uint32_t>(key.size());
      FLATBENCH_ASSIGN_OR_RETURN(builder, Builder::Create(output_path, o));
    }
    Status s = builder->Add(key, value);
    if (!s.ok()) {
      if (s.code() == Code::kCorruption)
        return Status::Corruption(at + s.message());
      return s;
    }
  }
  if (reader.too_long()) {
    return Status::Corruption(
        input_path + ":" + std::to_string(line_no + 1) + ": line longer than " +
        std::to_string(kMaxTsvLineBytes) +
        " bytes (no key and value of an arena file are that long)");
  }
  if (!reader.status().ok()) return reader.status().WithContext(input_path);
  if (builder == nullptr) {
    return Status::Corruption(input_path + ":1: no key/value lines");
  }
  FLATBENCH_RETURN_IF_ERROR(builder->Finish());
  if (stats != nullptr) *stats = builder->stats();
  return Status::Ok();
}

}  // namespace flatbench::arena
