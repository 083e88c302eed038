#pragma once
// The keys file of `flatbench get --keys FILE`: one key per line as hex,
// optionally preceded by its table ("storage 00ab..."). Blank lines and
// lines whose first non-blank byte is '#' are skipped.
//
// A line is never held whole: no key line is longer than kMaxKeyLineBytes,
// so only that much of a line is kept and the rest is counted as it is
// read. A bad line of any length (or a long comment) costs no more memory
// than a key.

#include <cstddef>
#include <string>
#include <vector>

#include "common/backend.h"
#include "common/status.h"

namespace flatbench::cli {

// The longest key line: "storage", a blank and a 52-byte key as hex with a
// "0x" prefix take 114 bytes; the rest is room for blanks around them.
inline constexpr size_t kMaxKeyLineBytes = 256;
// An error quotes at most this many characters of the line at fault,
// bytes that are not printable ASCII written as \xNN.
inline constexpr size_t kEchoChars = 80;

// One key of a keys file.
struct BatchKey {
  Table table;
  std::string key;  // bytes
  std::string hex;  // as written
};

// Reads the keys file at `path`; a key without a table is of
// `default_table`. kMissingInput when it does not exist; kIOError when it
// cannot be read; kUsage naming the file and line for a line that is not
// a key of its table's width or is longer than kMaxKeyLineBytes (quoting
// at most kEchoChars characters of it, escaped, and then its length), and
// for a file without keys.
Result<std::vector<BatchKey>> ReadKeysFile(const std::string& path,
                                           Table default_table);

}  // namespace flatbench::cli
