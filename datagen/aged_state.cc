#include "datagen/aged_state.h"

#include <map>
#include <mutex>
#include <string>

namespace flatbench::datagen {

AgedState::AgedState(const dataset::Spec& spec) : spec_(spec) {
  BlockStream stream(spec);
  stream.SkipTo(spec.stream.blocks);
  new_accounts_ = stream.new_accounts();
  new_slot_counters_ = stream.new_slot_counters();
  skipped_ = stream.skipped();
  touched_ = std::move(stream).TakeTouched();
  live_pairs_[0] = spec.accounts;
  live_pairs_[1] = spec.storage_slots();
  for (uint64_t i = 0; i < new_accounts_; ++i) {
    const KeyId id = CreatedKey(Table::kAccount, i);
    created_[0][MakeAccountKey(id.counter)[0]].push_back(id);
    ++live_pairs_[0];
  }
  for (uint64_t i = 0; i < new_slot_counters_.size(); ++i) {
    const KeyId id = CreatedKey(Table::kStorage, i);
    if (touched_.at(id).erased) continue;
    created_[1][MakeAccountKey(id.counter)[0]].push_back(id);
    ++live_pairs_[1];
  }
  // Bulk-loaded slots the stream deleted.
  for (const auto& [id, touch] : touched_) {
    if (touch.erased && id.slot < kNewSlotBase) --live_pairs_[1];
  }
}

uint64_t AgedState::created_count(Table table) const {
  return table == Table::kAccount ? new_accounts_ : new_slot_counters_.size();
}

KeyId AgedState::CreatedKey(Table table, uint64_t i) const {
  if (table == Table::kAccount) {
    return {Table::kAccount, NewAccountCounter(spec_, i), 0};
  }
  return {Table::kStorage, new_slot_counters_[i], kNewSlotBase + i};
}

uint64_t LivePairs(const dataset::Spec& spec, Table table) {
  auto aged = AgedStateOf(spec);
  if (aged) return aged->live_pairs(table);
  return table == Table::kAccount ? spec.accounts : spec.storage_slots();
}

std::shared_ptr<const AgedState> AgedStateOf(const dataset::Spec& spec) {
  if (spec.stream.blocks == 0) return nullptr;
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const AgedState>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[spec.Canonical()];
  if (!slot) slot = std::make_shared<const AgedState>(spec);
  return slot;
}

}  // namespace flatbench::datagen
