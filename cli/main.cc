// flatbench: storage-format benchmark for Ethereum flat state.
#include <cstdio>

#include "cli/command.h"
#include "common/exit_codes.h"
#include "common/status.h"
#include "common/stop_signals.h"
#include "flatbench_config.h"

int main(int argc, char** argv) {
  using namespace flatbench::cli;
  using flatbench::Code;
  using flatbench::ExitCodeFor;
  CLI::App app{
      "flatbench " FLATBENCH_VERSION
      ": does an mmap'd sharded sorted-table arena beat RocksDB and LMDB\n"
      "for an Ethereum client's flat-state point reads? Build datasets, "
      "benchmark\nthem warm and cold, and compute a go/no-go verdict."};
  app.require_subcommand(1);
  app.set_version_flag("--version", FLATBENCH_VERSION);
  const Command commands[] = {
      AddGen(app),         AddAge(app),       AddMerge(app),  AddGet(app),
      AddVerify(app),      AddInfo(app),      AddImport(app), AddBench(app),
      AddReport(app),      AddGonogo(app),    AddSweep(app),  AddDevice(app),
      AddBenchWorker(app), AddBenchProbe(app)};
  // The exit contract, from its one table: every row here, and each
  // command's own rows in its --help.
  app.footer(flatbench::ExitCodesHelp(""));
  for (const Command& c : commands) {
    c.app->footer(flatbench::ExitCodesHelp(c.app->get_name()));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "flatbench: %s (see flatbench --help)\n", e.what());
    return ExitCodeFor(Code::kUsage);
  }
  for (const Command& c : commands) {
    if (!c.app->parsed()) continue;
    // A stop signal stops what the command started, then the command
    // (common/stop_signals.h). gen and import replace this with their own
    // handlers, which remove their partial output first; gonogo, sweep and
    // bench take the parent's role and say where they stopped.
    flatbench::InstallStopHandler(c.app->get_name(),
                                  flatbench::StopRole::kLeaf);
    return c.run();
  }
  // require_subcommand(1) makes this unreachable.
  return ExitCodeFor(Code::kUsage);
}
