#include "bench/results.h"

#include <unistd.h>

#include <ctime>
#include <sstream>
#include <thread>

#include "bench/environment.h"
#include "flatbench_config.h"

namespace flatbench::bench {
namespace {

std::string Join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) {
    if (!s.empty()) s.push_back(',');
    s.append(std::to_string(x));
  }
  return s;
}

// The google-benchmark keys a context needs when no pass ran at all.
void FillBasicContext(nlohmann::json* ctx) {
  if (ctx->contains("date")) return;
  char date[64];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z",
                std::localtime(&now));
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  (*ctx)["date"] = date;
  (*ctx)["host_name"] = host;
  (*ctx)["num_cpus"] = std::thread::hardware_concurrency();
}

}  // namespace

nlohmann::json RunContext(const datagen::Dataset& ds,
                          const BenchOptions& options,
                          const Versions& versions) {
  nlohmann::json c = nlohmann::json::object();
  c["flatbench.version"] = FLATBENCH_VERSION;
  c["flatbench.build_type"] = FLATBENCH_BUILD_TYPE;
  c["flatbench.asserts"] = FLATBENCH_NDEBUG ? "off" : "on";
  c["flatbench.scale"] = ds.spec().scale;
  c["flatbench.spec"] = ds.spec().Canonical();
  c["flatbench.fingerprint"] = ds.fingerprint();
  c["flatbench.dataset_dir"] = ds.dir();
  c["flatbench.reads_per_pass"] = std::to_string(options.reads_per_pass);
  c["flatbench.repetitions"] = std::to_string(options.repetitions);
  c["flatbench.threads"] = Join(options.threads);
  std::ostringstream draw;
  draw << "uniform over the whole key space of each (table, kind): a seeded "
          "4-round Feistel permutation of the hit or miss index space "
          "(datagen::Sampler, draw seed 0x"
       << std::hex << options.draw_seed << std::dec
       << "); each thread of each pass reads its own disjoint range of "
          "permutation indices, and successive passes continue the "
          "permutation, so no key repeats within a pass; key bytes are "
          "prepared before the timed loop";
  c["flatbench.key_draw"] = draw.str();
  for (const auto& [k, v] : DescribeEnvironment(ds.dir())) {
    c["flatbench.env." + k] = v;
  }
  c["flatbench.lib.rocksdb"] = versions.rocksdb;
  c["flatbench.lib.lmdb"] = versions.lmdb;
  c["flatbench.lib.compiler"] = FLATBENCH_COMPILER;
  c["flatbench.eviction_bound"] = std::to_string(options.eviction_bound);
  c["flatbench.warm_bound"] = std::to_string(options.warm_bound);
  return c;
}

nlohmann::json BackendDocument(const BackendRun& run) {
  nlohmann::json doc;
  doc["context"] = run.context;
  doc["benchmarks"] = run.benchmarks;
  return doc;
}

nlohmann::json MergeDocuments(const nlohmann::json& run_context,
                              const std::vector<nlohmann::json>& documents,
                              const DeviceRun* device,
                              const std::string& device_status) {
  nlohmann::json ctx = nlohmann::json::object();
  // google-benchmark's own keys (date, host_name, caches, ...) come from the
  // first process that ran a pass.
  for (const auto& doc : documents) {
    if (doc.contains("context") && doc["context"].contains("date")) {
      for (auto& [k, v] : doc["context"].items()) {
        if (k.rfind("flatbench.", 0) != 0) ctx[k] = v;
      }
      break;
    }
  }
  if (!ctx.contains("date") && device && device->context.contains("date")) {
    ctx = device->context;
  }
  FillBasicContext(&ctx);
  for (auto& [k, v] : run_context.items()) ctx[k] = v;
  for (const auto& doc : documents) {
    if (!doc.contains("context")) continue;
    for (auto& [k, v] : doc["context"].items()) {
      if (k.rfind("flatbench.", 0) == 0) ctx[k] = v;
    }
  }
  ctx["flatbench.device"] = device_status;

  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& doc : documents) {
    if (!doc.contains("benchmarks")) continue;
    for (const auto& e : doc["benchmarks"]) benchmarks.push_back(e);
  }
  if (device) {
    for (const auto& e : device->benchmarks) benchmarks.push_back(e);
  }
  // Each pass was its own google-benchmark family; number them uniquely.
  int64_t index = 0;
  for (auto& e : benchmarks) {
    e["family_index"] = index++;
    e["per_family_instance_index"] = 0;
  }
  nlohmann::json out;
  out["context"] = ctx;
  out["benchmarks"] = benchmarks;
  return out;
}

}  // namespace flatbench::bench
