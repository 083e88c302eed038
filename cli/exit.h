#pragma once
// How a command ends on an error: one line on stderr, and the exit code its
// Status maps to (common/status.h, README.md).

#include <csignal>

#include "common/status.h"

namespace flatbench::cli {

// Prints "flatbench: <message>" on stderr; returns the status's exit code.
int Fail(const Status& status);
// 0 when `status` is ok, else Fail(status).
int ExitCodeOf(const Status& status);

// For a command that stops between steps of its own (gen, age): from now
// on SIGINT, SIGTERM and SIGHUP set the returned flag to the signal's
// number; the handler is reset on first use, so a second signal kills at
// once.
const volatile std::sig_atomic_t* CatchStopSignals();
// ExitCodeOf, but once a signal set that flag: "flatbench: <who>: stopped
// by signal N" and 128 + N, as if the signal had ended the process.
int ExitCodeOfStoppable(const Status& status, const char* who);

}  // namespace flatbench::cli
