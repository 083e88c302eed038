#include "datagen/stream.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/hex.h"
#include "datagen/aged_state.h"
#include "datagen/buckets.h"
#include "datagen/keys.h"

namespace flatbench::datagen {
namespace {

class TableHasher {
 public:
  TableHasher() : state_(XXH3_createState()) { XXH3_64bits_reset(state_); }
  ~TableHasher() { XXH3_freeState(state_); }
  TableHasher(const TableHasher&) = delete;
  TableHasher& operator=(const TableHasher&) = delete;
  void Add(std::string_view key, std::string_view value) {
    uint32_t len = static_cast<uint32_t>(value.size());
    XXH3_64bits_update(state_, key.data(), key.size());
    XXH3_64bits_update(state_, &len, sizeof(len));
    XXH3_64bits_update(state_, value.data(), value.size());
  }
  uint64_t Digest() const { return XXH3_64bits_digest(state_); }

 private:
  XXH3_state_t* state_;
};

struct AccountEntry {
  AccountKey key;
  uint32_t counter;
};
struct StorageEntry {
  StorageKey key;
  uint32_t counter;
  uint32_t slot;
};

template <typename Entry>
void SortByKey(std::vector<Entry>& v) {
  std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) {
    return std::memcmp(a.key.data(), b.key.data(), a.key.size()) < 0;
  });
}

// One bucket of one table, keys sorted and values made: a pure function
// of (spec, bucket), so any thread may make it.
struct Batch {
  std::vector<AccountEntry> accounts;
  std::vector<AccountValue> account_values;
  std::vector<StorageEntry> slots;
  std::vector<SlotValue> slot_values;
};

// Item i < 256 is account bucket i; item 256 + b is storage bucket b.
constexpr int kItems = 2 * kBuckets;

// An entry's counter and slot fit 32 bits each (the bucket lists and the
// batches stay as small as for a fresh dataset): a counter at or above
// spec.accounts stands for the stream's new account (counter - accounts),
// a slot at or above kCreatedSlot for its new slot (slot - kCreatedSlot).
constexpr uint32_t kCreatedSlot = uint32_t{1} << 31;

uint64_t CounterOf(const dataset::Spec& spec, uint32_t c) {
  return c < spec.accounts ? c : NewAccountCounter(spec, c - spec.accounts);
}
uint32_t EncodeCounter(const dataset::Spec& spec, uint64_t counter) {
  return static_cast<uint32_t>(
      counter < spec.accounts ? counter : counter - kMissSpan);  // accounts + j
}
uint64_t SlotOf(uint32_t s) {
  return s < kCreatedSlot ? s : kNewSlotBase + (s - kCreatedSlot);
}
uint32_t EncodeSlot(uint64_t slot) {
  return static_cast<uint32_t>(
      slot < kNewSlotBase ? slot : kCreatedSlot + (slot - kNewSlotBase));
}

// The seed of the value a key holds: the bulk load's, or the version the
// stream last wrote.
uint64_t ValueSeed(const dataset::Spec& spec, const AgedState* state,
                   const KeyId& id) {
  const Touch* t = state == nullptr ? nullptr : state->Find(id);
  return t == nullptr ? spec.seed : VersionSeed(spec, t->block);
}

// A bucket's pairs: the bulk-loaded ones the stream left live and, for an
// aged spec, the ones it created, sorted, with their values.
void MakeBatch(const dataset::Spec& spec, const AgedState* state,
               const std::vector<uint32_t>& bucket, int item, Batch* out) {
  if (item < kBuckets) {
    out->accounts.reserve(bucket.size());
    for (uint32_t c : bucket) out->accounts.push_back({MakeAccountKey(c), c});
    if (state != nullptr) {
      for (const KeyId& id : state->Created(Table::kAccount, item)) {
        out->accounts.push_back(
            {MakeAccountKey(id.counter), EncodeCounter(spec, id.counter)});
      }
    }
    SortByKey(out->accounts);
    out->account_values.reserve(out->accounts.size());
    for (const auto& e : out->accounts) {
      const uint64_t counter = CounterOf(spec, e.counter);
      const KeyId id{Table::kAccount, counter, 0};
      out->account_values.push_back(
          MakeAccountValue(ValueSeed(spec, state, id), counter));
    }
    return;
  }
  out->slots.reserve(bucket.size() * spec.slots_per_account);
  for (uint32_t c : bucket) {
    AccountKey ak = MakeAccountKey(c);
    for (uint32_t s = 0; s < spec.slots_per_account; ++s) {
      if (state != nullptr) {
        const Touch* t = state->Find({Table::kStorage, c, s});
        if (t != nullptr && t->erased) continue;
      }
      out->slots.push_back({MakeStorageKey(ak, c, s), c, s});
    }
  }
  if (state != nullptr) {
    for (const KeyId& id : state->Created(Table::kStorage, item - kBuckets)) {
      out->slots.push_back(
          {MakeStorageKey(MakeAccountKey(id.counter), id.counter, id.slot),
           EncodeCounter(spec, id.counter), EncodeSlot(id.slot)});
    }
  }
  SortByKey(out->slots);
  out->slot_values.reserve(out->slots.size());
  for (const auto& e : out->slots) {
    const uint64_t counter = CounterOf(spec, e.counter);
    const uint64_t slot = SlotOf(e.slot);
    out->slot_values.push_back(
        MakeSlotValue(ValueSeed(spec, state, {Table::kStorage, counter, slot}),
                      counter, slot));
  }
}

// A batch's pairs as the run a loader that takes buckets builds.
class AccountRun final : public PairRun {
 public:
  explicit AccountRun(const Batch& b) : b_(b) {}
  size_t size() const override { return b_.accounts.size(); }
  std::string_view key(size_t i) const override {
    return View(b_.accounts[i].key);
  }
  std::string_view value(size_t i) const override {
    return b_.account_values[i].view();
  }

 private:
  const Batch& b_;
};

class StorageRun final : public PairRun {
 public:
  explicit StorageRun(const Batch& b) : b_(b) {}
  size_t size() const override { return b_.slots.size(); }
  std::string_view key(size_t i) const override {
    return View(b_.slots[i].key);
  }
  std::string_view value(size_t i) const override {
    return View(b_.slot_values[i]);
  }

 private:
  const Batch& b_;
};

// A batch made, and for a loader that takes buckets, its part built.
struct Made {
  Batch batch;
  Result<std::unique_ptr<LoadPart>> part = std::unique_ptr<LoadPart>();
  uint64_t pairs = 0;  // Set once handed on by the thread that made it.
};

// Makes item `item` into `out` (any thread): the batch, then, where the
// sink takes buckets and the batch has pairs, the sink's part of it.
void MakeItem(const dataset::Spec& spec, const AgedState* state,
              const std::vector<uint32_t>& bucket, int item, BulkLoader* sink,
              Made* out) {
  MakeBatch(spec, state, bucket, item, &out->batch);
  if (!sink->TakesBuckets()) return;
  const Batch& b = out->batch;
  if (item < kBuckets && !b.accounts.empty()) {
    out->part = sink->Prepare(Table::kAccount, AccountRun(b));
  } else if (item >= kBuckets && !b.slots.empty()) {
    out->part = sink->Prepare(Table::kStorage, StorageRun(b));
  }
}

// Hands batches to the sink in item order and hashes them.
class Emitter {
 public:
  Emitter(BulkLoader* sink, StreamDigest* d) : sink_(sink), d_(d) {}
  Status Emit(Made* m) {
    const Batch& b = m->batch;
    FLATBENCH_RETURN_IF_ERROR(m->part.status());
    // With a part, the sink has every pair already: only the hash walks
    // them here.
    BulkLoader* sink = m->part.value() != nullptr ? nullptr : sink_;
    for (size_t i = 0; i < b.accounts.size(); ++i) {
      const auto key = View(b.accounts[i].key);
      const auto value = b.account_values[i].view();
      if (sink)
        FLATBENCH_RETURN_IF_ERROR(sink->Add(Table::kAccount, key, value));
      account_hash_.Add(key, value);
      d_->value_bytes[0] += value.size();
    }
    d_->pairs[0] += b.accounts.size();
    for (size_t i = 0; i < b.slots.size(); ++i) {
      const auto key = View(b.slots[i].key);
      const auto value = View(b.slot_values[i]);
      if (sink)
        FLATBENCH_RETURN_IF_ERROR(sink->Add(Table::kStorage, key, value));
      storage_hash_.Add(key, value);
    }
    d_->pairs[1] += b.slots.size();
    if (sink == nullptr) {
      FLATBENCH_RETURN_IF_ERROR(sink_->Commit(std::move(m->part).value()));
    }
    return Status::Ok();
  }
  void Close() {
    d_->table_digest[0] = account_hash_.Digest();
    d_->table_digest[1] = storage_hash_.Digest();
  }

 private:
  BulkLoader* sink_;
  StreamDigest* d_;
  TableHasher account_hash_, storage_hash_;
};

// Items made by up to `jobs` threads at once and handed on in item order
// (`emit` on this thread, or by their makers where the sink takes
// buckets, then `count` of their pairs).
Status MakeInParallel(const dataset::Spec& spec, const AgedState* state,
                      const Buckets& buckets, BulkLoader* sink, unsigned jobs,
                      Emitter* emitter,
                      const std::function<Status(Made*)>& emit,
                      const std::function<void(uint64_t)>& count) {
  // Up to `jobs` items made ahead, each by a thread of its own; order,
  // and so every byte the sink sees, is the same as with one job. Where
  // the sink takes buckets, the thread that made an item also hands it
  // on, in item order (its turn), while its pairs and part are still in
  // its core's cache. Otherwise this thread hands every item on: Add
  // stays on one thread (LMDB's write transaction is bound to its
  // thread). Making cannot fail; after the sink's first error no later
  // item is handed on.
  const bool emit_in_worker = sink->TakesBuckets();
  // Items in flight. Handed on by their makers, one more than `jobs`:
  // a thread that waits for its turn leaves its core to the others.
  const size_t ahead = emit_in_worker ? jobs + 1 : jobs;
  std::mutex turn_mu;
  std::condition_variable turn_cv;
  int turn = 0;   // the item whose turn it is to be handed on
  Status failed;  // the sink's first error; guarded by turn_mu
  auto work = [&](Made* out, int item) {
    MakeItem(spec, state, buckets[item % kBuckets], item, sink, out);
    if (!emit_in_worker) return;
    std::unique_lock lock(turn_mu);
    turn_cv.wait(lock, [&] { return turn == item; });
    if (failed.ok()) failed = emitter->Emit(out);
    // Freed by the thread that made it.
    const uint64_t pairs = out->batch.accounts.size() + out->batch.slots.size();
    *out = Made();
    out->pairs = pairs;
    ++turn;
    lock.unlock();
    turn_cv.notify_all();
  };
  struct InFlight {
    std::unique_ptr<Made> made;
    std::jthread thread;
  };
  // Last: on return its threads are joined before anything they use goes.
  std::deque<InFlight> flight;
  int next = 0;
  auto fill = [&] {
    while (next < kItems && flight.size() < ahead) {
      auto made = std::make_unique<Made>();
      Made* out = made.get();
      const int item = next++;
      flight.push_back({std::move(made),
                        std::jthread([&work, out, item] { work(out, item); })});
    }
  };
  fill();
  while (!flight.empty()) {
    flight.front().thread.join();
    std::unique_ptr<Made> m = std::move(flight.front().made);
    flight.pop_front();
    // `jobs` threads make items while the oldest is handed on (whose
    // writes may wait for the disk).
    fill();
    if (!emit_in_worker) {
      FLATBENCH_RETURN_IF_ERROR(emit(m.get()));
      continue;
    }
    {
      std::lock_guard lock(turn_mu);
      FLATBENCH_RETURN_IF_ERROR(failed);
    }
    count(m->pairs);
  }
  return Status::Ok();
}

}  // namespace

std::string FingerprintHex(uint64_t fingerprint) { return Hex64(fingerprint); }

Result<StreamDigest> GenerateSorted(const dataset::Spec& spec, BulkLoader* sink,
                                    const ProgressFn& progress, unsigned jobs) {
  if (spec.accounts > dataset::kMaxAccounts) {
    return Status::Usage("accounts: at most " +
                         std::to_string(dataset::kMaxAccounts));
  }
  jobs = std::max(1u, jobs);
  // The stream's state, for an aged spec (made once per process).
  const std::shared_ptr<const AgedState> aged = AgedStateOf(spec);
  const AgedState* state = aged.get();
  // Progress counts the bucketing pass as one unit per account, then one
  // unit per pair emitted.
  const uint64_t total =
      spec.accounts + (state == nullptr
                           ? spec.accounts + spec.storage_slots()
                           : state->live_pairs(Table::kAccount) +
                                 state->live_pairs(Table::kStorage));
  const Buckets buckets = BucketCounters(spec.accounts, jobs, progress, total);
  StreamDigest d;
  Emitter emitter(sink, &d);
  uint64_t done = spec.accounts;
  auto emit = [&](Made* m) -> Status {
    FLATBENCH_RETURN_IF_ERROR(emitter.Emit(m));
    done += m->batch.accounts.size() + m->batch.slots.size();
    if (progress) progress(done, total);
    return Status::Ok();
  };

  if (jobs == 1) {
    for (int item = 0; item < kItems; ++item) {
      Made m;
      MakeItem(spec, state, buckets[item % kBuckets], item, sink, &m);
      FLATBENCH_RETURN_IF_ERROR(emit(&m));
    }
  } else {
    FLATBENCH_RETURN_IF_ERROR(MakeInParallel(
        spec, state, buckets, sink, jobs, &emitter, emit, [&](uint64_t pairs) {
          done += pairs;
          if (progress) progress(done, total);
        }));
  }
  emitter.Close();
  d.key_bytes[0] = d.pairs[0] * kAccountKeySize;
  d.key_bytes[1] = d.pairs[1] * kStorageKeySize;
  d.value_bytes[1] = d.pairs[1] * 32;

  std::string text = spec.Canonical();
  text.append(reinterpret_cast<const char*>(d.table_digest),
              sizeof(d.table_digest));
  d.fingerprint = XXH3_64bits(text.data(), text.size());
  return d;
}

}  // namespace flatbench::datagen
