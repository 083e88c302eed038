#include "arena/live_delta.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace flatbench::arena {
namespace {

constexpr size_t kFirstSlots = 1024;
constexpr size_t kChunkBytes = size_t{1} << 20;

}  // namespace

// A change's erase flag and value; the value's bytes follow it.
struct LiveDelta::Record {
  uint32_t length = 0;
  bool erase = false;
  std::string_view value() const {
    return {reinterpret_cast<const char*>(this + 1), length};
  }
};

struct LiveDelta::Node {
  std::atomic<const Record*> change{nullptr};
  uint64_t hash = 0;
  uint8_t key_length = 0;
  char key[kStorageKeySize] = {};
  std::string_view Key() const { return {key, key_length}; }
};

struct LiveDelta::Slots {
  explicit Slots(size_t n)
      : mask(n - 1), slot(std::make_unique<std::atomic<Node*>[]>(n)) {}
  size_t mask;
  std::unique_ptr<std::atomic<Node*>[]> slot;
};

LiveDelta::LiveDelta() {
  for (int t = 0; t < kNumTables; ++t) {
    all_slots_.push_back(std::make_unique<Slots>(kFirstSlots));
    slots_[t].store(all_slots_.back().get(), std::memory_order_relaxed);
  }
}

LiveDelta::~LiveDelta() = default;

char* LiveDelta::Allocate(size_t bytes, size_t align) {
  size_t pad = reinterpret_cast<uintptr_t>(chunk_at_) % align;
  pad = pad == 0 ? 0 : align - pad;
  if (chunk_at_ == nullptr || chunk_left_ < bytes + pad) {
    const size_t size = std::max(kChunkBytes, bytes + align);
    chunks_.push_back(std::make_unique<char[]>(size));
    chunk_at_ = chunks_.back().get();
    chunk_left_ = size;
    pad = reinterpret_cast<uintptr_t>(chunk_at_) % align;
    pad = pad == 0 ? 0 : align - pad;
  }
  char* p = chunk_at_ + pad;
  chunk_at_ += pad + bytes;
  chunk_left_ -= pad + bytes;
  return p;
}

const LiveDelta::Record* LiveDelta::NewRecord(const KeyChange& c) {
  const size_t length = c.erase ? 0 : c.value.size();
  char* p = Allocate(sizeof(Record) + length, alignof(Record));
  auto* r = new (p) Record();
  r->length = static_cast<uint32_t>(length);
  r->erase = c.erase;
  if (length > 0) std::memcpy(p + sizeof(Record), c.value.data(), length);
  return r;
}

LiveDelta::Node* LiveDelta::NewNode(const KeyChange& c) {
  auto* n = new (Allocate(sizeof(Node), alignof(Node))) Node();
  n->hash = XXH3_64bits(c.key.data(), c.key.size());
  n->key_length = static_cast<uint8_t>(c.key.size());
  std::memcpy(n->key, c.key.data(), c.key.size());
  n->change.store(NewRecord(c), std::memory_order_relaxed);
  return n;
}

// The writer's copy into slots twice as many: published only once whole.
void LiveDelta::Grow(int t) {
  const Slots* old = slots_[t].load(std::memory_order_relaxed);
  auto bigger = std::make_unique<Slots>(2 * (old->mask + 1));
  for (size_t i = 0; i <= old->mask; ++i) {
    Node* n = old->slot[i].load(std::memory_order_relaxed);
    if (n == nullptr) continue;
    size_t j = n->hash & bigger->mask;
    while (bigger->slot[j].load(std::memory_order_relaxed) != nullptr) {
      j = (j + 1) & bigger->mask;
    }
    bigger->slot[j].store(n, std::memory_order_relaxed);
  }
  slots_[t].store(bigger.get(), std::memory_order_release);
  all_slots_.push_back(std::move(bigger));
}

void LiveDelta::Put(const KeyChange& c) {
  const int t = static_cast<int>(c.table);
  const uint64_t hash = XXH3_64bits(c.key.data(), c.key.size());
  const Slots* s = slots_[t].load(std::memory_order_relaxed);
  size_t i = hash & s->mask;
  for (;; i = (i + 1) & s->mask) {
    Node* n = s->slot[i].load(std::memory_order_relaxed);
    if (n == nullptr) break;
    if (n->hash != hash || n->Key() != c.key) continue;
    const Record* old = n->change.load(std::memory_order_relaxed);
    n->change.store(NewRecord(c), std::memory_order_release);
    bytes_.fetch_add((c.erase ? 0 : c.value.size()) - old->length,
                     std::memory_order_relaxed);
    return;
  }
  if (2 * (used_[t] + 1) > s->mask + 1) {
    Grow(t);
    s = slots_[t].load(std::memory_order_relaxed);
    i = hash & s->mask;
    while (s->slot[i].load(std::memory_order_relaxed) != nullptr) {
      i = (i + 1) & s->mask;
    }
  }
  s->slot[i].store(NewNode(c), std::memory_order_release);
  ++used_[t];
  keys_.fetch_add(1, std::memory_order_relaxed);
  bytes_.fetch_add(c.key.size() + (c.erase ? 0 : c.value.size()),
                   std::memory_order_relaxed);
}

void LiveDelta::Apply(std::span<const KeyChange> changes) {
  for (const KeyChange& c : changes) Put(c);
}

bool LiveDelta::Find(Table table, std::string_view key, Change* out) const {
  const Slots* s =
      slots_[static_cast<int>(table)].load(std::memory_order_acquire);
  const uint64_t hash = XXH3_64bits(key.data(), key.size());
  for (size_t i = hash & s->mask;; i = (i + 1) & s->mask) {
    const Node* n = s->slot[i].load(std::memory_order_acquire);
    if (n == nullptr) return false;
    if (n->hash != hash || n->Key() != key) continue;
    const Record* r = n->change.load(std::memory_order_acquire);
    out->erase = r->erase;
    out->value = r->value();
    return true;
  }
}

Delta LiveDelta::Sorted() const {
  Delta delta;
  for (int t = 0; t < kNumTables; ++t) {
    const Slots* s = slots_[t].load(std::memory_order_acquire);
    auto& ops = delta.ops[t];
    for (size_t i = 0; i <= s->mask; ++i) {
      const Node* n = s->slot[i].load(std::memory_order_acquire);
      if (n == nullptr) continue;
      const Record* r = n->change.load(std::memory_order_acquire);
      ops.push_back({std::string(n->Key()), r->erase,
                     r->erase ? std::string() : std::string(r->value())});
    }
    std::sort(ops.begin(), ops.end(),
              [](const DeltaOp& a, const DeltaOp& b) { return a.key < b.key; });
  }
  return delta;
}

}  // namespace flatbench::arena
