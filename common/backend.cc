#include "common/backend.h"

namespace flatbench {

bool ParseTable(std::string_view name, Table* out) {
  if (name == "account") {
    *out = Table::kAccount;
    return true;
  }
  if (name == "storage") {
    *out = Table::kStorage;
    return true;
  }
  return false;
}

}  // namespace flatbench
