#pragma once
// Internal to the prediction's structural sections (structural_section.cc,
// holdout_section.cc): the helpers both use, defined in
// structural_parts.cc.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "report/document/document.h"
#include "report/interval.h"
#include "report/prediction/model.h"
#include "report/prediction/structural.h"
#include "report/prediction/sweep_input.h"
#include "report/thresholds.h"

namespace flatbench::report::structural {

using Style = TableCell::Style;

// "1 thread", "8 threads".
std::string Threads(int t);
// A signed percentage: "+3.2%", "-1.0%".
std::string Signed(double fraction);
// Median reads/s of a cold cell, NaN when absent.
double MeasuredRate(const ResultSet& rs, const std::string& backend,
                    const std::string& table, const std::string& kind,
                    int threads);
// Median of a counter over a backend's cold hit passes at `threads`
// (positive values only), NaN when absent.
double MedianCounter(const ResultSet& rs, const std::string& backend,
                     const std::string& table, int threads,
                     const results::Counter& counter);
// The backends of a run that the candidate's checks apply to: the
// candidate and each of its read-path variants ("arena+cache").
std::vector<std::string> Variants(const SweepInput& sweep,
                                  const std::string& candidate);
// The candidate's variants, then every check's baseline.
std::vector<std::string> WithBaselines(std::vector<std::string> backends,
                                       const Thresholds& th);

// Every gated (check, table, kind, threads) cell.
struct GatedCell {
  const RatioThreshold* check;
  std::string table, kind;
  int threads;
};
std::vector<GatedCell> GatedCells(const Thresholds& th);

// The check's ratio from two rates (hit: candidate / baseline; miss cost:
// baseline / candidate), with the interval of the two rates' intervals.
struct RatioValue {
  double ratio = 0;
  Interval interval;
};
RatioValue CheckRatio(const RatioThreshold& th, const RatePrediction& cand,
                      const RatePrediction& base);
// "predicted to pass", "predicted to fail" or "interval holds the bound",
// and its style.
std::string OutlookOf(const RatioThreshold& th, const Interval& iv,
                      Style* style);
// The size's reads per pass (0 when not recorded).
uint64_t ReadsPerPass(const SweepSize& s);

// One size's predictions: per backend and cell, with c from
// `calibration`'s one-thread passes (CpuPerRead: measured where they carry
// the counter, else the residual).
struct Predictor {
  const DeviceProfile& profile;
  const SweepSize& calibration;
  uint64_t ram_bytes;
  // The profile of the device `calibration` was measured on, when it is
  // known: c is moved to `profile`'s device (OnDevice).
  const DeviceProfile* measured_on = nullptr;

  // c of the cell, on `profile`'s device; passes == 0 when there is none.
  CpuCost Cpu(const IoShape& shape, const std::string& backend,
              const std::string& table, const std::string& kind,
              int threads) const {
    CpuCost c = CpuPerRead(calibration.results, backend, table, kind,
                           shape.unit_pages, profile, threads);
    if (c.passes == 0) return c;
    if (measured_on == nullptr) {
      // The host's other CPU was measured on a device no profile
      // describes: how much of it was that device's own work is unknown,
      // so `profile`'s device prices its own alone.
      c.host = std::numeric_limits<double>::quiet_NaN();
      return c;
    }
    return OnDevice(c, shape, threads, *measured_on, profile);
  }

  // False when the backend has no geometry or the table is unknown.
  bool Shape(const std::map<std::string, BackendGeometry>& geometry,
             const std::string& backend, const std::string& table,
             const std::string& kind, uint64_t reads_per_pass,
             IoShape* shape) const {
    auto g = geometry.find(GeometryBackend(backend));
    if (g == geometry.end()) return false;
    flatbench::Table tb;
    if (!flatbench::ParseTable(table, &tb)) return false;
    *shape = ShapeOf(g->second, tb, kind, ram_bytes, reads_per_pass);
    return true;
  }

  // Rate 0 when the backend has no geometry or no calibration passes.
  // `own_latency` as PredictRate's.
  RatePrediction At(const std::map<std::string, BackendGeometry>& geometry,
                    const std::string& backend, const std::string& table,
                    const std::string& kind, int threads,
                    uint64_t reads_per_pass, double own_latency = 0) const {
    IoShape shape;
    if (!Shape(geometry, backend, table, kind, reads_per_pass, &shape)) {
      return {};
    }
    const CpuCost cpu = Cpu(shape, backend, table, kind, threads);
    if (cpu.passes == 0) return {};
    return PredictRate(shape, cpu, threads, profile, own_latency);
  }
};

// Seconds as microseconds: "88.4 µs".
std::string Us(double seconds);
// c per backend and (table, kind) of each calibration size: its source,
// its warm part and cold extra where measured, and the residual beside it.
Table CpuTable(const std::vector<const SweepSize*>& sizes,
               const std::vector<std::string>& backends,
               const Thresholds& thresholds, const DeviceProfile& profile);

}  // namespace flatbench::report::structural
