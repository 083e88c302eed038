#include "report/verdict/efficiency.h"

#include <algorithm>
#include <cmath>

#include "common/results_ops.h"
#include "common/results_schema.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

// One device request: a 4 KiB read, as the device cells make them.
constexpr double kReadBytes = 4096;

}  // namespace

double PassPagesPerRead(const Pass& p) {
  const double faults = p.Get(r::kMajorFaultsPerRead);
  const double bytes = p.Get(r::kBytesReadPerRead);
  if (!std::isfinite(faults) && !std::isfinite(bytes)) return NAN;
  return std::max(std::isfinite(faults) ? faults : 0.0,
                  std::isfinite(bytes) ? bytes / kReadBytes : 0.0);
}

double PassStorageReadsPerRead(const Pass& p) {
  const double requests = p.Get(r::kDeviceRequestsPerRead);
  return std::isfinite(requests) ? requests : PassPagesPerRead(p);
}

double DeviceSideEfficiency(const Pass& p) {
  // Each hit rate ÷ device rate the pass recorded, times the storage
  // reads behind each hit (or key): storage reads/s over the device rate.
  const double hit = p.Get(r::kIoEfficiency);
  if (std::isfinite(hit)) return PassStorageReadsPerRead(p) * hit;
  const double batch = p.Get(r::kBatchIoEfficiency);
  if (!std::isfinite(batch)) return NAN;
  const double requests = p.Get(r::kDeviceRequestsPerRead);
  const double keys = p.Get(r::kBatchSize);
  if (std::isfinite(requests) && keys > 0) return requests / keys * batch;
  return p.Get(r::kStorageReadsPerKey) * batch;
}

}  // namespace flatbench::report
