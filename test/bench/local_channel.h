#pragma once
// A WorkerChannel (bench/run.h) to a Worker in the test's own process: the
// schedule and passes without a child process per backend.

#include <memory>
#include <nlohmann/json.hpp>

#include "bench/run.h"
#include "bench/worker.h"

namespace flatbench::bench {

class LocalChannel : public WorkerChannel {
 public:
  explicit LocalChannel(std::unique_ptr<Worker> worker)
      : worker_(std::move(worker)) {}
  Result<nlohmann::json> Call(const nlohmann::json& request) override {
    return worker_->Handle(request);
  }

 private:
  std::unique_ptr<Worker> worker_;
};

}  // namespace flatbench::bench
