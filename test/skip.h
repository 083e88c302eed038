#pragma once
// A test that cannot run on this machine says so to Meson: it exits with 77,
// Meson's "skipped", instead of passing. Only for a Meson test that runs
// this one case (an executable of its own, or a Catch2 filter that selects
// just this case), since the exit ends the whole executable.

#include <cstdio>
#include <cstdlib>
#include <string>

namespace flatbench::testing {

[[noreturn]] inline void SkipTest(const std::string& why) {
  std::fprintf(stderr, "skipped: %s\n", why.c_str());
  std::fflush(nullptr);
  std::_Exit(77);
}

}  // namespace flatbench::testing
