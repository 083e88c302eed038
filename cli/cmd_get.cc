// flatbench get: one point lookup, value printed as hex.
#include <cstdio>
#include <memory>

#include "cli/arena_cli.h"
#include "cli/backends.h"
#include "cli/command.h"
#include "common/hex.h"
#include "datagen/dataset.h"

namespace flatbench::cli {
namespace {

struct GetArgs {
  std::string dir;
  std::string file;
  std::string backend = "arena";
  std::string table = "account";
  std::string key;
  bool no_verify = false;
};

int Lookup(Backend& backend, Table table, const std::string& key,
           const std::string& key_hex) {
  auto session = backend.NewSession();
  if (!session.ok()) return Fail(session.status());
  bool found = false;
  std::string_view value;
  Status st = session.value()->Get(table, key, &found, &value);
  if (!st.ok()) {
    return Fail(st.WithContext(std::string("get ") + TableName(table) +
                               " key " + key_hex));
  }
  if (!found) {
    std::fprintf(stderr, "flatbench: key %s not found in %s %s\n",
                 key_hex.c_str(), backend.Name().c_str(), TableName(table));
    return 1;
  }
  std::printf("%s\n", ToHex(value).c_str());
  return 0;
}

int RunGet(const GetArgs& a) {
  std::string key;
  if (!FromHex(a.key, &key)) {
    return Fail(Status::Usage("--key: '" + a.key + "' is not even-length hex"));
  }
  if (!a.file.empty()) return RunGetFile(a.file, key, a.key, !a.no_verify);
  Table table;
  if (!ParseTable(a.table, &table)) {
    return Fail(Status::Usage("--table: '" + a.table +
                              "' is neither account nor storage"));
  }
  if (key.size() != KeySize(table)) {
    return Fail(Status::Usage("--key: " + std::to_string(key.size()) +
                              " bytes, a " + TableName(table) + " key has " +
                              std::to_string(KeySize(table))));
  }
  Result<std::vector<std::string>> names = ParseBackendList(a.backend);
  if (!names.ok()) return Fail(names.status());
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  auto build = ds->Build(a.backend);
  if (!build.ok()) return Fail(build.status());
  OpenOptions options;
  options.verify_checksums = !a.no_verify;
  auto backend = OpenBackend(a.backend, ds->BackendDir(a.backend), options);
  if (!backend.ok()) return Fail(backend.status());
  return Lookup(*backend.value(), table, key, a.key);
}

}  // namespace

RunFn AddGet(CLI::App& app) {
  auto a = std::make_shared<GetArgs>();
  CLI::App* sub = app.add_subcommand(
      "get",
      "One point lookup; prints the value as hex. Exit 1 if the key is "
      "absent. The checksum of the block read is verified (exit 65 naming "
      "the file, table and key on a mismatch) unless --no-verify.");
  auto* dir = sub->add_option("--dir", a->dir, "Dataset directory");
  auto* file = sub->add_option("--file", a->file, "A single arena file");
  dir->excludes(file);
  sub->add_option("--backend", a->backend,
                  "Backend (with --dir); arena+pread and arena+direct read "
                  "the arena's files with pread or O_DIRECT")
      ->capture_default_str();
  sub->add_option("--table", a->table, "account or storage (with --dir)")
      ->capture_default_str();
  sub->add_option("--key", a->key, "Key as hex")->required();
  sub->add_flag("--no-verify", a->no_verify,
                "Skip the arena's block checksum check on this read");
  sub->callback([sub, dir, file] {
    if (dir->count() == 0 && file->count() == 0) {
      throw CLI::RequiredError("--dir or --file");
    }
  });
  return [a] { return RunGet(*a); };
}

}  // namespace flatbench::cli
