// The shipped binary: no test hooks.
#include "cli/test_hooks.h"

namespace flatbench::cli {

uint64_t HoldAfterPassHook() { return 0; }
uint64_t StopAfterGenHook() { return 0; }
bool CorruptExpectationsHook() { return false; }
bool CorruptWritingChecksHook() { return false; }

}  // namespace flatbench::cli
