#include "baselines/rocksdb_write_path.h"

#include <fcntl.h>
#include <rocksdb/write_batch.h>
#include <stdio.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>

#include "baselines/rocksdb_options.h"
#include "common/files.h"

namespace flatbench::baselines {
namespace fs = std::filesystem;

Status WaitForBackgroundWork(
    rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& families,
    const std::string& dir) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::hours(1);
  for (;;) {
    uint64_t errors = 0;
    db->GetIntProperty(rocksdb::DB::Properties::kBackgroundErrors, &errors);
    if (errors > 0) {
      return Status::IOError(
          dir + ": RocksDB stopped its background work after " +
          std::to_string(errors) + " error(s); is the disk full?");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::IOError(dir + ": compactions still running after an hour");
    }
    uint64_t running = 0, pending = 0, flushes = 0;
    db->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions,
                       &running);
    db->GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes, &flushes);
    for (auto* h : families) {
      uint64_t p = 0, m = 0;
      db->GetIntProperty(h, rocksdb::DB::Properties::kCompactionPending, &p);
      db->GetIntProperty(h, rocksdb::DB::Properties::kMemTableFlushPending, &m);
      pending += p + m;
    }
    if (running == 0 && pending == 0 && flushes == 0) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool OnlyInLastLevel(
    rocksdb::DB* db,
    const std::vector<rocksdb::ColumnFamilyHandle*>& families) {
  uint64_t files = 0;
  for (auto* h : families) {
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(h, &meta);
    for (size_t l = 0; l < meta.levels.size(); ++l) {
      if (l + 1 < meta.levels.size() && !meta.levels[l].files.empty()) {
        return false;
      }
      files += meta.levels[l].files.size();
    }
  }
  return files > 0;
}

uint64_t SstBytes(rocksdb::DB* db,
                  const std::vector<rocksdb::ColumnFamilyHandle*>& families) {
  uint64_t bytes = 0;
  for (auto* h : families) {
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(h, &meta);
    bytes += meta.size;
  }
  return bytes;
}

std::string RelevelPath(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + ".relevel";
}

namespace {

// An open database and its family handles, closed on every path out.
struct OpenDb {
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;  // default first.
  ~OpenDb() {
    if (!db) return;
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    static_cast<void>(db->Close());
  }
  std::vector<rocksdb::ColumnFamilyHandle*> Families() const {
    return {handles.begin() + 1, handles.end()};
  }
};

Status Open(const std::string& dir, bool read_only, bool create, OpenDb* out) {
  rocksdb::DBOptions dbo = RocksDbOptions();
  dbo.create_if_missing = create;
  dbo.create_missing_column_families = create;
  rocksdb::DB* raw = nullptr;
  const auto families = RocksFamilies(/*lazy_metadata=*/false);
  rocksdb::Status s =
      read_only ? rocksdb::DB::OpenForReadOnly(dbo, dir, families,
                                               &out->handles, &raw)
                : rocksdb::DB::Open(dbo, dir, families, &out->handles, &raw);
  FLATBENCH_RETURN_IF_ERROR(FromRocks(s, dir));
  out->db.reset(raw);
  return Status::Ok();
}

// Every pair of `from`'s family `f`, in key order, into `to` by batches.
Status CopyFamily(OpenDb& from, OpenDb& to, size_t f, const std::string& dir,
                  bool quiet, const volatile std::sig_atomic_t* stop,
                  uint64_t* copied, uint64_t total) {
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;
  ro.readahead_size = 2 << 20;
  std::unique_ptr<rocksdb::Iterator> it(
      from.db->NewIterator(ro, from.handles[f]));
  rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  rocksdb::WriteBatch batch;
  uint64_t next_report = *copied + total / 10;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    FLATBENCH_RETURN_IF_ERROR(
        FromRocks(batch.Put(to.handles[f], it->key(), it->value()), dir));
    if (batch.Count() < 10'000) continue;
    if (stop != nullptr && *stop != 0) return Status::IOError("stopped");
    FLATBENCH_RETURN_IF_ERROR(FromRocks(to.db->Write(wo, &batch), dir));
    *copied += batch.Count();
    batch.Clear();
    if (!quiet && *copied >= next_report) {
      std::fprintf(stderr, "age rocksdb: relevel %llu of %llu pairs\n",
                   static_cast<unsigned long long>(*copied),
                   static_cast<unsigned long long>(total));
      next_report = *copied + total / 10;
    }
  }
  FLATBENCH_RETURN_IF_ERROR(FromRocks(it->status(), dir));
  *copied += batch.Count();
  return FromRocks(to.db->Write(wo, &batch), dir);
}

Status Build(const std::string& dir, const std::string& tmp, bool quiet,
             const volatile std::sig_atomic_t* stop) {
  OpenDb from, to;
  FLATBENCH_RETURN_IF_ERROR(Open(dir, /*read_only=*/true, false, &from));
  FLATBENCH_RETURN_IF_ERROR(Open(tmp, /*read_only=*/false, true, &to));
  uint64_t total = 0;
  for (auto* h : from.Families()) {
    uint64_t n = 0;
    from.db->GetIntProperty(h, rocksdb::DB::Properties::kEstimateNumKeys, &n);
    total += n;
  }
  uint64_t copied = 0;
  for (size_t f = 1; f < from.handles.size(); ++f) {
    FLATBENCH_RETURN_IF_ERROR(
        CopyFamily(from, to, f, dir, quiet, stop, &copied, total));
  }
  rocksdb::FlushOptions fo;
  fo.wait = true;
  FLATBENCH_RETURN_IF_ERROR(
      FromRocks(to.db->Flush(fo, to.Families()), tmp + ": flush"));
  FLATBENCH_RETURN_IF_ERROR(
      WaitForBackgroundWork(to.db.get(), to.Families(), tmp));
  if (!quiet) {
    std::fprintf(stderr,
                 "age rocksdb: relevelled %llu pairs through the write path\n",
                 static_cast<unsigned long long>(copied));
  }
  return Status::Ok();
}

}  // namespace

Status Relevel(const std::string& dir, bool quiet,
               const volatile std::sig_atomic_t* stop) {
  const std::string tmp = RelevelPath(dir);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  if (ec) return Status::IOError(tmp + ": " + ec.message());
  if (!quiet) {
    std::fprintf(stderr,
                 "age rocksdb: the bulk load sits in its last level; loading "
                 "it through the write path, as a sync does, before the "
                 "stream\n");
  }
  Status st = Build(dir, tmp, quiet, stop);
  if (!st.ok()) {
    fs::remove_all(tmp, ec);
    return st;
  }
  if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(),
                RENAME_EXCHANGE) != 0) {
    st = Status::IOError(dir + ": exchange with " + tmp + ": " +
                         std::strerror(errno));
    fs::remove_all(tmp, ec);
    return st;
  }
  FLATBENCH_RETURN_IF_ERROR(SyncDir(fs::path(dir).parent_path().string()));
  fs::remove_all(tmp, ec);
  if (ec) return Status::IOError(tmp + ": " + ec.message());
  return Status::Ok();
}

Status WriteBlock(rocksdb::DB* db,
                  const std::vector<rocksdb::ColumnFamilyHandle*>& families,
                  std::span<const KeyChange> changes, const std::string& dir) {
  rocksdb::WriteBatch batch;
  for (const KeyChange& c : changes) {
    auto* cf = families[static_cast<size_t>(c.table)];
    const rocksdb::Slice key(c.key.data(), c.key.size());
    rocksdb::Status s =
        c.erase ? batch.Delete(cf, key)
                : batch.Put(cf, key,
                            rocksdb::Slice(c.value.data(), c.value.size()));
    FLATBENCH_RETURN_IF_ERROR(FromRocks(s, dir + ": batch"));
  }
  return FromRocks(db->Write(rocksdb::WriteOptions(), &batch), dir);
}

}  // namespace flatbench::baselines
