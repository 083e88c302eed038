#pragma once
// A WorkerChannel (bench/run.h) to a Worker in the test's own process: the
// schedule and passes without a child process per backend.

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// In-process workers, one per backend, and the channels RunMatrix takes
// (which point into `owned`: keep both together).
struct LocalWorkers {
  std::vector<std::unique_ptr<LocalChannel>> owned;
  std::map<std::string, WorkerChannel*> channels;
};

// A worker for each of `backends` on `dataset`, opened by `open`, that
// never drops caches and checks `check_samples` keys.
inline LocalWorkers StartLocalWorkers(const datagen::Dataset& dataset,
                                      const std::vector<std::string>& backends,
                                      const Opener& open,
                                      uint64_t check_samples) {
  LocalWorkers w;
  for (const auto& b : backends) {
    WorkerOptions wo;
    wo.allow_drop_caches = false;
    wo.check.samples = check_samples;
    w.owned.push_back(std::make_unique<LocalChannel>(
        std::make_unique<Worker>(dataset, b, open, wo)));
    w.channels[b] = w.owned.back().get();
  }
  return w;
}

}  // namespace flatbench::bench
