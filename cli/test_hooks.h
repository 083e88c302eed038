#pragma once
// Test hooks: events a test needs on cue that no input can cause
// deterministically. Only the test build of the binary, flatbench_test
// (test_hooks_env.cc), reads them, from its environment; the shipped
// flatbench links test_hooks_none.cc and has none.

#include <cstdint>

namespace flatbench::cli {

// bench: after this many passes the parent holds, until a stop signal,
// so a test can stop a run mid-way (0: never). FLATBENCH_TEST_HOLD_AFTER_PASS.
uint64_t HoldAfterPassHook();

// sweep: stop, as if interrupted (exit 74), right after building the size
// of this many accounts (0: never). FLATBENCH_TEST_STOP_AFTER_GEN.
uint64_t StopAfterGenHook();

// bench's workers: the sanity check expects values the data does not hold,
// so it fails (exit 65). FLATBENCH_TEST_CORRUPT_EXPECTATIONS=1.
bool CorruptExpectationsHook();

// bench's writing passes: every state a key held before the pass is
// expected wrong, so the first checked read fails the pass (exit 65).
// FLATBENCH_TEST_CORRUPT_WRITING_CHECKS=1.
bool CorruptWritingChecksHook();

// age: a checkpoint after this block, as well as every second (0: none).
// FLATBENCH_TEST_AGE_CHECKPOINT_AT.
uint64_t AgeCheckpointAtHook();

// age: after this block it holds, until a stop signal, with no checkpoint
// of its own, so a test can kill it at a known block (0: never).
// FLATBENCH_TEST_AGE_HOLD_AT.
uint64_t AgeHoldAtHook();

}  // namespace flatbench::cli
