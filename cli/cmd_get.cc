// flatbench get: one point lookup, value printed as hex.
#include <cstdio>
#include <memory>

#include "cli/arena_cli.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "common/hex.h"
#include "datagen/dataset.h"
#include "datagen/registry.h"

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

Status Lookup(Backend& backend, Table table, const std::string& key,
              const std::string& key_hex) {
  FLATBENCH_ASSIGN_OR_RETURN(auto session, backend.NewSession());
  bool found = false;
  std::string_view value;
  FLATBENCH_RETURN_IF_ERROR(session->Get(table, key, &found, &value)
                                .WithContext(std::string("get ") +
                                             TableName(table) + " key " +
                                             key_hex));
  if (!found) {
    return Status::NotFound("key " + key_hex + " not found in " +
                            backend.Name() + " " + TableName(table));
  }
  std::printf("%s\n", ToHex(value).c_str());
  return Status::Ok();
}

Status RunGet(const GetArgs& a) {
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
  FLATBENCH_RETURN_IF_ERROR(ds.Build(a.backend).status());
  OpenOptions options;
  options.verify_checksums = !a.no_verify;
  FLATBENCH_ASSIGN_OR_RETURN(
      auto backend,
      datagen::OpenBackend(a.backend, ds.BackendDir(a.backend), options));
  return Lookup(*backend, table, key, a.key);
}

}  // namespace

Command AddGet(CLI::App& app) {
  auto a = std::make_shared<GetArgs>();
  CLI::App* sub = app.add_subcommand(
      "get",
      "One point lookup; prints the value as hex. Exit 1 if the key is "
      "absent. The checksum of the block read is verified (exit 65 naming "
      "the file, table and key on a mismatch) unless --no-verify.");
  AddDirOrFile(sub, &a->dir, &a->file);
  sub->add_option("--backend", a->backend,
                  "Backend (with --dir); arena+pread and arena+direct read "
                  "the arena's files with pread or O_DIRECT")
      ->capture_default_str()
      ->check(CLI::IsMember(BackendNames()));
  sub->add_option("--table", a->table, "account or storage (with --dir)")
      ->capture_default_str()
      ->check(CLI::IsMember({"account", "storage"}));
  sub->add_option("--key", a->key, "Key as hex")->required();
  sub->add_flag("--no-verify", a->no_verify,
                "Skip the arena's block checksum check on this read");
  return {sub, [a] { return ExitCodeOf(RunGet(*a)); }};
}

}  // namespace flatbench::cli
