// The shipped binary: no test hooks.
#include "cli/test_hooks.h"

namespace flatbench::cli {

uint64_t HoldAfterPassHook() { return 0; }
uint64_t StopAfterGenHook() { return 0; }
bool CorruptExpectationsHook() { return false; }
bool CorruptWritingChecksHook() { return false; }
uint64_t AgeCheckpointAtHook() { return 0; }
uint64_t AgeHoldAtHook() { return 0; }

}  // namespace flatbench::cli
