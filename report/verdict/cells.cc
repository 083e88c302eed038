#include "report/verdict/cells.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "report/verdict/efficiency.h"

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

Spread CellStats::Of(const results::Counter& counter) const {
  auto it = counters.find(counter.name);
  return it == counters.end() ? Summarize({}) : it->second;
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
  for (auto& [cell, list] : groups) {
    std::sort(list.begin(), list.end(),
              [](const Pass* a, const Pass* b) { return a->rep < b->rep; });
    CellStats s;
    s.cell = cell;
    s.repetitions = static_cast<int>(list.size());
    s.errors = errors[cell];
    for (const Pass* p : list) {
      const double rate = p->Get(results::kReadsPerS);
      s.reps.push_back(p->rep);
      s.rates.push_back(rate);
      // The parser admits only positive rates, so the cost is finite.
      s.costs.push_back(cell.threads / rate);
    }
    s.reads_per_s = Summarize(s.rates);
    s.cost_per_read_s = Summarize(s.costs);
    std::vector<double> device_side;
    for (const Pass* p : list) device_side.push_back(DeviceSideEfficiency(*p));
    s.device_side = Summarize(std::move(device_side));
    // Summarize leaves out what is not finite, and a counter with no
    // finite value is not kept: most counters are on no pass of a cell.
    std::vector<double> v;
    const std::span<const results::Counter> all = results::AllCounters();
    for (size_t i = 0; i < all.size(); ++i) {
      v.clear();
      for (const Pass* p : list) {
        const double x = p->counters.at(i);
        if (std::isfinite(x)) v.push_back(x);
      }
      if (!v.empty()) s.counters[all[i].name] = Summarize(v);
    }
    out.emplace(cell, std::move(s));
  }
  return out;
}

const CellStats* MeasuredCell(const std::map<CellKey, CellStats>& cells,
                              const CellKey& key) {
  auto it = cells.find(key);
  if (it == cells.end() || it->second.repetitions == 0) return nullptr;
  return &it->second;
}

}  // namespace flatbench::report
