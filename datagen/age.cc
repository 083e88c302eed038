#include "datagen/age.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/files.h"
#include "datagen/age_files.h"
#include "datagen/aged_state.h"
#include "datagen/blocks.h"
#include "datagen/dataset_dir.h"
#include "datagen/dataset_files.h"
#include "datagen/progress.h"
#include "datagen/stream.h"
#include "dataset/names.h"

namespace flatbench::datagen {
namespace fs = std::filesystem;
using nlohmann::json;

double Upkeep::write_amp() const {
  return logical_bytes == 0 ? 0
                            : static_cast<double>(written_bytes) /
                                  static_cast<double>(logical_bytes);
}
double Upkeep::space_amp() const {
  return live_bytes == 0 ? 0
                         : static_cast<double>(disk_bytes) /
                               static_cast<double>(live_bytes);
}

namespace {

using Clock = std::chrono::steady_clock;

// Receives the stream and keeps nothing: its digest is the fingerprint.
class NullSink final : public BulkLoader {
 public:
  Status Add(Table, std::string_view, std::string_view) override {
    return Status::Ok();
  }
  Status Finish() override { return Status::Ok(); }
};

// The stores to age: each complete one, or one an earlier run was aging.
Result<std::vector<std::string>> StoresToAge(const Dataset& ds,
                                             const dataset::Spec& target,
                                             uint64_t from_blocks) {
  std::vector<std::string> out;
  for (std::string_view s : dataset::kStores) {
    const std::string store(s);
    const std::string aging = AgingPath(ds.dir(), store);
    std::error_code ec;
    if (fs::exists(aging, ec)) {
      FLATBENCH_ASSIGN_OR_RETURN(AgingRecord r, LoadRecord(aging));
      if (r.target != target.Canonical()) {
        return Status::Usage(aging + ": an unfinished age to '" + r.target +
                             "'; finish it with the same --blocks and stream");
      }
      out.push_back(store);
      continue;
    }
    if (!fs::exists(ds.MarkerPath(store), ec)) continue;
    FLATBENCH_RETURN_IF_ERROR(ds.Build(store).status());
    if (from_blocks < target.stream.blocks) out.push_back(store);
  }
  return out;
}

// The changes of `block` as bytes, and views of them.
struct BlockBytes {
  std::vector<std::string> keys, values;
  std::vector<KeyChange> changes;
  uint64_t logical = 0;
  void Make(const dataset::Spec& spec, const Block& block) {
    const size_t n = block.changes.size();
    keys.resize(n);
    values.resize(n);
    changes.resize(n);
    logical = 0;
    const Touch touch{static_cast<uint32_t>(block.number), false};
    for (size_t i = 0; i < n; ++i) {
      const Change& c = block.changes[i];
      keys[i] = KeyBytes(c.id);
      values[i] = c.erase ? std::string() : ValueBytes(spec, c.id, &touch);
      changes[i] = {c.id.table, keys[i], c.erase, values[i]};
      logical += keys[i].size() + values[i].size();
    }
  }
};

struct Target {
  double write_rate = 0;  // WriteRate's, bytes/s.
  dataset::Spec spec;
  std::string fingerprint;
  uint64_t pairs[kNumTables] = {0, 0};
  uint64_t live_bytes = 0;
};

// One store's stream applied from its last checkpoint: the blocks, a
// checkpoint (the durable count and this run's figures so far) every
// second and at a stop, then the writer's finish.
class StoreAging {
 public:
  StoreAging(const AgeOptions& o, const Target& target, std::string store,
             std::string aging, AgingRecord rec, StoreWriter* writer)
      : o_(o),
        target_(target),
        store_(std::move(store)),
        aging_(std::move(aging)),
        rec_(std::move(rec)),
        writer_(writer),
        start_(Clock::now()),
        last_checkpoint_(start_),
        io_start_(WriteBytes()) {}

  Status Apply() {
    const uint64_t n = target_.spec.stream.blocks;
    const uint64_t from = rec_.durable;
    if (o_.progress && from > rec_.from_blocks) {
      std::fprintf(stderr, "age %s: resuming at block %llu of %llu\n",
                   store_.c_str(), static_cast<unsigned long long>(from),
                   static_cast<unsigned long long>(n));
    }
    BlockStream stream(target_.spec);
    stream.SkipTo(from);
    Progress progress("age " + store_, "blocks", o_.progress);
    Block block;
    BlockBytes bytes;
    for (uint64_t b = from; b < n; ++b) {
      if (o_.stop != nullptr && *o_.stop != 0) {
        FLATBENCH_RETURN_IF_ERROR(Checkpoint());
        return Status::IOError("age " + store_ + ": stopped at block " +
                               std::to_string(b));
      }
      stream.Next(&block);
      bytes.Make(target_.spec, block);
      logical_ += bytes.logical;
      FLATBENCH_RETURN_IF_ERROR(
          writer_->ApplyBlock(bytes.changes)
              .WithContext("age " + store_ + " block " + std::to_string(b)));
      if (steady_at_ == 0) NoteSteady(b + 1);
      progress.Update(b + 1 - from, n - from);
      if (Clock::now() - last_checkpoint_ > std::chrono::seconds(1) ||
          b + 1 == o_.checkpoint_after) {
        FLATBENCH_RETURN_IF_ERROR(Checkpoint());
      }
      if (b + 1 == o_.hold_after) HoldForTest(b + 1);
    }
    FLATBENCH_RETURN_IF_ERROR(writer_->Finish().WithContext("age " + store_));
    progress.Finish(n - from);
    // Background work the finish waited for may meet it at the last block.
    if (steady_at_ == 0) NoteSteady(n);
    if (steady_at_ != 0) return Status::Ok();
    const Steadiness s = writer_->Steady();
    if (s.applies) {
      std::fprintf(stderr,
                   "age %s: warning: not at its steady state after block "
                   "%llu (%s); a longer stream (--blocks) ages it further\n",
                   store_.c_str(), static_cast<unsigned long long>(n),
                   s.what.c_str());
    }
    return Status::Ok();
  }

  // The whole aging's figures (the earlier runs' with this one's), once
  // the writer is finished.
  Upkeep Figures(const std::string& bdir) const {
    Upkeep u;
    u.store = store_;
    u.engine = writer_->Upkeep();
    for (const auto& [k, v] : u.engine) {
      if (k == "written_by") u.written_known = false;
    }
    u.blocks = target_.spec.stream.blocks - rec_.from_blocks;
    u.seconds = rec_.seconds + Elapsed();
    u.logical_bytes = rec_.logical_bytes + logical_;
    u.written_bytes = rec_.written_bytes + (WriteBytes() - io_start_);
    u.disk_bytes = DiskBytes(bdir);
    u.live_bytes = target_.live_bytes;
    u.device_write_bytes_per_s = target_.write_rate;
    u.steady_at = steady_at_;
    u.steady_what = steady_what_;
    return u;
  }

 private:
  void NoteSteady(uint64_t block) {
    const Steadiness s = writer_->Steady();
    if (!s.applies || !s.met) return;
    steady_at_ = block;
    steady_what_ = s.what;
    std::fprintf(stderr, "age %s: steady state at block %llu: %s\n",
                 store_.c_str(), static_cast<unsigned long long>(block),
                 s.what.c_str());
  }

  // AgeOptions::hold_after: the next block's stop check ends the run.
  void HoldForTest(uint64_t block) const {
    if (o_.stop == nullptr) return;
    std::fprintf(stderr,
                 "age %s: holding after block %llu until a stop signal "
                 "(test hook)\n",
                 store_.c_str(), static_cast<unsigned long long>(block));
    while (*o_.stop == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  double Elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }
  Status Checkpoint() {
    FLATBENCH_ASSIGN_OR_RETURN(uint64_t durable, writer_->Checkpoint());
    AgingRecord r = rec_;
    r.durable = rec_.durable + durable;
    r.seconds += Elapsed();
    r.logical_bytes += logical_;
    r.written_bytes += WriteBytes() - io_start_;
    r.steady_at = steady_at_;
    r.steady_what = steady_what_;
    last_checkpoint_ = Clock::now();
    return SaveRecord(aging_, r);
  }

  const AgeOptions& o_;
  const Target& target_;
  const std::string store_;
  const std::string aging_;
  const AgingRecord rec_;
  StoreWriter* writer_;
  const Clock::time_point start_;
  Clock::time_point last_checkpoint_;
  const uint64_t io_start_;
  uint64_t logical_ = 0;
  // Carried over from an earlier run: a resumed writer's own counters
  // start again.
  uint64_t steady_at_ = rec_.steady_at;
  std::string steady_what_ = rec_.steady_what;
};

// The store's marker for its aged shape: the bulk load's build time with
// the target's identity, and the upkeep flat, as a results file's context
// objects are (the engine's own figures under "engine.").
Status WriteAgedMarker(const AgeOptions& o, const Dataset& ds,
                       const Target& target, const AgingRecord& rec,
                       const Upkeep& u) {
  // The marker as the bulk load left it (Build refuses while aging).
  FLATBENCH_ASSIGN_OR_RETURN(BackendBuild old,
                             ReadMarker(ds.MarkerPath(u.store)));
  BackendBuild b;
  b.backend = u.store;
  b.fingerprint = target.fingerprint;
  b.build_seconds = old.build_seconds;
  b.disk_bytes = u.disk_bytes;
  b.pairs[0] = target.pairs[0];
  b.pairs[1] = target.pairs[1];
  json shape = {
      {"kind", "aged"},
      {"blocks", target.spec.stream.blocks},
      {"from_blocks", rec.from_blocks},
      {"merge_every", o.merge_every},
      {"jobs", o.jobs},
      {"seconds", u.seconds},
      {"seconds_per_block",
       u.blocks == 0 ? 0.0 : u.seconds / static_cast<double>(u.blocks)},
      {"logical_bytes", u.logical_bytes},
      {"disk_bytes", u.disk_bytes},
      {"live_bytes", u.live_bytes},
      {"space_amp", u.space_amp()},
      {"device_write_bytes_per_s", u.device_write_bytes_per_s}};
  if (u.steady_at > 0) {
    shape["steady_at_block"] = u.steady_at;
    shape["steady"] = u.steady_what;
  }
  if (u.written_known) {
    shape["written_bytes"] = u.written_bytes;
    shape["write_amp"] = u.write_amp();
  }
  for (const auto& [k, v] : u.engine) shape["engine." + k] = v;
  b.shape = shape.dump();
  return WriteMarker(ds, b);
}

Result<Upkeep> AgeStore(const AgeOptions& o, const Dataset& ds,
                        const Target& target, const std::string& store,
                        const WriterFactory& factory) {
  const std::string aging = AgingPath(o.dir, store);
  FLATBENCH_ASSIGN_OR_RETURN(AgingRecord rec, LoadRecord(aging));
  const std::string bdir = ds.BackendDir(store);
  FLATBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<StoreWriter> writer,
      factory(
          store, bdir,
          WriterOptions{o.jobs, o.merge_every, o.stop, o.progress, rec.durable,
                        target.spec.stream.blocks, o.log_tail}));
  StoreAging run(o, target, store, aging, rec, writer.get());
  FLATBENCH_RETURN_IF_ERROR(run.Apply());
  const Upkeep u = run.Figures(bdir);
  writer.reset();
  FLATBENCH_RETURN_IF_ERROR(WriteAgedMarker(o, ds, target, rec, u));
  std::error_code ec;
  fs::remove(aging, ec);
  if (ec) return Status::IOError(aging + ": " + ec.message());
  return u;
}

// The target checked against the dataset: the same stream, no fewer
// blocks.
Status CheckTarget(const AgeOptions& o, const dataset::Spec& now) {
  if (now.stream.blocks > 0 && !now.stream.SameStream(o.stream)) {
    return Status::Usage(o.dir + " is aged by another stream (" +
                         now.stream.Canonical() +
                         "); age it with the same stream options");
  }
  if (o.stream.blocks < now.stream.blocks) {
    return Status::Usage("--blocks " + std::to_string(o.stream.blocks) + ": " +
                         o.dir + " is at block " +
                         std::to_string(now.stream.blocks) +
                         " already, and a store cannot go back");
  }
  return Status::Ok();
}

// Progress records first: from here on a store is refused until aged.
Status StartRecords(const AgeOptions& o, const std::vector<std::string>& stores,
                    const dataset::Spec& target, uint64_t from_blocks) {
  for (const std::string& store : stores) {
    const std::string path = AgingPath(o.dir, store);
    std::error_code ec;
    if (fs::exists(path, ec)) continue;
    AgingRecord r;
    r.target = target.Canonical();
    r.from_blocks = from_blocks;
    r.durable = from_blocks;
    FLATBENCH_RETURN_IF_ERROR(SaveRecord(path, r));
  }
  return Status::Ok();
}

// The target's identity: its fingerprint and size, from its stream; the
// dataset's identity moved to it.
Status Identify(const AgeOptions& o, Target* target, Dataset* ds) {
  NullSink sink;
  Progress digest_progress("age: the target's fingerprint", "steps",
                           o.progress);
  FLATBENCH_ASSIGN_OR_RETURN(StreamDigest d,
                             GenerateSorted(
                                 target->spec, &sink,
                                 [&](uint64_t done, uint64_t total) {
                                   digest_progress.Update(done, total);
                                 },
                                 o.jobs));
  target->fingerprint = FingerprintHex(d.fingerprint);
  for (int t = 0; t < kNumTables; ++t) {
    target->pairs[t] = d.pairs[t];
    target->live_bytes += d.key_bytes[t] + d.value_bytes[t];
  }
  if (ds->spec() == target->spec && ds->fingerprint() == target->fingerprint) {
    return Status::Ok();
  }
  FLATBENCH_RETURN_IF_ERROR(
      WriteIdentity(o.dir, target->spec, target->fingerprint));
  FLATBENCH_ASSIGN_OR_RETURN(*ds, Dataset::Open(o.dir));
  return Status::Ok();
}

}  // namespace

// The phases: the dataset locked and the target checked; the stores still
// to age chosen and given their progress records; the target identified;
// the device's write rate probed; each store aged in turn.
Result<std::vector<Upkeep>> Age(const AgeOptions& o,
                                const WriterFactory& factory) {
  FLATBENCH_RETURN_IF_ERROR(dataset::ValidateStream(o.stream));
  DirLock lock;
  FLATBENCH_ASSIGN_OR_RETURN(Dataset ds, Dataset::Open(o.dir));
  FLATBENCH_RETURN_IF_ERROR(lock.Lock(o.dir));
  const dataset::Spec now = ds.spec();
  FLATBENCH_RETURN_IF_ERROR(CheckTarget(o, now));
  Target target;
  target.spec = now;
  target.spec.stream = o.stream;
  // An earlier run may have moved dataset.json to the target already.
  const uint64_t from_blocks = now.stream.blocks;
  FLATBENCH_ASSIGN_OR_RETURN(std::vector<std::string> stores,
                             StoresToAge(ds, target.spec, from_blocks));
  if (stores.empty()) {
    if (ds.CompleteBackends().empty()) {
      return Status::MissingInput(o.dir + ": no complete store to age");
    }
    if (o.progress) {
      std::fprintf(stderr, "age: every store of %s is at block %llu\n",
                   o.dir.c_str(),
                   static_cast<unsigned long long>(o.stream.blocks));
    }
    return std::vector<Upkeep>{};
  }
  if (o.can_age) {
    for (const std::string& store : stores) {
      FLATBENCH_RETURN_IF_ERROR(o.can_age(store));
    }
  }
  FLATBENCH_RETURN_IF_ERROR(StartRecords(o, stores, target.spec, from_blocks));
  if (o.progress) {
    std::fprintf(stderr, "age: %zu store(s) of %s to block %llu\n",
                 stores.size(), o.dir.c_str(),
                 static_cast<unsigned long long>(o.stream.blocks));
  }
  FLATBENCH_RETURN_IF_ERROR(Identify(o, &target, &ds));
  target.write_rate = WriteRate(o.dir, o.write_probe_bytes);
  std::vector<Upkeep> out;
  for (const std::string& store : stores) {
    FLATBENCH_ASSIGN_OR_RETURN(Upkeep u,
                               AgeStore(o, ds, target, store, factory));
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace flatbench::datagen
