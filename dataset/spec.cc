#include "dataset/spec.h"

#include <algorithm>

namespace flatbench::dataset {

std::string Spec::Canonical() const {
  return "flatbench-dataset v" + std::to_string(kGeneratorVersion) +
         " accounts=" + std::to_string(accounts) +
         " slots_per_account=" + std::to_string(slots_per_account) +
         " seed=" + std::to_string(seed) +
         (stream.blocks == 0 ? "" : " " + stream.Canonical());
}

std::string StreamSpec::Canonical() const {
  if (blocks == 0) return "";
  return "blocks=" + std::to_string(blocks) +
         " stream_seed=" + std::to_string(seed) +
         " changes=" + std::to_string(changes_per_block) +
         " shares=" + std::to_string(account_updates) + "/" +
         std::to_string(new_accounts) + "/" + std::to_string(slot_updates) +
         "/" + std::to_string(new_slots) + "/" + std::to_string(slot_deletes) +
         " hot=" + std::to_string(hot_share) + "/" +
         std::to_string(hot_accounts);
}

bool StreamSpec::SameStream(const StreamSpec& o) const {
  return seed == o.seed && changes_per_block == o.changes_per_block &&
         account_updates == o.account_updates &&
         new_accounts == o.new_accounts && slot_updates == o.slot_updates &&
         new_slots == o.new_slots && slot_deletes == o.slot_deletes &&
         hot_share == o.hot_share && hot_accounts == o.hot_accounts;
}

uint64_t TenPercentBlocks(const Spec& spec, const StreamSpec& stream) {
  const uint64_t pairs = spec.accounts + spec.storage_slots();
  const uint64_t per_block = std::max<uint64_t>(1, stream.changes_per_block);
  const uint64_t changes = pairs / 100 * 11 + pairs % 100 * 11 / 100;
  return std::max<uint64_t>(1, (changes + per_block - 1) / per_block);
}

Status ValidateStream(const StreamSpec& s) {
  if (s.changes_per_block == 0 || s.changes_per_block > 10'000'000) {
    return Status::Usage("--changes-per-block " +
                         std::to_string(s.changes_per_block) +
                         ": must be 1..10000000");
  }
  const uint64_t sum = uint64_t{s.account_updates} + s.new_accounts +
                       s.slot_updates + s.new_slots + s.slot_deletes;
  if (sum != 1000) {
    return Status::Usage(
        "--account-updates, --new-accounts, --slot-updates, --new-slots and "
        "--slot-deletes: per-mille shares that sum to " +
        std::to_string(sum) + ", not 1000");
  }
  if (s.hot_share > 1000) {
    return Status::Usage("--hot-share " + std::to_string(s.hot_share) +
                         ": per-mille, at most 1000");
  }
  if (s.hot_accounts == 0 || s.hot_accounts > 1000) {
    return Status::Usage("--hot-accounts " + std::to_string(s.hot_accounts) +
                         ": per-mille of the accounts, 1..1000");
  }
  return Status::Ok();
}

Result<Spec> MakeSpec(const std::string& scale, uint64_t accounts,
                      uint32_t slots_per_account, uint64_t seed) {
  Spec spec;
  spec.scale = scale;
  spec.seed = seed;
  if (scale == "tiny") {
    spec.accounts = 10'000;
    spec.slots_per_account = 5;
  } else if (scale == "smoke") {
    spec.accounts = 100'000;
    spec.slots_per_account = 5;
  } else if (scale == "medium") {
    spec.accounts = 10'000'000;
    spec.slots_per_account = 4;
  } else if (scale == "full") {
    spec.accounts = 300'000'000;
    spec.slots_per_account = 4;
  } else if (scale == "custom") {
    if (accounts == 0) {
      return Status::Usage("--accounts: a custom scale needs at least 1");
    }
    if (accounts > kMaxAccounts) {
      return Status::Usage("--accounts: at most " +
                           std::to_string(kMaxAccounts));
    }
    if (slots_per_account > 1'000'000) {
      return Status::Usage("--slots-per-account: at most 1000000");
    }
    spec.accounts = accounts;
    spec.slots_per_account = slots_per_account;
  } else {
    return Status::Usage("--scale: unknown scale '" + scale +
                         "' (tiny, smoke, medium, full or custom)");
  }
  return spec;
}

}  // namespace flatbench::dataset
