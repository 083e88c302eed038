#include "arena/loader.h"

#include "arena/backend.h"

namespace flatbench::arena {
namespace {

// Builder I/O errors already name the file they failed on (its ".tmp"),
// so only data and usage errors get the path prefixed: no path twice.
Status InContext(const Status& st, const std::string& path) {
  const bool names_file =
      st.code() != Code::kCorruption && st.code() != Code::kUsage;
  return names_file ? st : st.WithContext(path);
}

Status NotOurPart() {
  return Status::Usage("Commit of a part this loader did not prepare");
}

}  // namespace

Result<std::unique_ptr<ArenaLoader>> ArenaLoader::Create(
    const std::string& dir, const BuilderOptions& options, unsigned jobs) {
  std::unique_ptr<ArenaLoader> loader(new ArenaLoader(dir, options, jobs));
  Status st = loader->Start(Table::kAccount);
  if (!st.ok()) return st;
  return loader;
}

Status ArenaLoader::Start(Table table) {
  BuilderOptions o = options_;
  o.key_width = static_cast<uint32_t>(KeySize(table));
  FLATBENCH_ASSIGN_OR_RETURN(builder_,
                             Builder::Create(ArenaPath(dir_, table), o, jobs_));
  table_ = static_cast<int>(table);
  return Status::Ok();
}

Status ArenaLoader::FinishCurrent() {
  Status st = builder_->Finish();
  if (!st.ok()) return InContext(st, ArenaPath(dir_, Table(table_)));
  stats_[table_] = builder_->stats();
  builder_.reset();
  return Status::Ok();
}

Status ArenaLoader::Reach(Table table) {
  const int t = static_cast<int>(table);
  if (t < table_ || builder_ == nullptr) {
    return Status::Usage("account key after storage keys or after Finish");
  }
  if (t > table_) {
    FLATBENCH_RETURN_IF_ERROR(FinishCurrent());
    FLATBENCH_RETURN_IF_ERROR(Start(table));
  }
  return Status::Ok();
}

Status ArenaLoader::Add(Table table, std::string_view key,
                        std::string_view value) {
  if (!status_.ok()) return status_;
  status_ = Reach(table);
  if (!status_.ok()) return status_;
  Status st = builder_->Add(key, value);
  if (!st.ok()) status_ = InContext(st, ArenaPath(dir_, table));
  return status_;
}

class ArenaLoader::ShardPart final : public LoadPart {
 public:
  ShardPart(ArenaLoader* loader, Table table, BuiltShard shard)
      : loader_(loader), table_(table), shard_(std::move(shard)) {}
  Status AppendTo(BulkLoader* loader) override {
    if (loader != loader_) return NotOurPart();
    return loader_->AddShard(table_, &shard_);
  }

 private:
  ArenaLoader* const loader_;  // the loader that prepared it
  const Table table_;
  BuiltShard shard_;
};

Result<std::unique_ptr<LoadPart>> ArenaLoader::Prepare(Table table,
                                                       const PairRun& run) {
  BuilderOptions o = options_;
  o.key_width = static_cast<uint32_t>(KeySize(table));
  Result<BuiltShard> built = BuildShard(o, run);
  if (!built.ok()) return built.status().WithContext(ArenaPath(dir_, table));
  return std::unique_ptr<LoadPart>(
      std::make_unique<ShardPart>(this, table, std::move(built).value()));
}

Status ArenaLoader::AddShard(Table table, BuiltShard* shard) {
  FLATBENCH_RETURN_IF_ERROR(Reach(table));
  Status st = builder_->AddShard(shard);
  return st.ok() ? st : InContext(st, ArenaPath(dir_, table));
}

Status ArenaLoader::Commit(std::unique_ptr<LoadPart> part) {
  if (!status_.ok()) return status_;
  status_ = part != nullptr ? part->AppendTo(this) : NotOurPart();
  return status_;
}

Status ArenaLoader::Finish() {
  if (!status_.ok()) return status_;
  if (builder_ == nullptr) return Status::Ok();  // already finished
  while (table_ < kNumTables) {
    status_ = FinishCurrent();
    if (!status_.ok()) return status_;
    if (table_ + 1 == kNumTables) break;
    status_ = Start(static_cast<Table>(table_ + 1));
    if (!status_.ok()) return status_;
  }
  return Status::Ok();
}

}  // namespace flatbench::arena
