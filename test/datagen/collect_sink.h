#pragma once
// A BulkLoader that keeps every pair in memory, for generator tests.

#include <string>
#include <utility>
#include <vector>

#include "common/backend.h"

namespace flatbench::testing {

class CollectSink : public BulkLoader {
 public:
  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    pairs[static_cast<int>(table)].emplace_back(std::string(key),
                                                std::string(value));
    return Status::Ok();
  }
  Status Finish() override { return Status::Ok(); }
  std::vector<std::pair<std::string, std::string>> pairs[kNumTables];
};

}  // namespace flatbench::testing
