// flatbench: storage-format benchmark for Ethereum flat state.
#include <cstdio>

#include "cli/command.h"
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
      "benchmark\nthem warm and cold, and compute a go/no-go verdict.\n\n"
      "Exit codes: 0 ok/GO, 1 NO-GO or key not found, 2 INCONCLUSIVE, "
      "64 usage,\n65 bad or corrupt data, 66 missing input, 73 refusing to "
      "overwrite (or too little disk or RAM for gonogo), 74 I/O error."};
  app.require_subcommand(1);
  app.set_version_flag("--version", FLATBENCH_VERSION);
  const Command commands[] = {AddGen(app),    AddGet(app),    AddVerify(app),
                              AddInfo(app),   AddImport(app), AddBench(app),
                              AddReport(app), AddGonogo(app), AddSweep(app),
                              AddDevice(app)};
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
