// flatbench get: one point lookup, value printed as hex.
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "backends/table.h"
#include "bench/child_process.h"
#include "cli/arena_cli.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "cli/get_batch.h"
#include "common/hex.h"
#include "common/results_schema.h"
#include "datagen/dataset_dir.h"
#include "datagen/dataset_files.h"
#include "dataset/backend_facts.h"

namespace flatbench::cli {
namespace {

struct GetArgs {
  std::string dir;
  std::string file;
  std::string backend{dataset::kCandidate};
  std::string table{results::kTableAccount};
  std::string key;
  std::string keys_file;  // --keys: a batch (cli/get_batch.h)
  bool no_verify = false;
  uint64_t cache_mib = 1024;
  bool in_process = false;  // Hidden: read here, not in a child.
};

// `checked`, when set, is what a checked walk of the same file found; the
// backend's own answer must agree with it.
Status Lookup(Backend& backend, Table table, const std::string& key,
              const std::string& key_hex,
              const std::optional<std::string>* checked = nullptr) {
  FLATBENCH_ASSIGN_OR_RETURN(auto session, backend.NewSession());
  bool found = false;
  std::string_view value;
  const std::string what =
      std::string("get ") + TableName(table) + " key " + key_hex;
  FLATBENCH_RETURN_IF_ERROR(
      session->Get(table, key, &found, &value).WithContext(what));
  if (checked != nullptr &&
      (found != checked->has_value() || (found && value != **checked))) {
    return Status::Corruption(what + ": " + backend.Name() +
                              " and the checked walk of its pages disagree");
  }
  if (!found) {
    return Status::NotFound("key " + key_hex + " not found in " +
                            backend.Name() + " " + TableName(table));
  }
  std::printf("%s\n", ToHex(value).c_str());
  return Status::Ok();
}

// A backend whose reader trusts its pages, read here (in get's child): with
// a checked walk of its own (LMDB's, baselines/lmdb_path.h), the pages on
// the key's path are checked with pread before its reader follows them,
// unless --no-verify.
Status LookupIsolated(const datagen::Dataset& ds, const GetArgs& a,
                      const backends::Entry& entry, Table table,
                      const std::string& key) {
  const std::string dir = ds.BackendDir(a.backend);
  std::optional<std::string> checked;
  const bool check = !a.no_verify && entry.checked_get != nullptr;
  if (check) {
    auto walk = entry.checked_get(dir, table, key);
    if (!walk.ok()) {
      return walk.status().WithContext(std::string("get ") + TableName(table) +
                                       " key " + a.key);
    }
    if (walk->found) checked = std::move(walk->value);
  }
  FLATBENCH_ASSIGN_OR_RETURN(auto backend, entry.open(dir, OpenOptions()));
  return Lookup(*backend, table, key, a.key, check ? &checked : nullptr);
}

// Signals that reading a damaged map can raise: SIGBUS past the file's end,
// SIGSEGV through a wild pointer, SIGABRT from an assertion, SIGILL and
// SIGFPE from garbage arithmetic.
bool IsFault(int signo) {
  return signo == SIGBUS || signo == SIGSEGV || signo == SIGABRT ||
         signo == SIGILL || signo == SIGFPE;
}

// A backend that keeps no checksums and trusts its pages (LMDB) can crash
// on a damaged page. The lookup runs in a child process (as verify's check
// of such a backend does), which prints the value or its own error; a child
// that faults, or exits with a status get does not document (a sanitizer's
// report), is reported as corruption of the backend's files instead of
// taking get down. Returns the exit code get ends with.
int GetInChild(const datagen::Dataset& ds, const GetArgs& a,
               const backends::Entry& entry) {
  const bool batch = !a.keys_file.empty();
  std::vector<std::string> args = {"get",
                                   "--dir",
                                   a.dir,
                                   "--backend",
                                   a.backend,
                                   "--table",
                                   a.table,
                                   batch ? "--keys" : "--key",
                                   batch ? a.keys_file : a.key,
                                   "--in-process"};
  if (a.no_verify) args.push_back("--no-verify");
  auto end = bench::SpawnSelf(args);
  if (!end.ok()) return Fail(end.status());
  // A documented exit is the child's own answer, already printed; a stop
  // signal (an interrupt) is passed on as it is.
  if (end->DocumentedCode("get").has_value()) return end->code;
  if (end->signal != 0 && !IsFault(end->signal)) return end->ExitCode();
  return Fail(Status::Corruption(
      ds.BackendDir(a.backend) + "/" + std::string(entry.isolated_file) +
      ": reading it for " +
      (batch ? "the keys of " + a.keys_file : a.table + " key " + a.key) +
      " killed the lookup (" + end->Describe("get") + "): damaged pages (" +
      a.backend + " keeps no checksums)"));
}

// get --keys: one batch per table (cli/get_batch.h). LMDB is read in a
// child, after the checked walk of each key's pages, as a single get.
int RunGetBatch(const GetArgs& a) {
  if (!a.file.empty()) {
    return Fail(
        Status::Usage("--keys reads a dataset: give --dir, not --file"));
  }
  Table table;
  [[maybe_unused]] bool known = ParseTable(a.table, &table);  // IsMember'd.
  auto keys = ReadKeysFile(a.keys_file, table);
  if (!keys.ok()) return Fail(keys.status());
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  datagen::DirLock reading;  // No gen, age or merge changes it meanwhile.
  if (Status st = reading.LockShared(a.dir); !st.ok()) return Fail(st);
  if (Status st = ds->Build(a.backend).status(); !st.ok()) return Fail(st);
  auto entry = backends::Built(a.backend, "--backend");
  if (!entry.ok()) return Fail(entry.status());
  const std::string dir = ds->BackendDir(a.backend);
  if (entry.value()->isolate_reads()) {
    if (!a.in_process) return GetInChild(ds.value(), a, *entry.value());
    bench::DieBySignalOnFault();
    std::vector<Status> failed;
    std::vector<std::optional<std::string>> walks;
    const bool check = !a.no_verify && entry.value()->checked_get != nullptr;
    if (check) walks = CheckedWalks(*entry.value(), dir, keys.value(), &failed);
    auto backend = entry.value()->open(dir, OpenOptions());
    if (!backend.ok()) return Fail(backend.status());
    return LookupBatch(*backend.value(), keys.value(), check ? &walks : nullptr,
                       check ? &failed : nullptr);
  }
  OpenOptions options;
  options.verify_checksums = !a.no_verify;
  options.cache_bytes = a.cache_mib << 20;
  auto backend = entry.value()->open(dir, options);
  if (!backend.ok()) return Fail(backend.status());
  return LookupBatch(*backend.value(), keys.value(), nullptr, nullptr);
}

// The lookup get does, or (for LMDB read in a child) the child's exit code
// in *child_exit.
Status RunGet(const GetArgs& a, int* child_exit) {
  if (a.key.empty()) return Status::Usage("get: give --key or --keys");
  std::string key;
  if (!FromHex(a.key, &key)) {
    return Status::Usage("--key: '" + a.key + "' is not even-length hex");
  }
  if (!a.file.empty()) return GetFromFile(a.file, key, a.key, !a.no_verify);
  Table table;
  [[maybe_unused]] bool known = ParseTable(a.table, &table);  // IsMember'd.
  if (key.size() != KeySize(table)) {
    return Status::Usage("--key: " + std::to_string(key.size()) + " bytes, a " +
                         TableName(table) + " key has " +
                         std::to_string(KeySize(table)));
  }
  FLATBENCH_ASSIGN_OR_RETURN(const datagen::Dataset ds,
                             datagen::Dataset::Open(a.dir));
  datagen::DirLock reading;  // No gen, age or merge changes it meanwhile.
  FLATBENCH_RETURN_IF_ERROR(reading.LockShared(a.dir));
  FLATBENCH_RETURN_IF_ERROR(ds.Build(a.backend).status());
  FLATBENCH_ASSIGN_OR_RETURN(const backends::Entry* entry,
                             backends::Built(a.backend, "--backend"));
  if (entry->isolate_reads() && !a.in_process) {
    *child_exit = GetInChild(ds, a, *entry);
    return Status::Ok();
  }
  if (entry->isolate_reads()) {
    bench::DieBySignalOnFault();
    return LookupIsolated(ds, a, *entry, table, key);
  }
  OpenOptions options;
  options.verify_checksums = !a.no_verify;
  options.cache_bytes = a.cache_mib << 20;
  FLATBENCH_ASSIGN_OR_RETURN(auto backend,
                             entry->open(ds.BackendDir(a.backend), options));
  return Lookup(*backend, table, key, a.key);
}

}  // namespace

Command AddGet(CLI::App& app) {
  auto a = std::make_shared<GetArgs>();
  CLI::App* sub = app.add_subcommand(
      "get",
      "One point lookup; prints the value as hex, or exits 1 (not found) "
      "when the key is absent. The checksum of the block read is verified "
      "(exit 65 naming the file, table and key on a mismatch) unless "
      "--no-verify. LMDB is "
      "read in a child process after its pages on the key's path are "
      "checked: a damaged page is exit 65 naming data.mdb, never a signal.");
  AddDirOrFile(sub, &a->dir, &a->file);
  sub->add_option("--backend", a->backend,
                  "Backend (with --dir); arena+pread and arena+direct read "
                  "the arena's files with pread or O_DIRECT, arena+cache "
                  "through its cache of verified blocks")
      ->capture_default_str()
      ->check(CLI::IsMember(backends::Names()));
  sub->add_option("--table", a->table, "account or storage (with --dir)")
      ->capture_default_str()
      ->check(CLI::IsMember(Names(results::kTables)));
  CLI::Option* key = sub->add_option("--key", a->key, "Key as hex");
  sub->add_option("--keys", a->keys_file,
                  "A batch: a file of keys, one per line as hex, or "
                  "'account|storage HEX' (else --table's); looked up with "
                  "one MultiGet per table, printed 'TABLE KEY VALUE' or "
                  "'TABLE KEY not-found' in the file's order. A key whose "
                  "block is corrupt gets its own error line (exit 65); the "
                  "others are still answered. A line that is not a key, or "
                  "is longer than " +
                      std::to_string(kMaxKeyLineBytes) +
                      " bytes, is exit 64 naming FILE:LINE")
      ->excludes(key);
  sub->add_flag("--no-verify", a->no_verify,
                "Skip the arena's block checksum check on this read (LMDB, "
                "which keeps no checksums: the check of the pages on the "
                "key's path)");
  sub->add_option("--cache-mib", a->cache_mib,
                  "arena+cache: block cache size in MiB, split between the "
                  "tables by file size")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  // Used by get itself to read LMDB in a child process.
  sub->add_flag("--in-process", a->in_process)->group("");
  return {sub, [a] {
            if (!a->keys_file.empty()) return RunGetBatch(*a);
            int child_exit = 0;
            Status st = RunGet(*a, &child_exit);
            return st.ok() ? child_exit : Fail(st);
          }};
}

}  // namespace flatbench::cli
