#include "common/device_profile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/files.h"
#include "common/sweep_schema.h"

namespace flatbench {
namespace {

using nlohmann::json;

Status Need(const json& obj, const sweep::Key& k, const std::string& where) {
  auto it = obj.find(std::string(k.name));
  if (it == obj.end()) {
    return Status::Corruption(where + ": missing \"" + std::string(k.name) +
                              "\"");
  }
  bool ok = false;
  switch (k.type) {
    case sweep::Type::kInteger:
      ok = it->is_number_integer() && (it->is_number_unsigned() || *it >= 0);
      break;
    case sweep::Type::kNumber:
      ok = it->is_number() && std::isfinite(it->get<double>());
      break;
    case sweep::Type::kText:
      ok = it->is_string();
      break;
    case sweep::Type::kBool:
      ok = it->is_boolean();
      break;
    case sweep::Type::kArray:
      ok = it->is_array();
      break;
    case sweep::Type::kObject:
      ok = it->is_object();
      break;
  }
  if (!ok) {
    return Status::Corruption(where + ": \"" + std::string(k.name) +
                              "\" is not " + sweep::TypeName(k.type));
  }
  return Status::Ok();
}

// One message per condition, each naming the key at fault and its value.
Status CheckCell(const DeviceProfileCell& cell, const json& c,
                 const std::string& at) {
  auto bad = [&](const sweep::Key& k, const std::string& why) {
    return Status::Corruption(at + ": \"" + std::string(k.name) + "\" is " +
                              c[k.name].dump() + ", " + why);
  };
  if (!(cell.reads_per_s > 0)) {
    return bad(sweep::kCellReadsPerS, "must be above 0");
  }
  if (!(cell.lat_mean_ns > 0)) {
    return bad(sweep::kCellLatMean, "must be above 0");
  }
  if (!(cell.reads_per_s_low > 0)) {
    return bad(sweep::kCellReadsPerSLow, "must be above 0");
  }
  if (cell.reads_per_s_low > cell.reads_per_s) {
    return bad(sweep::kCellReadsPerSLow,
               "above \"" + std::string(sweep::kCellReadsPerS.name) + "\" " +
                   c[sweep::kCellReadsPerS.name].dump());
  }
  if (cell.reads_per_s_high < cell.reads_per_s) {
    return bad(sweep::kCellReadsPerSHigh,
               "below \"" + std::string(sweep::kCellReadsPerS.name) + "\" " +
                   c[sweep::kCellReadsPerS.name].dump());
  }
  return Status::Ok();
}

// Linear interpolation of f over ascending xs, clamped at the ends.
template <typename F>
double Interpolate(const std::vector<double>& xs, double x, F f) {
  if (x <= xs.front()) return f(xs.front());
  if (x >= xs.back()) return f(xs.back());
  for (size_t i = 1; i < xs.size(); ++i) {
    if (x <= xs[i]) {
      const double w = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
      return (1 - w) * f(xs[i - 1]) + w * f(xs[i]);
    }
  }
  return f(xs.back());
}

}  // namespace

double DeviceProfile::LatencySeconds(double depth, double bytes,
                                     Bound b) const {
  std::vector<double> depths, sizes;
  for (const auto& c : cells) {
    if (std::find(depths.begin(), depths.end(), std::log2(c.depth)) ==
        depths.end())
      depths.push_back(std::log2(c.depth));
    if (std::find(sizes.begin(), sizes.end(), c.read_bytes) == sizes.end())
      sizes.push_back(c.read_bytes);
  }
  std::sort(depths.begin(), depths.end());
  std::sort(sizes.begin(), sizes.end());
  auto at = [&](double log_depth, double size) {
    for (const auto& c : cells) {
      if (std::log2(c.depth) == log_depth && c.read_bytes == size) {
        const double scale =
            b == Bound::kFast   ? c.reads_per_s / c.reads_per_s_high
            : b == Bound::kSlow ? c.reads_per_s / c.reads_per_s_low
                                : 1.0;
        return c.lat_mean_ns * 1e-9 * scale;
      }
    }
    return std::numeric_limits<double>::quiet_NaN();
  };
  return Interpolate(depths, std::log2(std::max(1.0, depth)), [&](double d) {
    return Interpolate(sizes, bytes, [&](double s) { return at(d, s); });
  });
}

namespace {

// A per-cell figure (ns per read) interpolated as LatencySeconds, in
// seconds; NaN when a cell lacks it (a profile from before it).
double PerReadSeconds(const std::vector<DeviceProfileCell>& cells,
                      double DeviceProfileCell::*field, double depth,
                      double bytes) {
  std::vector<double> depths, sizes;
  for (const auto& c : cells) {
    if (!std::isfinite(c.*field)) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    if (std::find(depths.begin(), depths.end(), std::log2(c.depth)) ==
        depths.end())
      depths.push_back(std::log2(c.depth));
    if (std::find(sizes.begin(), sizes.end(), c.read_bytes) == sizes.end())
      sizes.push_back(c.read_bytes);
  }
  if (depths.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(depths.begin(), depths.end());
  std::sort(sizes.begin(), sizes.end());
  auto at = [&](double log_depth, double size) {
    for (const auto& c : cells) {
      if (std::log2(c.depth) == log_depth && c.read_bytes == size) {
        return c.*field * 1e-9;
      }
    }
    return std::numeric_limits<double>::quiet_NaN();
  };
  return Interpolate(depths, std::log2(std::max(1.0, depth)), [&](double d) {
    return Interpolate(sizes, bytes, [&](double s) { return at(d, s); });
  });
}

}  // namespace

double DeviceProfile::HostCpuSeconds(double depth, double bytes) const {
  const double h = PerReadSeconds(
      cells, &DeviceProfileCell::host_cpu_ns_per_read, depth, bytes);
  return std::isfinite(h) ? h : 0;
}

double DeviceProfile::CpuSeconds(double depth, double bytes) const {
  return PerReadSeconds(cells, &DeviceProfileCell::cpu_ns_per_read, depth,
                        bytes);
}

Result<DeviceProfile> ParseDeviceProfile(const json& doc,
                                         const std::string& where) {
  if (!doc.is_object()) return Status::Corruption(where + ": not an object");
  for (const auto& k : sweep::kProfileKeys) {
    FLATBENCH_RETURN_IF_ERROR(Need(doc, k, where));
  }
  if (doc[sweep::kProfileVersion.name] != sweep::kDeviceProfileVersion) {
    return Status::Corruption(
        where + ": \"" + std::string(sweep::kProfileVersion.name) +
        "\": format " + doc[sweep::kProfileVersion.name].dump() +
        ", this build reads format " +
        std::to_string(sweep::kDeviceProfileVersion));
  }
  DeviceProfile p;
  p.source = where;
  p.dir = doc[sweep::kProfileDir.name].get<std::string>();
  p.filesystem = doc[sweep::kProfileFilesystem.name].get<std::string>();
  p.measured_at = doc[sweep::kProfileMeasuredAt.name].get<std::string>();
  p.cpus = doc[sweep::kProfileCpus.name].get<int>();
  p.load_average = doc[sweep::kProfileLoadAverage.name].get<double>();
  int i = 0;
  for (const auto& c : doc[sweep::kProfileCells.name]) {
    const std::string at = where + ": cells[" + std::to_string(i++) + "]";
    if (!c.is_object()) return Status::Corruption(at + ": not an object");
    for (const auto& k : sweep::kProfileCellKeys) {
      FLATBENCH_RETURN_IF_ERROR(Need(c, k, at));
    }
    DeviceProfileCell cell;
    cell.depth = c[sweep::kCellQueueDepth.name].get<int>();
    cell.read_bytes = c[sweep::kCellReadBytes.name].get<double>();
    cell.reads_per_s = c[sweep::kCellReadsPerS.name].get<double>();
    cell.reads_per_s_low = c[sweep::kCellReadsPerSLow.name].get<double>();
    cell.reads_per_s_high = c[sweep::kCellReadsPerSHigh.name].get<double>();
    cell.lat_mean_ns = c[sweep::kCellLatMean.name].get<double>();
    cell.lat_p50_ns = c[sweep::kCellLatP50.name].get<double>();
    cell.lat_p99_ns = c[sweep::kCellLatP99.name].get<double>();
    for (const auto& [key, field] :
         {std::pair{sweep::kCellCpuNsPerRead, &cell.cpu_ns_per_read},
          std::pair{sweep::kCellHostCpuNsPerRead,
                    &cell.host_cpu_ns_per_read}}) {
      if (!c.contains(key.name)) continue;
      FLATBENCH_RETURN_IF_ERROR(Need(c, key, at));
      *field = c[key.name].get<double>();
      if (!(*field >= 0) || !std::isfinite(*field)) {
        return Status::Corruption(at + ": \"" + std::string(key.name) +
                                  "\": " + c[key.name].dump() +
                                  " is not a CPU time per read");
      }
    }
    FLATBENCH_RETURN_IF_ERROR(CheckCell(cell, c, at));
    p.cells.push_back(cell);
  }
  for (int d : sweep::kProfileQueueDepths) {
    for (int64_t b : sweep::kProfileReadBytes) {
      const bool has =
          std::any_of(p.cells.begin(), p.cells.end(), [&](const auto& c) {
            return c.depth == d && c.read_bytes == static_cast<double>(b);
          });
      if (!has) {
        return Status::Corruption(
            where + ": \"" + std::string(sweep::kProfileCells.name) +
            "\": no cell for queue depth " + std::to_string(d) + " and " +
            std::to_string(b) + " bytes");
      }
    }
  }
  if (p.cpus < 1) {
    return Status::Corruption(where + ": \"" +
                              std::string(sweep::kProfileCpus.name) + "\" is " +
                              std::to_string(p.cpus) + ", must be at least 1");
  }
  return p;
}

Result<DeviceProfileFile> LoadDeviceProfileFile(const std::string& path) {
  const std::string where = "device profile " + path;
  auto text = ReadSmallFile(path);
  if (!text.ok()) return text.status().WithContext("device profile");
  DeviceProfileFile f;
  f.doc = json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
  if (f.doc.is_discarded())
    return Status::Corruption(where + ": not valid JSON");
  FLATBENCH_ASSIGN_OR_RETURN(f.profile, ParseDeviceProfile(f.doc, where));
  return f;
}

}  // namespace flatbench
