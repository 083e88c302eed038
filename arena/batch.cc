#include "arena/batch.h"

#include <algorithm>
#include <new>

namespace flatbench::arena {
namespace {

constexpr size_t kView = SIZE_MAX;  // offsets_: the value is a view

}  // namespace

void BatchScratch::ReserveSlots(size_t n) {
  if (n <= slot_count_) return;
  const size_t count = std::max(n, slot_count_ * 2);
  char* p = static_cast<char*>(
      std::aligned_alloc(kBlockSize, count * ReadBuffer::kIoSize));
  if (p == nullptr) throw std::bad_alloc();
  slots_.reset(p);
  slot_count_ = count;
}

void BatchScratch::ReservePins(size_t n) {
  if (n <= pin_count_) return;
  const size_t count = std::max(n, pin_count_ * 2);
  pins_ = std::make_unique<BlockCache::Pin[]>(count);
  loads_ = std::make_unique<BlockCache::Load[]>(count);
  pin_count_ = count;
}

void BatchScratch::ResetGroups(size_t keys) {
  size_t size = 64;
  while (size < 2 * keys) size *= 2;
  if (size > table_.size()) {
    table_.assign(size, TableEntry{});
    generation_ = 0;
  }
  if (++generation_ == 0) {  // wrapped: every entry must look old
    std::fill(table_.begin(), table_.end(), TableEntry{});
    generation_ = 1;
  }
}

uint32_t* BatchScratch::GroupOf(uint32_t id) {
  // Fewer than half the entries are used, so a probe ends soon.
  const size_t mask = table_.size() - 1;
  size_t at = (static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> 32 & mask;
  while (table_[at].generation == generation_ && table_[at].id != id) {
    at = (at + 1) & mask;
  }
  TableEntry& e = table_[at];
  if (e.generation != generation_) {
    e.generation = generation_;
    e.id = id;
    e.group = kNoGroup;
  }
  return &e.group;
}

void BatchScratch::Release() {
  for (size_t gi = 0; gi < groups_.size() && gi < pin_count_; ++gi) {
    pins_[gi].Release();
  }
  buffer_.Release();
}

// A group per distinct block, at most one a key; read i is group i's.
void BatchScratch::Begin(size_t keys) {
  Release();  // the last batch's values
  plan_.clear();
  groups_.clear();
  singles_.clear();
  values_.clear();
  offsets_.assign(keys, kView);
  hashes_.resize(keys);
  blocks_.resize(keys);
  ResetGroups(keys);
  ReserveSlots(keys);
  ReservePins(keys);
  reads_.clear();
  reads_.resize(keys);
  io_.Begin(reads_);
  pages_.Begin();
}

size_t BatchScratch::AddToGroup(uint32_t id, uint32_t key, bool* made) {
  uint32_t* group = GroupOf(id);
  *made = *group == kNoGroup;
  if (*made) {
    const size_t gi = groups_.size();
    *group = static_cast<uint32_t>(gi);
    BatchGroup& g = groups_.emplace_back();
    g.at.id = id;
    g.slot.buffer = Slot(gi);
    g.slot.read = &reads_[gi];
    g.slot.pin = &pins_[gi];
    g.slot.load = &loads_[gi];
    g.slot.pages = &pages_;
  }
  plan_.push_back({*group, key});
  return *group;
}

// Groups are numbered as they are met, so a batch without two keys in one
// block is in that order already.
void BatchScratch::SealGroups() {
  pages_.End();
  if (plan_.size() != groups_.size()) {
    std::sort(plan_.begin(), plan_.end(),
              [](const PlannedKey& x, const PlannedKey& y) {
                return x.group != y.group ? x.group < y.group : x.key < y.key;
              });
  }
  for (size_t i = 0; i < plan_.size();) {
    size_t end = i + 1;
    while (end < plan_.size() && plan_[end].group == plan_[i].group) ++end;
    BatchGroup& g = groups_[plan_[i].group];
    g.first = static_cast<uint32_t>(i);
    g.end = static_cast<uint32_t>(end);
    i = end;
  }
}

void BatchScratch::CopyValue(uint32_t key, std::string_view value,
                             GetResult* result) {
  offsets_[key] = values_.size();
  values_.append(value);
  result->value = std::string_view(nullptr, value.size());
}

void BatchScratch::ResolveValues(std::span<GetResult> results) const {
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].found && offsets_[i] != kView) {
      results[i].value = std::string_view(values_.data() + offsets_[i],
                                          results[i].value.size());
    }
  }
}

}  // namespace flatbench::arena
