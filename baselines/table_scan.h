#pragma once
// An ordered walk over one table of a baseline backend. Not part of the
// read interface the bench uses: only the full verify needs it.

#include <string_view>

#include "common/status.h"

namespace flatbench::baselines {

// Not thread-safe. Must not outlive the backend it was made from.
class TableScan {
 public:
  virtual ~TableScan() = default;
  // Moves to the next pair in ascending key order (the first pair on the
  // first call) and sets *valid; false means the table has no more pairs.
  // When *valid, *key and *value view the pair until the next call or the
  // scan's destruction. A read error or corruption ends the scan with a
  // non-ok status (kCorruption or kIOError).
  virtual Status Next(bool* valid, std::string_view* key,
                      std::string_view* value) = 0;
};

}  // namespace flatbench::baselines
