#pragma once
// Subcommands of the flatbench binary. Each Add* registers one CLI11
// subcommand and returns the function that runs it once parsing succeeded;
// that function returns the process exit code (see README.md).

#include <CLI/CLI.hpp>
#include <functional>

#include "common/status.h"

namespace flatbench::cli {

using RunFn = std::function<int()>;

RunFn AddGen(CLI::App& app);
RunFn AddGet(CLI::App& app);
RunFn AddVerify(CLI::App& app);
RunFn AddInfo(CLI::App& app);
RunFn AddImport(CLI::App& app);
RunFn AddBench(CLI::App& app);
RunFn AddReport(CLI::App& app);
RunFn AddGonogo(CLI::App& app);

// Prints "flatbench: <message>" on stderr; returns the status's exit code.
int Fail(const Status& status);

}  // namespace flatbench::cli
