// flatbench gen: build a dataset into the chosen backends.
#include <cstdio>
#include <memory>

#include "cli/backends.h"
#include "cli/command.h"
#include "common/files.h"
#include "datagen/dataset.h"

namespace flatbench::cli {
namespace {

struct GenArgs {
  std::string scale = "smoke";
  std::string dir;
  std::string backends;
  uint64_t accounts = 0;
  uint32_t slots = 4;
  uint64_t seed = datagen::kDefaultSeed;
  bool rebuild = false;
  bool quiet = false;
};

int RunGen(const GenArgs& a) {
  Result<datagen::Spec> spec =
      datagen::MakeSpec(a.scale, a.accounts, a.slots, a.seed);
  if (!spec.ok()) return Fail(spec.status());
  Result<std::vector<std::string>> backends = ParseBackendList(a.backends);
  if (!backends.ok()) return Fail(backends.status());
  datagen::GenOptions o;
  o.dir = a.dir;
  o.spec = spec.value();
  o.backends = backends.value();
  o.rebuild = a.rebuild;
  o.progress = !a.quiet;
  auto builds = datagen::Generate(o, NewLoader);
  if (!builds.ok()) return Fail(builds.status());
  std::printf("dataset %s: %s\n", a.dir.c_str(), o.spec.Canonical().c_str());
  std::printf("%-8s %12s %12s %10s %12s\n", "backend", "pairs", "disk",
              "build s", "keys/s");
  for (const auto& b : builds.value()) {
    uint64_t pairs = b.pairs[0] + b.pairs[1];
    std::printf("%-8s %12llu %12s %10.1f %12.0f\n", b.backend.c_str(),
                static_cast<unsigned long long>(pairs),
                HumanBytes(b.disk_bytes).c_str(), b.build_seconds,
                b.build_seconds > 0 ? pairs / b.build_seconds : 0.0);
  }
  std::printf("fingerprint %s\n", builds->front().fingerprint.c_str());
  return 0;
}

}  // namespace

RunFn AddGen(CLI::App& app) {
  auto a = std::make_shared<GenArgs>();
  std::string all;
  for (const auto& b : AvailableBackends()) all += (all.empty() ? "" : ",") + b;
  a->backends = all;
  CLI::App* sub = app.add_subcommand(
      "gen",
      "Build a dataset into the chosen backends. Resumable: finished "
      "backends are skipped, an interrupted one is rebuilt. Refuses (exit "
      "73) to touch a directory holding another dataset unless --rebuild.");
  sub->add_option("--scale", a->scale,
                  "tiny (10k x 5), smoke (100k x 5), medium (10M x 4), full "
                  "(300M x 4) or custom")
      ->capture_default_str();
  sub->add_option("--dir", a->dir, "Dataset directory")->required();
  sub->add_option("--backends", a->backends, "Comma-separated backends")
      ->capture_default_str();
  sub->add_option("--accounts", a->accounts, "Accounts (--scale custom)");
  sub->add_option("--slots-per-account", a->slots,
                  "Storage slots per account (--scale custom)")
      ->capture_default_str();
  sub->add_option("--seed", a->seed, "Value seed")->capture_default_str();
  sub->add_flag("--rebuild", a->rebuild,
                "Delete and rebuild a dataset whose identity differs");
  sub->add_flag("--quiet", a->quiet, "No progress lines");
  return [a] { return RunGen(*a); };
}

}  // namespace flatbench::cli
