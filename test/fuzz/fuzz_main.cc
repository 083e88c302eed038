// libFuzzer entry point: built only with -Dfuzz=true and clang.
#include <cstddef>
#include <cstdint>

#include "test/fuzz/fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  flatbench::arena::FuzzArenaBytes(data, size);
  return 0;
}
