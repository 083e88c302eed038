// flatbench verify: integrity of a dataset (every backend) or one arena file.
#include <cstdio>
#include <memory>

#include "cli/arena_cli.h"
#include "cli/backends.h"
#include "cli/command.h"
#include "datagen/check.h"
#include "datagen/dataset.h"

namespace flatbench::cli {
namespace {

struct VerifyArgs {
  std::string dir;
  std::string file;
  std::string backends;
  uint64_t samples = 10'000;
};

Status VerifyBackend(const datagen::Dataset& ds, const std::string& name,
                     uint64_t samples) {
  auto build = ds.Build(name);
  if (!build.ok()) return build.status();
  const datagen::Spec& spec = ds.spec();
  const uint64_t want[kNumTables] = {spec.accounts, spec.storage_slots()};
  for (int t = 0; t < kNumTables; ++t) {
    if (build->pairs[t] != want[t]) {
      return Status::Corruption(
          ds.MarkerPath(name) + ": " + std::to_string(build->pairs[t]) + " " +
          TableName(static_cast<Table>(t)) + " pairs recorded, spec has " +
          std::to_string(want[t]));
    }
  }
  if (name == "arena") {
    FLATBENCH_RETURN_IF_ERROR(VerifyArenaDir(ds.BackendDir(name)));
  }
  auto backend = OpenBackend(name, ds.BackendDir(name), {});
  if (!backend.ok()) return backend.status();
  for (int t = 0; t < kNumTables; ++t) {
    Table table = static_cast<Table>(t);
    auto n = backend.value()->CountPairs(table);
    if (!n.ok()) return n.status();
    if (n.value() != want[t]) {
      return Status::Corruption(name + " " + TableName(table) + ": holds " +
                                std::to_string(n.value()) +
                                " pairs, spec has " + std::to_string(want[t]));
    }
  }
  datagen::CheckOptions opts;
  opts.samples = samples;
  datagen::CheckReport report;
  FLATBENCH_RETURN_IF_ERROR(
      datagen::CheckSample(*backend.value(), spec, opts, &report));
  std::printf(
      "%-8s ok: %llu account + %llu storage pairs counted, %llu hits "
      "and %llu misses checked\n",
      name.c_str(), static_cast<unsigned long long>(want[0]),
      static_cast<unsigned long long>(want[1]),
      static_cast<unsigned long long>(report.hits_verified),
      static_cast<unsigned long long>(report.misses_verified));
  return Status::Ok();
}

int RunVerify(const VerifyArgs& a) {
  if (!a.file.empty()) {
    Status st = VerifyArenaFile(a.file, /*print=*/true);
    return st.ok() ? 0 : Fail(st);
  }
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  std::vector<std::string> names = ds->CompleteBackends();
  if (!a.backends.empty()) {
    auto parsed = ParseBackendList(a.backends);
    if (!parsed.ok()) return Fail(parsed.status());
    names = parsed.value();
  }
  if (names.empty()) {
    return Fail(Status::MissingInput(a.dir + ": no backend is complete; run "
                                             "flatbench gen first"));
  }
  std::printf("dataset %s: %s, fingerprint %s\n", a.dir.c_str(),
              ds->spec().Canonical().c_str(), ds->fingerprint().c_str());
  for (const auto& name : names) {
    Status st = VerifyBackend(ds.value(), name, a.samples);
    if (!st.ok()) return Fail(st.WithContext("verify " + name));
  }
  std::printf("verify: ok\n");
  return 0;
}

}  // namespace

RunFn AddVerify(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  CLI::App* sub = app.add_subcommand(
      "verify",
      "Integrity check. With --dir: every complete backend's counts against "
      "the spec, a sample of hit keys byte for byte against regenerated "
      "values, both miss kinds absent, and a full walk of every arena file. "
      "With --file: a full walk of one arena file (every checksum, "
      "ordering, counts, shard boundaries). Exit 65 on the first defect.");
  auto* dir = sub->add_option("--dir", a->dir, "Dataset directory");
  auto* file = sub->add_option("--file", a->file, "A single arena file");
  dir->excludes(file);
  sub->add_option("--backends", a->backends,
                  "Only these backends (default: every complete one)");
  sub->add_option("--samples", a->samples,
                  "Keys checked per table and key kind")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  sub->callback([dir, file] {
    if (dir->count() == 0 && file->count() == 0) {
      throw CLI::RequiredError("--dir or --file");
    }
  });
  return [a] { return RunVerify(*a); };
}

}  // namespace flatbench::cli
