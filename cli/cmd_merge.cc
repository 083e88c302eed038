// flatbench merge: a delta file merged into an arena store, atomically.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "arena/delta.h"
#include "arena/merge.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "common/files.h"
#include "datagen/dataset_dir.h"
#include "datagen/dataset_files.h"

namespace flatbench::cli {
namespace {

struct MergeArgs {
  std::string store;
  std::string delta;
  int jobs = 0;
};

// The folder holding `store`, without a trailing slash's empty name.
std::string ParentOf(std::string store) {
  while (store.size() > 1 && store.back() == '/') store.pop_back();
  const std::string p = std::filesystem::path(store).parent_path().string();
  return p.empty() ? "." : p;
}

Status RunMerge(const MergeArgs& a) {
  // A dataset's arena is the state its identity names: merged by age,
  // which moves the identity with it.
  const std::string parent = ParentOf(a.store);
  std::error_code ec;
  if (std::filesystem::exists(parent + "/" + datagen::kIdentityFile, ec)) {
    return Status::Usage(a.store + " is a dataset's store (" + parent + "/" +
                         datagen::kIdentityFile +
                         "); flatbench age merges it and keeps the dataset's "
                         "identity");
  }
  // One merge at a time beside the store: each writes STORE.merge.
  datagen::DirLock lock;
  FLATBENCH_RETURN_IF_ERROR(lock.Lock(parent));
  FLATBENCH_ASSIGN_OR_RETURN(const arena::Delta delta,
                             arena::ReadDelta(a.delta));
  arena::BuilderOptions options;
  options.record_build_time = false;
  const unsigned jobs = a.jobs > 0
                            ? static_cast<unsigned>(a.jobs)
                            : std::max(1u, std::thread::hardware_concurrency());
  FLATBENCH_ASSIGN_OR_RETURN(
      const arena::MergeStats s,
      arena::MergeStore(a.store, delta, options, jobs, CatchStopSignals()));
  const uint64_t out = s.pairs_out[0] + s.pairs_out[1];
  std::printf(
      "merged %s into %s: %llu pairs -> %llu (%llu replaced, %llu added, "
      "%llu erased, %llu erases of absent keys), %s in %.2f s, %.0f pairs/s\n",
      a.delta.c_str(), a.store.c_str(),
      static_cast<unsigned long long>(s.pairs_in[0] + s.pairs_in[1]),
      static_cast<unsigned long long>(out),
      static_cast<unsigned long long>(s.replaced),
      static_cast<unsigned long long>(s.added),
      static_cast<unsigned long long>(s.erased),
      static_cast<unsigned long long>(s.erase_absent),
      HumanBytes(s.bytes_out).c_str(), s.seconds,
      s.seconds > 0 ? static_cast<double>(out) / s.seconds : 0.0);
  return Status::Ok();
}

}  // namespace

Command AddMerge(CLI::App& app) {
  auto a = std::make_shared<MergeArgs>();
  CLI::App* sub = app.add_subcommand(
      "merge",
      "Merge a delta file (arena/FORMAT.md, \"Delta files\") into the arena "
      "store in --store (its account.arena and storage.arena): the new files "
      "are what a bulk load of the merged state writes. Written beside the "
      "store and exchanged with it in one rename: interrupted anywhere, the "
      "store is the whole old base or the whole new one. Exit 65 for a "
      "damaged delta or base (named), 66 for a missing one. A dataset's "
      "arena is merged by age, which keeps the dataset's identity.");
  sub->add_option("--store", a->store,
                  "Arena store folder (account.arena, storage.arena)")
      ->required();
  sub->add_option("--delta", a->delta, "Delta file")->required();
  sub->add_option("--jobs", a->jobs,
                  "Threads building shards (default: the host's hardware "
                  "threads)")
      ->check(AtLeastOne());
  return {sub, [a] { return ExitCodeOfStoppable(RunMerge(*a), "merge"); }};
}

}  // namespace flatbench::cli
