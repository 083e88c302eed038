// flatbench verify: integrity of a dataset (every backend) or one arena file.
#include <csignal>
#include <cstdio>
#include <memory>

#include "backends/table.h"
#include "bench/child_process.h"
#include "cli/arena_cli.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "datagen/aged_state.h"
#include "datagen/check.h"
#include "datagen/dataset_dir.h"
#include "datagen/dataset_files.h"

namespace flatbench::cli {
namespace {

struct VerifyArgs {
  std::string dir;
  std::string file;
  std::vector<std::string> backends;  // Empty: every complete one.
  uint64_t samples = 10'000;
  bool quick = false;
  bool quiet = false;
  bool in_process = false;  // Hidden: check here, not in a child.
};

// Opens the backend's ordered walk of `table` (Backend::OpenScan).
Result<datagen::NextPairFn> OpenWalk(Backend& backend, Table table) {
  FLATBENCH_ASSIGN_OR_RETURN(std::shared_ptr<TableScan> owned,
                             backend.OpenScan(table));
  return datagen::NextPairFn(
      [owned](bool* valid, std::string_view* key, std::string_view* value) {
        return owned->Next(valid, key, value);
      });
}

Status CheckCounts(const datagen::Dataset& ds, const std::string& name,
                   const Backend& backend) {
  const dataset::Spec& spec = ds.spec();
  const uint64_t want[kNumTables] = {datagen::LivePairs(spec, Table::kAccount),
                                     datagen::LivePairs(spec, Table::kStorage)};
  FLATBENCH_ASSIGN_OR_RETURN(auto build, ds.Build(name));
  for (int t = 0; t < kNumTables; ++t) {
    Table table = static_cast<Table>(t);
    if (build.pairs[t] != want[t]) {
      return Status::Corruption(
          ds.MarkerPath(name) + ": " + std::to_string(build.pairs[t]) + " " +
          TableName(table) + " pairs recorded, spec has " +
          std::to_string(want[t]));
    }
    FLATBENCH_ASSIGN_OR_RETURN(uint64_t n, backend.CountPairs(table));
    if (n != want[t]) {
      return Status::Corruption(name + " " + TableName(table) + ": holds " +
                                std::to_string(n) + " pairs, spec has " +
                                std::to_string(want[t]));
    }
  }
  return Status::Ok();
}

Status VerifyBackend(const datagen::Dataset& ds, const backends::Entry& entry,
                     const VerifyArgs& a) {
  const std::string name(entry.name);
  FLATBENCH_ASSIGN_OR_RETURN(auto build, ds.Build(name));
  OpenOptions open;
  open.verify_checksums = true;
  FLATBENCH_ASSIGN_OR_RETURN(auto backend,
                             entry.open(ds.BackendDir(name), open));
  Backend& b = *backend;
  FLATBENCH_RETURN_IF_ERROR(CheckCounts(ds, name, b));
  std::string integrity;
  if (!a.quick) {
    // These walks print nothing until they end; say what is running.
    if (!a.quiet && !entry.integrity_check.empty()) {
      std::fprintf(stderr, "verify %s: %s\n", name.c_str(),
                   std::string(entry.integrity_check).c_str());
    }
    FLATBENCH_ASSIGN_OR_RETURN(integrity, b.CheckIntegrity());
  }
  datagen::CheckOptions opts;
  opts.samples = a.samples;
  datagen::CheckReport sample;
  if (a.quick) {
    FLATBENCH_RETURN_IF_ERROR(
        datagen::CheckSample(b, ds.spec(), opts, &sample));
    std::printf(
        "%-8s ok (quick): %llu account + %llu storage pairs counted, %llu "
        "hits and %llu misses checked\n",
        name.c_str(), static_cast<unsigned long long>(build.pairs[0]),
        static_cast<unsigned long long>(build.pairs[1]),
        static_cast<unsigned long long>(sample.hits_verified),
        static_cast<unsigned long long>(sample.misses_verified));
    return Status::Ok();
  }
  FLATBENCH_ASSIGN_OR_RETURN(auto session, b.NewSession());
  datagen::FullCheckOptions full;
  full.progress = !a.quiet;
  full.lookups = session.get();
  datagen::FullCheckReport report;
  FLATBENCH_RETURN_IF_ERROR(datagen::CheckFull(
      ds.spec(), name, [&](Table t) { return OpenWalk(b, t); }, full, &report));
  // After the walk, which names a wrong value best: misses stay absent.
  FLATBENCH_RETURN_IF_ERROR(datagen::CheckSample(b, ds.spec(), opts, &sample));
  uint64_t pairs = report.pairs[0] + report.pairs[1];
  std::printf(
      "%-8s ok: %llu account + %llu storage pairs equal the generator's "
      "stream in order and by lookup, %llu misses absent, %s; %.1f s "
      "(%.0f pairs/s)\n",
      name.c_str(), static_cast<unsigned long long>(report.pairs[0]),
      static_cast<unsigned long long>(report.pairs[1]),
      static_cast<unsigned long long>(sample.misses_verified),
      integrity.c_str(), report.seconds,
      report.seconds > 0 ? pairs / report.seconds : 0.0);
  return Status::Ok();
}

// A backend that keeps no checksums and trusts its pages (LMDB) can crash
// on a damaged branch or leaf page. Its check runs in a child process; a
// child that dies (a signal, or an exit status verify does not document,
// such as a sanitizer's report) is reported as corruption instead of taking
// verify down. A documented exit is the child's own verdict, already
// printed.
Result<bench::ChildExit> VerifyInChild(const datagen::Dataset& ds,
                                       const backends::Entry& entry,
                                       const VerifyArgs& a) {
  const std::string name(entry.name);
  std::vector<std::string> args = {"verify",
                                   "--dir",
                                   ds.dir(),
                                   "--backends",
                                   name,
                                   "--samples",
                                   std::to_string(a.samples),
                                   "--in-process"};
  if (a.quick) args.push_back("--quick");
  if (a.quiet) args.push_back("--quiet");
  FLATBENCH_ASSIGN_OR_RETURN(bench::ChildExit end, bench::SpawnSelf(args));
  if (end.DocumentedCode("verify").has_value()) return end;
  return Status::Corruption(
      ds.BackendDir(name) + "/" + std::string(entry.isolated_file) +
      ": reading it killed the check (" + end.Describe("verify") +
      "): damaged pages (" + name + " keeps no checksums)");
}

int RunVerify(const VerifyArgs& a) {
  if (!a.file.empty()) return ExitCodeOf(VerifyArenaFile(a.file, true));
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  datagen::DirLock reading;  // No gen, age or merge changes it meanwhile.
  if (Status st = reading.LockShared(a.dir); !st.ok()) return Fail(st);
  std::vector<std::string> names =
      a.backends.empty() ? ds->CompleteBackends() : a.backends;
  if (names.empty()) {
    return Fail(Status::MissingInput(a.dir + ": no backend is complete; run "
                                             "flatbench gen first"));
  }
  if (!a.in_process) {
    std::printf("dataset %s: %s, fingerprint %s\n", a.dir.c_str(),
                ds->spec().Canonical().c_str(), ds->fingerprint().c_str());
  }
  if (a.in_process) bench::DieBySignalOnFault();
  for (const auto& name : names) {
    auto built = backends::Built(name, "--backends");
    if (!built.ok()) return Fail(built.status().WithContext("verify " + name));
    const backends::Entry& entry = *built.value();
    if (entry.isolate_reads() && !a.in_process) {
      auto end = VerifyInChild(ds.value(), entry, a);
      if (!end.ok()) return Fail(end.status().WithContext("verify " + name));
      if (!end->ok()) return end->ExitCode();  // It printed why.
      continue;
    }
    Status st = VerifyBackend(ds.value(), entry, a);
    if (!st.ok()) return Fail(st.WithContext("verify " + name));
  }
  if (!a.in_process) std::printf("verify: ok\n");
  return 0;
}

}  // namespace

Command AddVerify(CLI::App& app) {
  auto a = std::make_shared<VerifyArgs>();
  CLI::App* sub = app.add_subcommand(
      "verify",
      "Integrity check. With --dir, for every complete backend: counts "
      "against the spec; the backend's own checks (every arena block "
      "checksum, RocksDB's VerifyChecksum, SQLite's integrity_check, every "
      "LMDB page of both trees checked as get checks a key's path); every "
      "pair of every table, in "
      "key order and by lookup, against the generator's stream; and a "
      "sample of miss keys absent. --quick does only the counts and a "
      "sample of hit and miss lookups. With --file: a full walk of one "
      "arena file (every checksum, ordering, counts, shard boundaries). "
      "Exit 65 on the first defect, naming backend, table, key and values.");
  AddDirOrFile(sub, &a->dir, &a->file);
  AddListOption(sub, "--backends", &a->backends,
                "Only these backends (default: every complete one)")
      ->check(CLI::IsMember(backends::Names()));
  sub->add_flag("--quick", a->quick,
                "Counts and sampled lookups only, no full walk");
  sub->add_option("--samples", a->samples,
                  "Keys looked up per table and key kind")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  sub->add_flag("--quiet", a->quiet, "No progress lines");
  // Used by verify itself to check LMDB in a child process.
  sub->add_flag("--in-process", a->in_process)->group("");
  return {sub, [a] { return RunVerify(*a); }};
}

}  // namespace flatbench::cli
