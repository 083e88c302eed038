#pragma once
// The fuzz target's body, shared by the libFuzzer binary (arena_fuzz) and
// the corpus replay test, so every build exercises it.

#include <cstddef>
#include <cstdint>

namespace flatbench::arena {

// Treats `data` as an arena file: opens it five ways (eager and lazy, with
// and without block checksums, the pread path, and the cache path with its
// smallest cache), looks up keys taken from the input and from a scan, and
// runs Verify; then does the same with a copy whose checksums are
// recomputed, so mutations reach the structural checks and decoders behind
// them. Any outcome but a crash or a sanitizer report is a pass. Returns the
// number of successful opens of the unmodified bytes (0..5), for tests.
int FuzzArenaBytes(const uint8_t* data, size_t size);

}  // namespace flatbench::arena
