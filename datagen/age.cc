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

#include "common/files.h"
#include "common/progress.h"
#include "datagen/aged_state.h"
#include "datagen/blocks.h"
#include "datagen/dataset.h"
#include "datagen/dataset_files.h"
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

// /proc/self/io write_bytes: what this process (its every thread: RocksDB's
// flushes and compactions too) had the storage layer write. 0 if unknown.
uint64_t WriteBytes() {
  std::ifstream in("/proc/self/io");
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) {
    if (name == "write_bytes:") return value;
  }
  return 0;
}

// The device's sequential write rate at `dir`: `bytes` written with
// O_DIRECT in 1 MiB writes into an unnamed file (O_TMPFILE: nothing is
// left behind, whatever happens), then fdatasync. 0 when the file system
// refuses either (the estimate is then left out, never made up).
double WriteRate(const std::string& dir, uint64_t bytes) {
  if (bytes == 0) return 0;
  const int fd = open(dir.c_str(), O_TMPFILE | O_WRONLY | O_DIRECT, 0600);
  if (fd < 0) return 0;
  UniqueFd owned(fd);
  constexpr size_t kChunk = 1 << 20;
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, kChunk) != 0) return 0;
  std::unique_ptr<void, decltype(&std::free)> hold(buf, &std::free);
  std::memset(buf, 0x5a, kChunk);
  const auto start = Clock::now();
  for (uint64_t done = 0; done < bytes; done += kChunk) {
    if (write(fd, buf, kChunk) != static_cast<ssize_t>(kChunk)) return 0;
  }
  if (fdatasync(fd) != 0) return 0;
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  return s > 0 ? static_cast<double>(bytes) / s : 0;
}

// Receives the stream and keeps nothing: its digest is the fingerprint.
class NullSink final : public BulkLoader {
 public:
  Status Add(Table, std::string_view, std::string_view) override {
    return Status::Ok();
  }
  Status Finish() override { return Status::Ok(); }
};

// A store's progress file, DIR/<store>.aging.
struct AgingRecord {
  std::string target;  // The target spec's canonical text.
  uint64_t from_blocks = 0;
  uint64_t durable = 0;  // Blocks of the stream durable in the store.
  double seconds = 0;
  uint64_t logical_bytes = 0;
  uint64_t written_bytes = 0;
};

std::string AgingPath(const std::string& dir, const std::string& store) {
  return dir + "/" + store + ".aging";
}

Status SaveRecord(const std::string& path, const AgingRecord& r) {
  json j = {{"target", r.target},
            {"from_blocks", r.from_blocks},
            {"durable_blocks", r.durable},
            {"seconds", r.seconds},
            {"logical_bytes", r.logical_bytes},
            {"written_bytes", r.written_bytes}};
  return WriteFileAtomic(path, j.dump(2) + "\n");
}

Result<AgingRecord> LoadRecord(const std::string& path) {
  FLATBENCH_ASSIGN_OR_RETURN(const std::string text, ReadSmallFile(path));
  AgingRecord r;
  try {
    json j = json::parse(text);
    r.target = j.at("target").get<std::string>();
    r.from_blocks = j.at("from_blocks").get<uint64_t>();
    r.durable = j.at("durable_blocks").get<uint64_t>();
    r.seconds = j.at("seconds").get<double>();
    r.logical_bytes = j.at("logical_bytes").get<uint64_t>();
    r.written_bytes = j.at("written_bytes").get<uint64_t>();
  } catch (const json::exception& e) {
    return Status::Corruption(path + ": malformed: " + e.what());
  }
  return r;
}

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

Result<Upkeep> AgeStore(const AgeOptions& o, const Dataset& ds,
                        const Target& target, const std::string& store,
                        const WriterFactory& factory) {
  const std::string aging = AgingPath(o.dir, store);
  FLATBENCH_ASSIGN_OR_RETURN(AgingRecord rec, LoadRecord(aging));
  const std::string bdir = ds.BackendDir(store);
  FLATBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<StoreWriter> writer,
      factory(store, bdir, o.jobs, o.merge_every, o.stop));
  const uint64_t n = target.spec.stream.blocks;
  const uint64_t resumed_at = rec.durable;
  if (o.progress && resumed_at > rec.from_blocks) {
    std::fprintf(stderr, "age %s: resuming at block %llu of %llu\n",
                 store.c_str(), static_cast<unsigned long long>(resumed_at),
                 static_cast<unsigned long long>(n));
  }
  BlockStream stream(target.spec);
  stream.SkipTo(resumed_at);
  Progress progress("age " + store, "blocks", o.progress);
  const auto start = Clock::now();
  auto last_checkpoint = start;
  const uint64_t io_start = WriteBytes();
  uint64_t logical = 0;
  Block block;
  BlockBytes bytes;
  // Saves the durable count and this run's figures so far.
  auto checkpoint = [&]() -> Status {
    FLATBENCH_ASSIGN_OR_RETURN(uint64_t durable, writer->Checkpoint());
    AgingRecord r = rec;
    r.durable = resumed_at + durable;
    r.seconds += std::chrono::duration<double>(Clock::now() - start).count();
    r.logical_bytes += logical;
    r.written_bytes += WriteBytes() - io_start;
    last_checkpoint = Clock::now();
    return SaveRecord(aging, r);
  };
  for (uint64_t b = resumed_at; b < n; ++b) {
    if (o.stop != nullptr && *o.stop != 0) {
      FLATBENCH_RETURN_IF_ERROR(checkpoint());
      return Status::IOError("age " + store + ": stopped at block " +
                             std::to_string(b));
    }
    stream.Next(&block);
    bytes.Make(target.spec, block);
    logical += bytes.logical;
    FLATBENCH_RETURN_IF_ERROR(
        writer->ApplyBlock(bytes.changes)
            .WithContext("age " + store + " block " + std::to_string(b)));
    progress.Update(b + 1 - resumed_at, n - resumed_at);
    if (Clock::now() - last_checkpoint > std::chrono::seconds(1)) {
      FLATBENCH_RETURN_IF_ERROR(checkpoint());
    }
  }
  FLATBENCH_RETURN_IF_ERROR(writer->Finish().WithContext("age " + store));
  Upkeep u;
  u.store = store;
  u.engine = writer->Upkeep();
  for (const auto& [k, v] : u.engine) {
    if (k == "written_by") u.written_known = false;
  }
  writer.reset();
  progress.Finish(n - resumed_at);
  u.blocks = n - rec.from_blocks;
  u.seconds =
      rec.seconds + std::chrono::duration<double>(Clock::now() - start).count();
  u.logical_bytes = rec.logical_bytes + logical;
  u.written_bytes = rec.written_bytes + (WriteBytes() - io_start);
  u.disk_bytes = DiskBytes(bdir);
  u.live_bytes = target.live_bytes;
  u.device_write_bytes_per_s = target.write_rate;

  // The marker as the bulk load left it (Build refuses while aging).
  FLATBENCH_ASSIGN_OR_RETURN(BackendBuild old,
                             ReadMarker(ds.MarkerPath(store)));
  BackendBuild b;
  b.backend = store;
  b.fingerprint = target.fingerprint;
  b.build_seconds = old.build_seconds;
  b.disk_bytes = u.disk_bytes;
  b.pairs[0] = target.pairs[0];
  b.pairs[1] = target.pairs[1];
  json shape = {
      {"kind", "aged"},
      {"blocks", n},
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
  if (u.written_known) {
    shape["written_bytes"] = u.written_bytes;
    shape["write_amp"] = u.write_amp();
  }
  // Flat, as a results file's context objects are: the engine's own
  // figures under "engine.".
  for (const auto& [k, v] : u.engine) shape["engine." + k] = v;
  b.shape = shape.dump();
  FLATBENCH_RETURN_IF_ERROR(WriteMarker(ds, b));
  std::error_code ec;
  fs::remove(aging, ec);
  if (ec) return Status::IOError(aging + ": " + ec.message());
  return u;
}

}  // namespace

Result<std::vector<Upkeep>> Age(const AgeOptions& o,
                                const WriterFactory& factory) {
  FLATBENCH_RETURN_IF_ERROR(dataset::ValidateStream(o.stream));
  DirLock lock;
  FLATBENCH_ASSIGN_OR_RETURN(Dataset ds, Dataset::Open(o.dir));
  FLATBENCH_RETURN_IF_ERROR(lock.Lock(o.dir));
  const dataset::Spec now = ds.spec();
  if (now.stream.blocks > 0 && !now.stream.SameStream(o.stream)) {
    return Status::Usage(o.dir + " is aged by another stream (" +
                         now.stream.Canonical() +
                         "); age it with the same stream options");
  }
  Target target;
  target.spec = now;
  target.spec.stream = o.stream;
  // An earlier run may have moved dataset.json to the target already.
  const uint64_t from_blocks = now.stream.blocks;
  if (o.stream.blocks < from_blocks) {
    return Status::Usage("--blocks " + std::to_string(o.stream.blocks) + ": " +
                         o.dir + " is at block " + std::to_string(from_blocks) +
                         " already, and a store cannot go back");
  }
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
  // Progress records first: from here on a store is refused until aged.
  for (const std::string& store : stores) {
    const std::string path = AgingPath(o.dir, store);
    std::error_code ec;
    if (fs::exists(path, ec)) continue;
    AgingRecord r;
    r.target = target.spec.Canonical();
    r.from_blocks = from_blocks;
    r.durable = from_blocks;
    FLATBENCH_RETURN_IF_ERROR(SaveRecord(path, r));
  }
  // The target's identity: its fingerprint and size, from its stream.
  if (o.progress) {
    std::fprintf(stderr, "age: %zu store(s) of %s to block %llu\n",
                 stores.size(), o.dir.c_str(),
                 static_cast<unsigned long long>(o.stream.blocks));
  }
  NullSink sink;
  Progress digest_progress("age: the target's fingerprint", "steps",
                           o.progress);
  FLATBENCH_ASSIGN_OR_RETURN(StreamDigest d,
                             GenerateSorted(
                                 target.spec, &sink,
                                 [&](uint64_t done, uint64_t total) {
                                   digest_progress.Update(done, total);
                                 },
                                 o.jobs));
  target.fingerprint = FingerprintHex(d.fingerprint);
  for (int t = 0; t < kNumTables; ++t) {
    target.pairs[t] = d.pairs[t];
    target.live_bytes += d.key_bytes[t] + d.value_bytes[t];
  }
  if (!(ds.spec() == target.spec) || ds.fingerprint() != target.fingerprint) {
    FLATBENCH_RETURN_IF_ERROR(
        WriteIdentity(o.dir, target.spec, target.fingerprint));
    FLATBENCH_ASSIGN_OR_RETURN(ds, Dataset::Open(o.dir));
  }
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
