#include "arena/import.h"

#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string_view>

#include "common/hex.h"

namespace flatbench::arena {

Status ImportTsv(const std::string& input_path, const std::string& output_path,
                 const BuilderOptions& options, BuildStats* stats) {
  std::ifstream in(input_path, std::ios::binary);
  if (!in) {
    struct stat st;
    if (::stat(input_path.c_str(), &st) != 0) {
      return Status::FromErrno("open " + input_path);
    }
    return Status::IOError("open " + input_path + ": cannot read");
  }
  struct stat st;
  if (::stat(output_path.c_str(), &st) == 0) {
    return Status::RefuseOverwrite(output_path +
                                   ": already exists; remove it first");
  }
  std::unique_ptr<Builder> builder;
  std::string line;
  std::string key;
  std::string value;
  uint64_t line_no = 0;
  while (std::getline(in, line)) {
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
      auto b = Builder::Create(output_path, o);
      if (!b.ok()) return b.status();
      builder = std::move(b.value());
    }
    Status s = builder->Add(key, value);
    if (!s.ok()) {
      if (s.code() == Code::kCorruption)
        return Status::Corruption(at + s.message());
      return s;
    }
  }
  if (in.bad()) return Status::IOError("read " + input_path);
  if (builder == nullptr) {
    return Status::Corruption(input_path + ":1: no key/value lines");
  }
  FLATBENCH_RETURN_IF_ERROR(builder->Finish());
  if (stats != nullptr) *stats = builder->stats();
  return Status::Ok();
}

}  // namespace flatbench::arena
