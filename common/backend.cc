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

Status ReadSession::MultiGet(Table table,
                             std::span<const std::string_view> keys,
                             std::span<GetResult> results) {
  if (keys.size() != results.size()) {
    return Status::Usage("batch of " + std::to_string(keys.size()) +
                         " keys with " + std::to_string(results.size()) +
                         " results");
  }
  batch_values_.clear();
  batch_offsets_.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    GetResult& r = results[i];
    r.found = false;
    r.value = {};
    std::string_view value;
    r.status = Get(table, keys[i], &r.found, &value);
    if (!r.status.ok()) {
      r.found = false;
    } else if (r.found) {
      batch_offsets_[i] = batch_values_.size();
      batch_values_.append(value);
      r.value = std::string_view(nullptr, value.size());
    }
  }
  ViewBatchValues(batch_values_, batch_offsets_, results);
  ++batch_io_.batches;
  return Status::Ok();
}

void ViewBatchValues(const std::string& values, std::span<const size_t> offsets,
                     std::span<GetResult> results) {
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].status.ok() && results[i].found) {
      results[i].value =
          std::string_view(values.data() + offsets[i], results[i].value.size());
    }
  }
}

Result<std::unique_ptr<TableScan>> Backend::OpenScan(Table /*table*/) {
  return Status::Usage(Name() + ": no ordered walk");
}

Result<std::string> Backend::CheckIntegrity() {
  return "no checksums (" + Name() + " keeps none)";
}

Result<std::unique_ptr<LoadPart>> BulkLoader::Prepare(Table /*table*/,
                                                      const PairRun& /*run*/) {
  return Status::Usage("this loader takes pairs one by one (Add)");
}

Status BulkLoader::Commit(std::unique_ptr<LoadPart> /*part*/) {
  return Status::Usage("this loader takes pairs one by one (Add)");
}

}  // namespace flatbench
