#pragma once
// A test that cannot run on this machine says so to Meson: it exits with 77,
// Meson's "skipped", instead of passing. Only for a Meson test that runs
// this one case (an executable of its own, or a Catch2 filter that selects
// just this case), since the exit ends the whole executable.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace flatbench::testing {

// `remove_dir` (a test's temporary directory, when not empty) is removed
// first: the exit skips every destructor.
[[noreturn]] inline void SkipTest(const std::string& why,
                                  const std::string& remove_dir = "") {
  if (!remove_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(remove_dir, ec);
  }
  std::fprintf(stderr, "skipped: %s\n", why.c_str());
  std::fflush(nullptr);
  std::_Exit(77);
}

}  // namespace flatbench::testing
