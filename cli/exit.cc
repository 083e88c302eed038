#include "cli/exit.h"

#include <cstdio>

namespace flatbench::cli {

int Fail(const Status& status) {
  std::fprintf(stderr, "flatbench: %s\n", status.message().c_str());
  return status.ExitCode();
}

int ExitCodeOf(const Status& status) { return status.ok() ? 0 : Fail(status); }

}  // namespace flatbench::cli
