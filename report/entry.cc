#include "report/entry.h"

#include <cmath>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "common/device_profile.h"
#include "common/results_ops.h"
#include "common/results_writing.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using nlohmann::json;

// Why `v` is not a valid value of counter type `type`, or "" if it is.
std::string CounterProblem(double v, r::Type type) {
  if (!std::isfinite(v)) return "is not finite";
  switch (type) {
    case r::Type::kRate:
    case r::Type::kNanos:
    case r::Type::kSeconds:
      return v > 0 ? "" : "is not positive";
    case r::Type::kCount:
      return v >= 0 ? "" : "is negative";
    case r::Type::kFraction:
      return v >= 0 && v <= 1 ? "" : "is outside [0, 1]";
    case r::Type::kFlag:
      return v == 0 || v == 1 ? "" : "is not 0 or 1";
    default:
      return "has a context type";
  }
}

std::string Name(const r::Counter& c) { return std::string(c.name); }

// A probe's open is part of its startup, so the median open cannot exceed
// the median startup, and the median lies between the extremes.
std::string StartupInconsistency(const Pass& p) {
  const double s = p.Get(r::kStartupS);
  const double lo = p.Get(r::kStartupMinS);
  const double hi = p.Get(r::kStartupMaxS);
  if (!(lo <= s && s <= hi)) {
    return Name(r::kStartupS) + " " + Sig(s, 4) + " is not between " +
           Name(r::kStartupMinS) + " " + Sig(lo, 4) + " and " +
           Name(r::kStartupMaxS) + " " + Sig(hi, 4);
  }
  if (p.Get(r::kOpenSeconds) > s) {
    return Name(r::kOpenSeconds) + " " + Sig(p.Get(r::kOpenSeconds), 4) +
           " is above " + Name(r::kStartupS) + " " + Sig(s, 4) +
           " (the open is part of the startup)";
  }
  if (!(p.Get(r::kStartupProbes) >= 1)) {
    return Name(r::kStartupProbes) + " is below 1";
  }
  return "";
}

// storage_bound follows from the figures it summarises (RESULTS_FORMAT.md):
// device passes are storage-bound by construction, read and scan passes
// when they read kStorageBoundBytesPerRead bytes or took
// kStorageBoundFaultsPerRead major faults per read.
std::string StorageBoundInconsistency(const Pass& p) {
  const double flag = p.Get(r::kStorageBound);
  if (!std::isfinite(flag)) return "";
  if (p.cell.kind == r::kKindDevice) {
    return flag == 1 ? ""
                     : Name(r::kStorageBound) +
                           " is 0 on a device pass (O_DIRECT reads always "
                           "wait on storage)";
  }
  const double bytes = p.Get(r::kBytesReadPerRead);
  const double faults = p.Get(r::kMajorFaultsPerRead);
  const bool by_bytes =
      std::isfinite(bytes) && bytes >= r::kStorageBoundBytesPerRead;
  const bool by_faults =
      std::isfinite(faults) && faults >= r::kStorageBoundFaultsPerRead;
  const bool want = by_bytes || by_faults;
  if ((flag == 1) == want) return "";
  const std::string figures = Name(r::kBytesReadPerRead) + " " + Sig(bytes, 4) +
                              " and " + Name(r::kMajorFaultsPerRead) + " " +
                              Sig(faults, 4);
  if (!want) {
    return Name(r::kStorageBound) + " is 1 but " + figures +
           " are below the rule's " + Sig(r::kStorageBoundBytesPerRead, 3) +
           " bytes and " + Sig(r::kStorageBoundFaultsPerRead, 3) +
           " faults per read";
  }
  return Name(r::kStorageBound) + " is 0 but " +
         (by_bytes
              ? Name(r::kBytesReadPerRead) + " " + Sig(bytes, 4) +
                    " is at least " + Sig(r::kStorageBoundBytesPerRead, 3)
              : Name(r::kMajorFaultsPerRead) + " " + Sig(faults, 4) +
                    " is at least " + Sig(r::kStorageBoundFaultsPerRead, 3)) +
         " per read (the rule makes such a pass storage-bound)";
}

// A scan returns at most scan_length pairs; entries/s is scans/s times
// the pairs per scan; a full page counts as found.
std::string ScanInconsistency(const Pass& p, const json& entry) {
  const double length = p.Get(r::kScanLength);
  const double per_scan = p.Get(r::kEntriesPerScan);
  if (!(length >= 1) || !(per_scan >= 1) || per_scan > length) {
    return Name(r::kEntriesPerScan) + " " + Sig(per_scan, 6) +
           " is not between 1 and " + Name(r::kScanLength) + " " +
           Sig(length, 6);
  }
  const double want = p.Get(r::kReadsPerS) * per_scan;
  if (std::fabs(p.Get(r::kEntriesPerS) - want) > 1e-6 * want) {
    return Name(r::kEntriesPerS) + " " + Sig(p.Get(r::kEntriesPerS), 6) +
           " is not reads_per_s x entries_per_scan (" + Sig(want, 6) + ")";
  }
  if (p.Get(r::kFoundFraction) == 1 && per_scan != length) {
    return Name(r::kFoundFraction) + " is 1 but " + Name(r::kEntriesPerScan) +
           " " + Sig(per_scan, 6) + " is below " + Name(r::kScanLength);
  }
  auto it = entry.find(r::kEntryIterations);
  if (it != entry.end() && it->is_number() &&
      it->get<double>() != p.Get(r::kDistinctKeys)) {
    return Name(r::kDistinctKeys) + " " + Sig(p.Get(r::kDistinctKeys), 12) +
           " differs from the " + Sig(it->get<double>(), 12) +
           " scans made (iterations)";
  }
  return "";
}

// Relative tolerance of figures bench derives from one another.
constexpr double kDerivedTolerance = 1e-6;

bool Derived(double got, double want) {
  return std::fabs(got - want) <= kDerivedTolerance * std::fabs(want);
}

// A batch entry's per-key figures follow from its per-call ones
// (RESULTS_FORMAT.md): keys/s and storage reads per key exactly, CPU per
// key at most (the in-flight sampler's own time is taken off); its keys
// are hit keys, all found; its depth figures come together.
std::string BatchInconsistency(const Pass& p, const json& entry) {
  const double b = p.Get(r::kBatchSize);
  if (!(b >= 1) || b != std::floor(b)) {
    return Name(r::kBatchSize) + " " + Sig(b, 6) +
           " is not a whole number >= 1";
  }
  const double keys = p.Get(r::kKeysPerS);
  if (!Derived(keys, p.Get(r::kReadsPerS) * b)) {
    return Name(r::kKeysPerS) + " " + Sig(keys, 6) + " is not " +
           Name(r::kReadsPerS) + " x " + Name(r::kBatchSize) + " (" +
           Sig(p.Get(r::kReadsPerS) * b, 6) + ")";
  }
  if (p.Get(r::kFoundFraction) != 1) {
    return Name(r::kFoundFraction) + " is " + Sig(p.Get(r::kFoundFraction), 6) +
           " on a batch of hit keys (must be 1)";
  }
  auto it = entry.find(r::kEntryIterations);
  if (it != entry.end() && it->is_number() &&
      it->get<double>() * b != p.Get(r::kDistinctKeys)) {
    return Name(r::kDistinctKeys) + " " + Sig(p.Get(r::kDistinctKeys), 12) +
           " is not the " + Sig(it->get<double>(), 12) +
           " calls made (iterations) x " + Name(r::kBatchSize);
  }
  const double cpu_key = p.Get(r::kCpuNsPerKey);
  const double cpu_read = p.Get(r::kCpuNsPerRead);
  if (std::isfinite(cpu_key) &&
      !(cpu_key <= cpu_read / b * (1 + kDerivedTolerance))) {
    return Name(r::kCpuNsPerKey) + " " + Sig(cpu_key, 6) + " is above " +
           Name(r::kCpuNsPerRead) + " / " + Name(r::kBatchSize) + " (" +
           Sig(cpu_read / b, 6) + ")";
  }
  const double reads_key = p.Get(r::kStorageReadsPerKey);
  const double bytes = p.Get(r::kBytesReadPerRead);
  if (std::isfinite(reads_key) != std::isfinite(bytes) ||
      (std::isfinite(reads_key) && !Derived(reads_key, bytes / 4096 / b))) {
    return Name(r::kStorageReadsPerKey) + " " + Sig(reads_key, 6) + " is not " +
           Name(r::kBytesReadPerRead) + " / 4096 / " + Name(r::kBatchSize) +
           " (" + Sig(bytes / 4096 / b, 6) + ")";
  }
  const double dmax = p.Get(r::kIoDepthMax), dmean = p.Get(r::kIoDepthMean);
  const double source = p.Get(r::kIoDepthSource);
  if (std::isfinite(dmax) != std::isfinite(dmean) ||
      std::isfinite(dmax) != std::isfinite(source)) {
    return Name(r::kIoDepthMax) + ", " + Name(r::kIoDepthMean) + " and " +
           Name(r::kIoDepthSource) + " are not all present or all absent";
  }
  if (std::isfinite(dmax) && dmean > dmax * (1 + kDerivedTolerance)) {
    return Name(r::kIoDepthMean) + " " + Sig(dmean, 6) + " is above " +
           Name(r::kIoDepthMax) + " " + Sig(dmax, 6);
  }
  const double dev = p.Get(r::kBatchDeviceReadsPerS);
  const double eff = p.Get(r::kBatchIoEfficiency);
  if (std::isfinite(dev) && !r::IsColdMode(p.cell.mode)) {
    return Name(r::kBatchDeviceReadsPerS) + " on a " + p.cell.mode +
           " pass (device cells are measured in cold modes only)";
  }
  if (std::isfinite(dev) != std::isfinite(eff) ||
      (std::isfinite(eff) && !Derived(eff * dev, keys))) {
    return Name(r::kBatchIoEfficiency) + " " + Sig(eff, 6) + " is not " +
           Name(r::kKeysPerS) + " / " + Name(r::kBatchDeviceReadsPerS) + " (" +
           Sig(keys, 6) + " / " + Sig(dev, 6) + ")";
  }
  return "";
}

// A writing entry's arrays: objects whose fields are finite numbers >= 0.
std::string ReadWritingArrays(const json& entry, Pass* pass) {
  if (pass->cell.kind != r::kKindWriting) return "";
  const std::pair<std::string_view, json*> arrays[] = {
      {r::kEntryReadSeries, &pass->series},
      {r::kEntryMergeWindows, &pass->windows}};
  for (const auto& [field, out] : arrays) {
    const std::string name(field);
    auto it = entry.find(name);
    if (it == entry.end()) return name + " is missing";
    if (!it->is_array()) return name + " is not an array";
    for (const json& item : *it) {
      if (!item.is_object()) return name + " holds a non-object";
      for (const auto& [k, v] : item.items()) {
        if (!v.is_number() || !std::isfinite(v.get<double>()) ||
            v.get<double>() < 0) {
          return name + "." + k + " is not a number >= 0";
        }
      }
    }
    *out = *it;
  }
  return "";
}

// A writing pass's block times are percentiles of one set, and its wrong
// answers are among its checks.
std::string WritingInconsistency(const Pass& p) {
  const double p50 = p.Get(r::kBlockP50Ns);
  const double p99 = p.Get(r::kBlockP99Ns);
  const double max = p.Get(r::kBlockMaxNs);
  if (!(p50 <= p99 && p99 <= max)) {
    return Name(r::kBlockP50Ns) + ", " + Name(r::kBlockP99Ns) + " and " +
           Name(r::kBlockMaxNs) + " (" + Sig(p50, 4) + ", " + Sig(p99, 4) +
           ", " + Sig(max, 4) + ") are out of order";
  }
  if (p.Get(r::kChecksWrong) > p.Get(r::kChecksDone)) {
    return Name(r::kChecksWrong) + " is above " + Name(r::kChecksDone);
  }
  return "";
}

// The checks between counters of one entry: figures that cannot all be
// true at once. Returns "" or the problem, naming the counter.
std::string Inconsistency(const Pass& p, const json& entry) {
  const double threads = p.Get(r::kThreads);
  if (threads != p.cell.threads) {
    return std::string(r::kThreads.name) + " is " + Sig(threads, 6) +
           " but the name says threads:" + std::to_string(p.cell.threads);
  }
  if (p.Get(r::kRepetition) != p.rep) {
    return std::string(r::kRepetition.name) + " is " +
           Sig(p.Get(r::kRepetition), 6) +
           " but the name says rep:" + std::to_string(p.rep);
  }
  const double rate = p.Get(r::kReadsPerS);
  if (rate > kMaxReadsPerSPerThread * p.cell.threads) {
    return std::string(r::kReadsPerS.name) + " " + Sig(rate, 4) +
           " is above the physical bound of " + Sig(kMaxReadsPerSPerThread, 3) +
           " per thread";
  }
  // Percentiles never fall as the rank rises; name the one that did.
  const r::Counter* lat[] = {&r::kLatP50Ns, &r::kLatP99Ns, &r::kLatP999Ns};
  for (int i = 1; i < 3; ++i) {
    if (p.Get(*lat[i]) < p.Get(*lat[i - 1])) {
      return std::string(lat[i]->name) + " " + Sig(p.Get(*lat[i]), 4) +
             " is below " + std::string(lat[i - 1]->name) + " " +
             Sig(p.Get(*lat[i - 1]), 4) + " (percentiles out of order)";
    }
  }
  if (p.Get(r::kPeakInflight) > p.cell.threads) {
    return std::string(r::kPeakInflight.name) + " " +
           Sig(p.Get(r::kPeakInflight), 6) + " is above the thread count";
  }
  // The mean is the time average of the count whose maximum is the peak.
  const double mean = p.Get(r::kMeanInflight);
  const double peak = p.Get(r::kPeakInflight);
  if (mean > peak * (1 + kDerivedTolerance)) {
    return Name(r::kMeanInflight) + " " + Sig(mean, 6) + " is above " +
           Name(r::kPeakInflight) + " " + Sig(peak, 6) +
           " (within one pass the mean cannot exceed the peak)";
  }
  // The efficiency is the quotient of two figures on the same entry.
  const double eff = p.Get(r::kIoEfficiency);
  const double device = p.Get(r::kDeviceReadsPerS);
  if (std::isfinite(eff) != std::isfinite(device) ||
      (std::isfinite(eff) && std::fabs(eff * device - rate) > 1e-6 * rate)) {
    return std::string(r::kIoEfficiency.name) + " " + Sig(eff, 6) +
           " is not reads_per_s / " + std::string(r::kDeviceReadsPerS.name) +
           " (" + Sig(rate, 6) + " / " + Sig(device, 6) + ")";
  }
  const std::string bound = StorageBoundInconsistency(p);
  if (!bound.empty()) return bound;
  if (p.cell.kind == r::kKindDevice) return "";
  if (p.cell.kind == r::kKindStartup) return StartupInconsistency(p);
  if (p.cell.kind == r::kKindScan) return ScanInconsistency(p, entry);
  if (p.cell.kind == r::kKindBatch) return BatchInconsistency(p, entry);
  if (p.cell.kind == r::kKindWriting) return WritingInconsistency(p);
  // Hits find every key they read, misses none: anything else means the
  // counts of reads made and reads found do not add up.
  const double found = p.Get(r::kFoundFraction);
  const double want = p.cell.kind == r::kKindHit ? 1.0 : 0.0;
  if (found != want) {
    return std::string(r::kFoundFraction.name) + " is " + Sig(found, 6) +
           " on a " + p.cell.kind + " pass (must be " + Sig(want, 1) + ")";
  }
  auto it = entry.find(r::kEntryIterations);
  if (it != entry.end() && it->is_number() &&
      it->get<double>() != p.Get(r::kDistinctKeys)) {
    return std::string(r::kDistinctKeys.name) + " " +
           Sig(p.Get(r::kDistinctKeys), 12) + " differs from the " +
           Sig(it->get<double>(), 12) + " reads made (iterations)";
  }
  return "";
}

// The backend's own counts per read (RESULTS_FORMAT.md, "Backend
// counters"): each key a contract name, each value a count, and no level
// or total with more false positives than probes.
std::string ReadBackendCounters(const json& entry, Pass* pass) {
  auto it = entry.find(r::kEntryBackendCounters);
  const std::string field(r::kEntryBackendCounters);
  if (it == entry.end()) return "";
  if (!it->is_object()) return field + " is not an object";
  for (const auto& [key, value] : it->items()) {
    if (!r::ParseBackendCounterKey(key)) {
      return field + " names '" + key + "', not a backend counter";
    }
    if (!value.is_number()) return field + "." + key + " is not a number";
    const double v = value.get<double>();
    std::string problem = CounterProblem(v, r::Type::kCount);
    if (!problem.empty()) return field + "." + key + " " + problem;
    pass->backend_counters[key] = v;
  }
  const std::string fp(r::kFilterFalsePositives.name);
  const std::string probes(r::kFilterProbes.name);
  for (const auto& [key, v] : pass->backend_counters) {
    if (key.size() < fp.size() ||
        key.compare(key.size() - fp.size(), fp.size(), fp) != 0) {
      continue;
    }
    const std::string probe_key =
        key.substr(0, key.size() - fp.size()) + probes;
    auto p = pass->backend_counters.find(probe_key);
    const double n = p == pass->backend_counters.end() ? 0 : p->second;
    if (v > n * (1 + 1e-9)) {
      return field + "." + key + " " + Sig(v, 6) + " is above " + probe_key +
             " " + Sig(n, 6) + " (a false positive is a probe)";
    }
  }
  return "";
}

}  // namespace

CounterValues::CounterValues() : values_(r::AllCounters().size(), NAN) {}

double CounterValues::Get(std::string_view name) const {
  std::optional<size_t> i = r::CounterIndex(name);
  return i ? values_[*i] : NAN;
}

double& CounterValues::operator[](std::string_view name) {
  std::optional<size_t> i = r::CounterIndex(name);
  if (!i) {
    throw std::out_of_range("not a results counter: " + std::string(name));
  }
  return values_[*i];
}

double Pass::Get(const r::Counter& counter) const {
  return counters.Get(counter.name);
}

std::string Pass::Name() const {
  return cell.Name() + "/rep:" + std::to_string(rep);
}

Status CheckContextValue(const json& v, r::Type type,
                         const std::string& where) {
  bool ok = false;
  switch (type) {
    case r::Type::kText:
      ok = v.is_string() && !v.get<std::string>().empty();
      break;
    case r::Type::kInteger:
      ok = v.is_number_integer() && v.get<int64_t>() >= 0;
      break;
    case r::Type::kNumber:
      ok = v.is_number() && std::isfinite(v.get<double>());
      break;
    case r::Type::kBool:
      ok = v.is_boolean();
      break;
    case r::Type::kObject:
      ok = v.is_object();
      for (const auto& [k, x] : v.items()) ok = ok && x.is_primitive();
      break;
    case r::Type::kProfile:
      // Its own contract names the key at fault.
      return ParseDeviceProfile(v, where).status();
    default:
      break;
  }
  if (ok) return Status::Ok();
  return Status::Corruption(where + " must be " +
                            std::string(r::TypeName(type)) + ", not " +
                            v.dump().substr(0, 60));
}

Status ReadEntry(const json& b, const std::string& file, Pass* pass) {
  auto bad = [&](const std::string& what) {
    return Status::Corruption("results " + file + ": " + what);
  };
  if (!b.is_object()) return bad("a benchmarks[] entry is not an object");
  auto name_it = b.find(r::kEntryName);
  if (name_it == b.end() || !name_it->is_string()) {
    return bad("a benchmarks[] entry has no name");
  }
  const std::string name = name_it->get<std::string>();
  std::optional<r::CellName> parsed = r::ParseCellName(name);
  if (!parsed) {
    return bad("benchmark '" + name +
               "' is not <backend>/<table>/<kind>/<mode>/threads:N/rep:R");
  }
  pass->cell = {parsed->backend, parsed->table, parsed->kind, parsed->mode,
                parsed->threads};
  pass->rep = parsed->rep;
  pass->file = file;
  auto err = b.find(r::kEntryErrorOccurred);
  if (err != b.end() && err->is_boolean() && err->get<bool>()) {
    pass->error = true;
    auto msg = b.find(r::kEntryErrorMessage);
    pass->error_message = msg != b.end() && msg->is_string()
                              ? msg->get<std::string>()
                              : "error_occurred";
    return Status::Ok();
  }
  // The entry's members by counter, in one walk over its keys rather than a
  // search of the object for each contract counter; then the counters in
  // contract order, so the problem reported first does not depend on the
  // order of the entry's keys.
  const std::span<const r::Counter> all = r::AllCounters();
  std::vector<const json*> member(all.size(), nullptr);
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (std::optional<size_t> i = r::CounterIndex(it.key())) {
      member[*i] = &it.value();
    }
  }
  for (size_t i = 0; i < all.size(); ++i) {
    const r::Counter& c = all[i];
    const json* value = member[i];
    // Built only for an error: every entry reads every counter.
    auto where = [&] {
      return "benchmark '" + name + "' counter " + std::string(c.name);
    };
    if (value == nullptr) {
      if (r::CounterExpected(c, pass->cell.kind, pass->cell.mode)) {
        return bad(where() + " is missing");
      }
      continue;
    }
    if (!value->is_number()) return bad(where() + " is not a number");
    const double v = value->get<double>();
    std::string problem = CounterProblem(v, c.type);
    if (!problem.empty()) {
      return bad(where() + " " + problem + " (" + value->dump() + ")");
    }
    pass->counters.at(i) = v;
  }
  if (std::string problem = ReadBackendCounters(b, pass); !problem.empty()) {
    return bad("benchmark '" + name + "' " + problem);
  }
  if (std::string problem = ReadWritingArrays(b, pass); !problem.empty()) {
    return bad("benchmark '" + name + "' " + problem);
  }
  std::string inconsistent = Inconsistency(*pass, b);
  if (!inconsistent.empty()) {
    return bad("benchmark '" + name + "' counter " + inconsistent);
  }
  return Status::Ok();
}

}  // namespace flatbench::report
