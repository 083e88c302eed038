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

Result<std::unique_ptr<TableScan>> Backend::OpenScan(Table /*table*/) {
  return Status::Usage(Name() + ": no ordered walk");
}

Result<std::string> Backend::CheckIntegrity() {
  return "no checksums (" + Name() + " keeps none)";
}

}  // namespace flatbench
