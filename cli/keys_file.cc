#include "cli/keys_file.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>

#include "common/hex.h"

namespace flatbench::cli {
namespace {

struct CloseFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// One line of a keys file, without its newline.
struct Line {
  std::string head;    // Its first kMaxKeyLineBytes bytes.
  uint64_t bytes = 0;  // Its whole length.
  int first = EOF;     // Its first byte that is not blank; EOF if none.
};

// Reads the next line of `f` into `line`; false at the end of the file.
// stdio's buffer bounds what a read holds, whatever the line's length.
bool NextLine(std::FILE* f, Line* line) {
  line->head.clear();
  line->bytes = 0;
  line->first = EOF;
  int c = getc_unlocked(f);
  if (c == EOF) return false;
  for (; c != EOF && c != '\n'; c = getc_unlocked(f)) {
    if (line->head.size() < kMaxKeyLineBytes) {
      line->head.push_back(static_cast<char>(c));
    }
    if (line->first == EOF && !std::isspace(c)) line->first = c;
    ++line->bytes;
  }
  return true;
}

// `text`, the first bytes of something `bytes` long, quoted for an error
// line: a byte that is not printable ASCII as \xNN (a NUL would end the
// message where it is printed, a control byte would reach the terminal)
// and a backslash as \\; cut to kEchoChars characters, and then saying
// how long it was.
std::string Quoted(std::string_view text, uint64_t bytes) {
  std::string out = "'";
  size_t chars = 0;
  size_t used = 0;
  for (; used < text.size(); ++used) {
    const auto c = static_cast<unsigned char>(text[used]);
    char piece[8];
    if (c == '\\') {
      std::snprintf(piece, sizeof(piece), "\\\\");
    } else if (c < 0x20 || c > 0x7e) {
      std::snprintf(piece, sizeof(piece), "\\x%02x", c);
    } else {
      std::snprintf(piece, sizeof(piece), "%c", c);
    }
    const size_t n = std::strlen(piece);
    if (chars + n > kEchoChars) break;
    out += piece;
    chars += n;
  }
  if (used == text.size() && text.size() == bytes) return out + "'";
  return out + "...' (" + std::to_string(bytes) + " bytes)";
}

}  // namespace

Result<std::vector<BatchKey>> ReadKeysFile(const std::string& path,
                                           Table default_table) {
  std::unique_ptr<std::FILE, CloseFile> f(std::fopen(path.c_str(), "re"));
  if (!f) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return Status::MissingInput("--keys: " + path + " does not exist");
    }
    return Status::FromErrno("--keys: open " + path);
  }
  std::vector<BatchKey> keys;
  Line line;
  for (size_t n = 1; NextLine(f.get(), &line); ++n) {
    if (line.first == EOF || line.first == '#') continue;
    const std::string where = "--keys: " + path + ":" + std::to_string(n);
    if (line.bytes > kMaxKeyLineBytes) {
      return Status::Usage(where + ": a line of " + std::to_string(line.bytes) +
                           " bytes, longer than any key line (" +
                           std::to_string(kMaxKeyLineBytes) +
                           " at most): " + Quoted(line.head, line.bytes));
    }
    std::istringstream words(line.head);
    std::string first;
    std::string second;
    std::string extra;
    words >> first >> second >> extra;
    BatchKey k{default_table, {}, first};
    if (!second.empty()) {
      if (!ParseTable(first, &k.table) || !extra.empty()) {
        return Status::Usage(where +
                             ": expected 'HEX' or 'account|storage HEX'");
      }
      k.hex = second;
    }
    if (!FromHex(k.hex, &k.key)) {
      return Status::Usage(where + ": " + Quoted(k.hex, k.hex.size()) +
                           " is not even-length hex");
    }
    if (k.key.size() != KeySize(k.table)) {
      return Status::Usage(where + ": " + std::to_string(k.key.size()) +
                           " bytes, a " + TableName(k.table) + " key has " +
                           std::to_string(KeySize(k.table)));
    }
    keys.push_back(std::move(k));
  }
  if (std::ferror(f.get())) return Status::FromErrno("--keys: read " + path);
  if (keys.empty()) return Status::Usage("--keys: " + path + " has no keys");
  return keys;
}

}  // namespace flatbench::cli
