#pragma once
// flatbench bench's parent's end of a worker process: requests and
// responses as JSON lines over the child's stdin and stdout.

#include <memory>
#include <nlohmann/json.hpp>

#include "bench/child_process.h"
#include "bench/run.h"

namespace flatbench::cli {

// The parent's end of a worker process.
class ProcessChannel : public bench::WorkerChannel {
 public:
  explicit ProcessChannel(std::unique_ptr<bench::LineChild> child)
      : child_(std::move(child)) {}
  Result<nlohmann::json> Call(const nlohmann::json& request) override;

 private:
  std::unique_ptr<bench::LineChild> child_;
};

}  // namespace flatbench::cli
