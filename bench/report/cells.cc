#include "bench/report/cells.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace flatbench::report {

Spread Summarize(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  Spread s;
  if (values.empty()) {
    s.median = s.min = s.max = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  s.n = n;
  s.min = values.front();
  s.max = values.back();
  s.median =
      n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return s;
}

std::map<CellKey, CellStats> SummarizeCells(const std::vector<Pass>& passes) {
  std::map<CellKey, std::vector<const Pass*>> groups;
  std::map<CellKey, int> errors;
  for (const auto& p : passes) {
    if (p.error) {
      ++errors[p.cell];
      groups[p.cell];  // An all-error cell still appears, with 0 reps.
    } else {
      groups[p.cell].push_back(&p);
    }
  }
  std::map<CellKey, CellStats> out;
  for (const auto& [cell, list] : groups) {
    CellStats s;
    s.cell = cell;
    s.repetitions = static_cast<int>(list.size());
    s.errors = errors[cell];
    auto collect = [&](double Pass::*field) {
      std::vector<double> v;
      for (const Pass* p : list) v.push_back(p->*field);
      return Summarize(std::move(v));
    };
    s.reads_per_s = collect(&Pass::reads_per_s);
    std::vector<double> cost;
    for (const Pass* p : list) {
      cost.push_back(p->reads_per_s > 0
                         ? cell.threads / p->reads_per_s
                         : std::numeric_limits<double>::quiet_NaN());
    }
    s.cost_per_read_s = Summarize(std::move(cost));
    s.lat_p50_ns = collect(&Pass::lat_p50_ns);
    s.lat_p99_ns = collect(&Pass::lat_p99_ns);
    s.lat_p999_ns = collect(&Pass::lat_p999_ns);
    s.major_faults_per_read = collect(&Pass::major_faults_per_read);
    s.bytes_read_per_read = collect(&Pass::bytes_read_per_read);
    s.resident_fraction_before = collect(&Pass::resident_fraction_before);
    s.peak_inflight = collect(&Pass::peak_inflight);
    s.rss_after_open_bytes = collect(&Pass::rss_after_open_bytes);
    s.rss_after_pass_bytes = collect(&Pass::rss_after_pass_bytes);
    s.open_seconds = collect(&Pass::open_seconds);
    s.metadata_bytes = collect(&Pass::metadata_bytes);
    out.emplace(cell, std::move(s));
  }
  return out;
}

}  // namespace flatbench::report
