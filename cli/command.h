#pragma once
// Subcommands of the flatbench binary. Each Add* registers one CLI11
// subcommand and returns it with the function that runs it once parsing
// succeeded; that function returns the process exit code (see README.md).

#include <CLI/CLI.hpp>
#include <functional>
#include <string_view>

namespace flatbench::cli {

using RunFn = std::function<int()>;

struct Command {
  CLI::App* app;  // The subcommand, owned by the parent CLI::App.
  RunFn run;
};

Command AddGen(CLI::App& app);
Command AddAge(CLI::App& app);
Command AddMerge(CLI::App& app);
Command AddGet(CLI::App& app);
Command AddVerify(CLI::App& app);
Command AddInfo(CLI::App& app);
Command AddImport(CLI::App& app);
Command AddBench(CLI::App& app);
// Hidden: a bench worker process (cli/bench_child.h), started by bench.
inline constexpr std::string_view kBenchWorkerCommand = "bench-worker";
Command AddBenchWorker(CLI::App& app);
// Hidden: a startup probe (cli/bench_child.h), started by a bench worker.
inline constexpr std::string_view kBenchProbeCommand = "bench-probe";
Command AddBenchProbe(CLI::App& app);
Command AddReport(CLI::App& app);
Command AddGonogo(CLI::App& app);
Command AddSweep(CLI::App& app);
Command AddDevice(CLI::App& app);

}  // namespace flatbench::cli
