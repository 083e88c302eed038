// flatbench_test, the test build of the binary: its hooks come from the
// environment (cli/test_hooks.h), which its child processes inherit.
#include <cstdlib>
#include <string_view>

#include "cli/test_hooks.h"

namespace flatbench::cli {
namespace {

uint64_t Number(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? 0 : std::strtoull(v, nullptr, 10);
}

}  // namespace

uint64_t HoldAfterPassHook() {
  return Number("FLATBENCH_TEST_HOLD_AFTER_PASS");
}
uint64_t StopAfterGenHook() { return Number("FLATBENCH_TEST_STOP_AFTER_GEN"); }
bool CorruptExpectationsHook() {
  return Number("FLATBENCH_TEST_CORRUPT_EXPECTATIONS") != 0;
}
bool CorruptWritingChecksHook() {
  return Number("FLATBENCH_TEST_CORRUPT_WRITING_CHECKS") != 0;
}
uint64_t AgeCheckpointAtHook() {
  return Number("FLATBENCH_TEST_AGE_CHECKPOINT_AT");
}
uint64_t AgeHoldAtHook() { return Number("FLATBENCH_TEST_AGE_HOLD_AT"); }

}  // namespace flatbench::cli
