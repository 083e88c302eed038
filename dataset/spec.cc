#include "dataset/spec.h"

namespace flatbench::dataset {

std::string Spec::Canonical() const {
  return "flatbench-dataset v" + std::to_string(kGeneratorVersion) +
         " accounts=" + std::to_string(accounts) +
         " slots_per_account=" + std::to_string(slots_per_account) +
         " seed=" + std::to_string(seed);
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
