// flatbench info: what a dataset or an arena file holds.
#include <cstdio>
#include <memory>

#include "backends/table.h"
#include "cli/arena_cli.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "common/files.h"
#include "datagen/dataset_dir.h"

namespace flatbench::cli {
namespace {

struct InfoArgs {
  std::string dir;
  std::string file;
  bool shards = false;
};

Status RunInfo(const InfoArgs& a) {
  if (!a.file.empty()) return PrintArenaInfo(a.file, a.shards);
  FLATBENCH_ASSIGN_OR_RETURN(const datagen::Dataset ds,
                             datagen::Dataset::Open(a.dir));
  const dataset::Spec& s = ds.spec();
  std::printf("dataset      %s\n", a.dir.c_str());
  std::printf("scale        %s\n", s.scale.c_str());
  std::printf("accounts     %llu\n",
              static_cast<unsigned long long>(s.accounts));
  std::printf("slots        %llu (%u per account)\n",
              static_cast<unsigned long long>(s.storage_slots()),
              s.slots_per_account);
  std::printf("seed         %llu\n", static_cast<unsigned long long>(s.seed));
  std::printf("fingerprint  %s\n", ds.fingerprint().empty()
                                       ? "(no backend complete yet)"
                                       : ds.fingerprint().c_str());
  std::printf("disk         %s\n", HumanBytes(DiskBytes(a.dir)).c_str());
  for (const auto& name : backends::Stores()) {
    auto b = ds.Build(name);
    if (!b.ok()) {
      std::printf("\n%s: %s\n", name.c_str(),
                  b.status().code() == Code::kMissingInput
                      ? "not built"
                      : b.status().message().c_str());
      continue;
    }
    uint64_t pairs = b->pairs[0] + b->pairs[1];
    std::printf(
        "\n%s: complete, %llu pairs, %s on disk, built in %.1f s "
        "(%.0f keys/s)\n",
        name.c_str(), static_cast<unsigned long long>(pairs),
        HumanBytes(b->disk_bytes).c_str(), b->build_seconds,
        b->build_seconds > 0 ? pairs / b->build_seconds : 0.0);
    FLATBENCH_ASSIGN_OR_RETURN(auto backend,
                               backends::Open(name, ds.BackendDir(name), {}));
    std::printf("  resident metadata after open: %s\n",
                HumanBytes(backend->ResidentMetadataBytes()).c_str());
    for (const auto& [key, value] : backend->Describe()) {
      std::printf("  %-32s %s\n", key.c_str(), value.c_str());
    }
    if (backends::Find(name)->own_format) {
      for (Table t : {Table::kAccount, Table::kStorage}) {
        const char* table = TableName(t);
        std::string path = ds.BackendDir(name) + "/" + table + ".arena";
        std::printf("\n");
        FLATBENCH_RETURN_IF_ERROR(PrintArenaInfo(path, a.shards));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Command AddInfo(CLI::App& app) {
  auto a = std::make_shared<InfoArgs>();
  CLI::App* sub = app.add_subcommand(
      "info",
      "What a dataset (--dir) or one arena file (--file) holds: counts, "
      "bytes, build figures, settings; for arena files also shards, index "
      "and filter bytes and a measured filter false-positive rate.");
  AddDirOrFile(sub, &a->dir, &a->file);
  sub->add_flag("--shards", a->shards, "Print one line per arena shard");
  return {sub, [a] { return ExitCodeOf(RunInfo(*a)); }};
}

}  // namespace flatbench::cli
