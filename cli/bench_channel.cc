#include "cli/bench_channel.h"

#include <string>

namespace flatbench::cli {

Result<nlohmann::json> ProcessChannel::Call(const nlohmann::json& request) {
  FLATBENCH_ASSIGN_OR_RETURN(const std::string line,
                             child_->Exchange(request.dump()));
  nlohmann::json r = nlohmann::json::parse(line, nullptr, false);
  if (r.is_discarded()) {
    return Status::IOError("worker: a response that is not JSON: " +
                           line.substr(0, 200));
  }
  return r;
}

}  // namespace flatbench::cli
