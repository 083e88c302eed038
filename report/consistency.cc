#include "report/consistency.h"

#include <cmath>
#include <map>
#include <optional>

#include "common/results_ops.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

// The integer after " name=" (or at the start) in a spec text, if any.
std::optional<int64_t> SpecCount(const std::string& spec,
                                 const std::string& name) {
  const std::string token = name + "=";
  size_t at = 0;
  while ((at = spec.find(token, at)) != std::string::npos) {
    if (at == 0 || spec[at - 1] == ' ') break;
    at += token.size();
  }
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + token.size();
  size_t end = start;
  while (end < spec.size() && end - start < 18 && spec[end] >= '0' &&
         spec[end] <= '9') {
    ++end;
  }
  if (end == start) return std::nullopt;
  return std::stoll(spec.substr(start, end - start));
}

Status CheckSpecCounts(const ResultSet& rs, const std::string& file) {
  const std::string spec = rs.Context(r::kSpec);
  const std::pair<const char*, const r::ContextKey*> pairs[] = {
      {"accounts", &r::kDatasetAccounts},
      {"slots_per_account", &r::kDatasetSlotsPerAccount}};
  for (const auto& [name, key] : pairs) {
    auto in_spec = SpecCount(spec, name);
    auto counted = rs.Integer(key->name);
    // bench writes both; a spec without a count could pass for any scale
    // that the dataset keys claim, so it is refused, not skipped.
    if (!in_spec) {
      return Status::Corruption(
          "results " + file + ": context " + std::string(r::kSpec.name) + " '" +
          spec.substr(0, 80) + "' states no " + name + "=N, so nothing holds " +
          std::string(key->name) + " to the dataset it describes");
    }
    if (!counted || *in_spec == *counted) continue;
    return Status::Corruption(
        "results " + file + ": context " + std::string(r::kSpec.name) +
        " says " + name + "=" + std::to_string(*in_spec) + " but " +
        std::string(key->name) + " is " + std::to_string(*counted) +
        "; the two describe different datasets");
  }
  return Status::Ok();
}

bool FarApart(double a, double b) {
  return a > kSizeFactor * b + kSizeSlackBytes ||
         b > kSizeFactor * a + kSizeSlackBytes;
}

Status CheckSizes(const ResultSet& rs, const std::string& file) {
  for (const Pass& p : rs.passes) {
    if (p.error) continue;
    const std::string disk_key = r::BackendKey(p.cell.backend, r::kDiskBytes);
    auto disk = rs.Integer(disk_key);
    if (!disk) continue;
    const double on_disk = static_cast<double>(*disk);
    // Built only for an error: every pass is checked.
    auto where = [&] {
      return "results " + file + ": benchmark '" + p.Name() + "' counter ";
    };
    if (p.cell.kind == r::kKindDevice) {
      const double bytes = p.Get(r::kDeviceFileBytes);
      if (std::isfinite(bytes) &&
          bytes > kSizeFactor * on_disk + kSizeSlackBytes) {
        return Status::Corruption(
            where() + std::string(r::kDeviceFileBytes.name) + " " +
            Bytes(bytes) + " is more than context " + disk_key + " " +
            Bytes(on_disk) +
            " allows: the table's files are part of the backend's");
      }
      continue;
    }
    const double pages = p.Get(r::kFilePages);
    if (!std::isfinite(pages)) continue;
    if (FarApart(pages * 4096, on_disk)) {
      return Status::Corruption(
          where() + std::string(r::kFilePages.name) + " " + Count(pages) +
          " (" + Bytes(pages * 4096) + ") disagrees with context " + disk_key +
          " " + Bytes(on_disk) + " (both count " + p.cell.backend +
          "'s files; more than " + Sig(kSizeFactor, 2) + "x apart)");
    }
  }
  return Status::Ok();
}

Status CheckDeviceRates(const ResultSet& rs, const std::string& file) {
  std::map<std::pair<CellKey, int>, double> device;
  for (const Pass& p : rs.passes) {
    if (!p.error && p.cell.kind == r::kKindDevice) {
      device[{p.cell, p.rep}] = p.Get(r::kReadsPerS);
    }
  }
  for (const Pass& p : rs.passes) {
    // A hit copies the device cell at its own threads; a batch the one at
    // batch_size threads (its depth).
    const bool batch = p.cell.kind == r::kKindBatch;
    const r::Counter& counter =
        batch ? r::kBatchDeviceReadsPerS : r::kDeviceReadsPerS;
    const double copied = p.Get(counter);
    if (p.error || (p.cell.kind != r::kKindHit && !batch) ||
        !std::isfinite(copied)) {
      continue;
    }
    CellKey key = p.cell;
    key.kind = std::string(r::kKindDevice);
    if (batch) key.threads = static_cast<int>(p.Get(r::kBatchSize));
    auto it = device.find({key, p.rep});
    if (it == device.end()) continue;
    if (std::fabs(copied - it->second) <= 1e-9 * it->second) continue;
    return Status::Corruption("results " + file + ": benchmark '" + p.Name() +
                              "' counter " + std::string(counter.name) + " " +
                              Sig(copied, 6) + " is not the reads_per_s " +
                              Sig(it->second, 6) +
                              " of its adjacent device cell '" + key.Name() +
                              "/rep:" + std::to_string(p.rep) + "' (" +
                              Ratio(copied / it->second) + "x)");
  }
  return Status::Ok();
}

}  // namespace

Status CheckConsistency(const ResultSet& rs, const std::string& file) {
  FLATBENCH_RETURN_IF_ERROR(CheckSpecCounts(rs, file));
  FLATBENCH_RETURN_IF_ERROR(CheckSizes(rs, file));
  return CheckDeviceRates(rs, file);
}

}  // namespace flatbench::report
