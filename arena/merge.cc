#include "arena/merge.h"

#include <fcntl.h>
#include <stdio.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "arena/backend.h"
#include "arena/iterator.h"
#include "arena/loader.h"
#include "arena/reader.h"
#include "common/files.h"

namespace flatbench::arena {
namespace fs = std::filesystem;
namespace {

// One shard's merged pairs, copied out of the base (its blocks may be
// compressed, and the run outlives the iterator).
class MergedRun final : public PairRun {
 public:
  void Add(std::string_view key, std::string_view value) {
    offsets_.push_back(bytes_.size());
    bytes_.append(key);
    offsets_.push_back(bytes_.size());
    bytes_.append(value);
  }
  size_t size() const override { return offsets_.size() / 2; }
  std::string_view key(size_t i) const override { return Slice(2 * i); }
  std::string_view value(size_t i) const override { return Slice(2 * i + 1); }

 private:
  std::string_view Slice(size_t j) const {
    const size_t end =
        j + 1 < offsets_.size() ? offsets_[j + 1] : bytes_.size();
    return std::string_view(bytes_).substr(offsets_[j], end - offsets_[j]);
  }
  std::string bytes_;
  std::vector<size_t> offsets_;
};

struct ShardWork {
  Table table = Table::kAccount;
  int shard = 0;
  Status status;
  std::unique_ptr<LoadPart> part;  // Null for an empty shard.
  MergeStats stats;                // This shard's counts.
};

// Reads `shard` of `reader` and merges `ops` (the delta's ops of that
// shard, ascending) into it, then builds the shard's part.
void MergeShard(const Reader& reader, const std::string& path,
                const DeltaOp* ops, size_t n_ops, ArenaLoader* loader,
                ShardWork* w) {
  const int t = static_cast<int>(w->table);
  MergedRun run;
  Iterator it(reader);
  std::string start(reader.key_width(), '\0');
  start[0] = static_cast<char>(w->shard);
  it.Seek(start);
  size_t i = 0;
  auto base_here = [&] {
    return it.Valid() && static_cast<unsigned char>(it.key()[0]) == w->shard;
  };
  while (base_here() || i < n_ops) {
    const int cmp = !base_here() ? 1
                    : i == n_ops ? -1
                                 : it.key().compare(ops[i].key);
    if (cmp < 0) {
      run.Add(it.key(), it.value());
      ++w->stats.pairs_in[t];
      it.Next();
      continue;
    }
    const DeltaOp& op = ops[i++];
    if (cmp == 0) {
      ++w->stats.pairs_in[t];
      it.Next();
      ++(op.erase ? w->stats.erased : w->stats.replaced);
    } else {
      ++(op.erase ? w->stats.erase_absent : w->stats.added);
    }
    if (!op.erase) run.Add(op.key, op.value);
  }
  if (!it.status().ok()) {
    w->status = it.status().WithContext(path);
    return;
  }
  w->stats.pairs_out[t] = run.size();
  if (run.size() == 0) return;
  auto part = loader->Prepare(w->table, run);
  if (!part.ok()) {
    w->status = part.status();
    return;
  }
  w->part = std::move(part).value();
}

void Add(MergeStats* to, const MergeStats& s) {
  for (int t = 0; t < kNumTables; ++t) {
    to->pairs_in[t] += s.pairs_in[t];
    to->pairs_out[t] += s.pairs_out[t];
  }
  to->replaced += s.replaced;
  to->added += s.added;
  to->erased += s.erased;
  to->erase_absent += s.erase_absent;
}

// Builds the merged store into `out` (an empty folder).
Status BuildMerged(const std::string& dir, const std::string& out,
                   const Delta& delta, const BuilderOptions& options,
                   unsigned jobs, const volatile std::sig_atomic_t* stop,
                   MergeStats* stats) {
  std::unique_ptr<Reader> readers[kNumTables];
  for (int t = 0; t < kNumTables; ++t) {
    ReaderOptions ro;
    ro.verify_checksums = true;
    const std::string path = ArenaPath(dir, static_cast<Table>(t));
    FLATBENCH_ASSIGN_OR_RETURN(readers[t], Reader::Open(path, ro));
    if (readers[t]->key_width() != KeySize(static_cast<Table>(t))) {
      return Status::Corruption(
          path + ": keys of " + std::to_string(readers[t]->key_width()) +
          " bytes, the " + TableName(static_cast<Table>(t)) + " table's are " +
          std::to_string(KeySize(static_cast<Table>(t))));
    }
    stats->bytes_in += fs::file_size(path);
  }
  FLATBENCH_ASSIGN_OR_RETURN(auto loader,
                             ArenaLoader::Create(out, options, jobs));
  // Where each shard's ops start, per table.
  std::vector<size_t> first[kNumTables];
  for (int t = 0; t < kNumTables; ++t) {
    const auto& ops = delta.ops[t];
    first[t].resize(kNumShards + 1);
    size_t i = 0;
    for (size_t s = 0; s <= kNumShards; ++s) {
      while (i < ops.size() && static_cast<unsigned char>(ops[i].key[0]) < s) {
        ++i;
      }
      first[t][s] = i;
    }
  }
  auto work = [&](ShardWork* w) {
    const int t = static_cast<int>(w->table);
    const size_t a = first[t][w->shard], b = first[t][w->shard + 1];
    MergeShard(*readers[t], ArenaPath(dir, w->table), delta.ops[t].data() + a,
               b - a, loader.get(), w);
  };
  struct InFlight {
    std::unique_ptr<ShardWork> w;
    std::jthread thread;
  };
  const size_t ahead = std::max(1u, jobs);
  const int items = kNumTables * static_cast<int>(kNumShards);
  int next = 0;
  // Last: its threads are joined before anything they use goes.
  std::deque<InFlight> flight;
  auto fill = [&] {
    while (next < items && flight.size() < ahead) {
      auto w = std::make_unique<ShardWork>();
      w->table = static_cast<Table>(next / static_cast<int>(kNumShards));
      w->shard = next % static_cast<int>(kNumShards);
      ++next;
      ShardWork* p = w.get();
      if (ahead == 1) {
        work(p);
        flight.push_back({std::move(w), std::jthread()});
      } else {
        flight.push_back({std::move(w), std::jthread([&work, p] { work(p); })});
      }
    }
  };
  fill();
  while (!flight.empty()) {
    if (flight.front().thread.joinable()) flight.front().thread.join();
    std::unique_ptr<ShardWork> w = std::move(flight.front().w);
    flight.pop_front();
    if (stop != nullptr && *stop != 0) return Status::IOError("stopped");
    FLATBENCH_RETURN_IF_ERROR(w->status);
    fill();
    Add(stats, w->stats);
    if (w->part) FLATBENCH_RETURN_IF_ERROR(loader->Commit(std::move(w->part)));
  }
  FLATBENCH_RETURN_IF_ERROR(loader->Finish());
  for (int t = 0; t < kNumTables; ++t) {
    stats->bytes_out += fs::file_size(ArenaPath(out, static_cast<Table>(t)));
  }
  return Status::Ok();
}

Status Exchange(const std::string& a, const std::string& b) {
  if (renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) !=
      0) {
    return Status::IOError(a + ": exchange with " + b + ": " +
                           std::strerror(errno));
  }
  return Status::Ok();
}

std::string Parent(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const std::string p = fs::path(d).parent_path().string();
  return p.empty() ? "." : p;
}

}  // namespace

std::string MergeDir(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + ".merge";
}

Result<MergeStats> MergeStore(const std::string& dir, const Delta& delta,
                              const BuilderOptions& options, unsigned jobs,
                              const volatile std::sig_atomic_t* stop) {
  const auto start = std::chrono::steady_clock::now();
  FLATBENCH_RETURN_IF_ERROR(CheckDelta(delta, "delta"));
  const std::string out = MergeDir(dir);
  std::error_code ec;
  fs::remove_all(out, ec);
  if (ec) return Status::IOError(out + ": cannot remove: " + ec.message());
  if (!fs::create_directory(out, ec) || ec) {
    return Status::IOError(out + ": cannot create: " + ec.message());
  }
  MergeStats stats;
  Status st = BuildMerged(dir, out, delta, options, jobs, stop, &stats);
  if (st.ok()) st = SyncDir(out);
  if (st.ok()) st = Exchange(out, dir);
  if (!st.ok()) {
    fs::remove_all(out, ec);
    return st;
  }
  // The old base now sits in `out`.
  FLATBENCH_RETURN_IF_ERROR(SyncDir(Parent(dir)));
  fs::remove_all(out, ec);
  if (ec) return Status::IOError(out + ": cannot remove: " + ec.message());
  stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return stats;
}

}  // namespace flatbench::arena
