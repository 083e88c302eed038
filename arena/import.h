#pragma once
// Builds an arena file from a user's hex TSV dump.

#include <string>

#include "arena/builder.h"
#include "arena/format.h"
#include "common/status.h"

namespace flatbench::arena {

// The longest line a legal dump can hold: the largest key plus value of one
// entry (a block payload less its u16 value end) in hex, two "0x" prefixes,
// the tab and a CR. Longer lines are rejected once this many bytes are read.
inline constexpr size_t kMaxTsvLineBytes =
    2 * (kBlockPayload - kValueEndSize) + 2 + 2 + 1 + 1;

// Reads `input_path`, one `KEYHEX<TAB>VALUEHEX` pair per line (LF or CRLF
// line ends; "0x" prefixes allowed, as common/hex.h decodes), and builds
// `output_path`. The key width is fixed by the first line's key
// (options.key_width is ignored). Empty lines are rejected, like any other
// malformed line. Errors:
//   kMissingInput     input does not exist;
//   kRefuseOverwrite  output already exists (it is left untouched);
//   kCorruption       "IN:LINE: what" for a line without a tab, odd-length
//                     or non-hex hex, a key of another width, a key not
//                     ascending or a duplicate, a value too large, a line
//                     longer than kMaxTsvLineBytes (rejected without being
//                     read whole), or an input with no lines;
//   kIOError          reading or writing failed ("...: Permission denied"
//                     when the input or the output's directory refuses).
// On any error no output file (and no temporary file) is left behind. The
// build writes OUT.tmp first; one left by a killed run is removed at start.
// `stats`, if non-null, receives the build statistics.
Status ImportTsv(const std::string& input_path, const std::string& output_path,
                 const BuilderOptions& options, BuildStats* stats = nullptr);

}  // namespace flatbench::arena
