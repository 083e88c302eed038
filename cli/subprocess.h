#pragma once
// Runs this same binary as a child process and waits for it.

#include <string>
#include <vector>

namespace flatbench::cli {

// Runs /proc/self/exe with `args` (argv[1..]), inheriting stdin, stdout,
// stderr and the environment. Returns the child's exit code, 128 + signal if
// it was killed, or 74 if it could not be started or waited for.
int SpawnSelf(const std::vector<std::string>& args);

}  // namespace flatbench::cli
