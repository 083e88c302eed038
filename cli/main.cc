// flatbench: storage-format benchmark for Ethereum flat state.
#include <cstdio>
#include <utility>
#include <vector>

#include "cli/command.h"
#include "flatbench_config.h"

namespace flatbench::cli {

int Fail(const Status& status) {
  std::fprintf(stderr, "flatbench: %s\n", status.message().c_str());
  return status.ExitCode();
}

}  // namespace flatbench::cli

int main(int argc, char** argv) {
  using namespace flatbench::cli;
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
  std::vector<std::pair<CLI::App*, RunFn>> commands;
  auto add = [&](RunFn (*adder)(CLI::App&)) {
    RunFn fn = adder(app);
    commands.emplace_back(
        app.get_subcommands([](CLI::App*) { return true; }).back(),
        std::move(fn));
  };
  add(AddGen);
  add(AddGet);
  add(AddVerify);
  add(AddInfo);
  add(AddImport);
  add(AddBench);
  add(AddReport);
  add(AddGonogo);
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
    return 64;
  }
  for (auto& [sub, run] : commands) {
    if (sub->parsed()) return run();
  }
  return 64;
}
