// libFuzzer entry point for deltas: built only with -Dfuzz=true and clang.
#include <cstddef>
#include <cstdint>

#include "test/fuzz/delta_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  flatbench::arena::FuzzDeltaBytes(data, size);
  return 0;
}
