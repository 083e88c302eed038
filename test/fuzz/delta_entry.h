#pragma once
// The delta fuzz target's body (the merge's input), shared by the
// libFuzzer binary (delta_fuzz) and the replay test.

#include <cstddef>
#include <cstdint>

namespace flatbench::arena {

// Decodes `data` as a delta file, and again with its trailer's count and
// checksum made to match (so mutations reach the record parser). A delta
// that decodes must encode back to the same bytes, and is merged into a
// small store (built once per process in a temporary folder): the merged
// store must open and hold exactly the base with the delta applied. Any
// other outcome is a trap. Returns how many of the two decodes succeeded.
int FuzzDeltaBytes(const uint8_t* data, size_t size);

}  // namespace flatbench::arena
