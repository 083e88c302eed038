#pragma once
// How a command ends on an error: one line on stderr, and the exit code its
// Status maps to (common/status.h, README.md).

#include "common/status.h"

namespace flatbench::cli {

// Prints "flatbench: <message>" on stderr; returns the status's exit code.
int Fail(const Status& status);
// 0 when `status` is ok, else Fail(status).
int ExitCodeOf(const Status& status);

}  // namespace flatbench::cli
