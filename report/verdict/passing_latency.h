#pragma once
// The device at which a hit check passes (RESEARCH.md §7, "The device at
// which each check passes"): the structural model's price of a cold read
// (report/prediction/structural.h) solved for the device's latency, from
// this run's CPU per read and storage reads per hit. Modelled, never
// measured.
//
// With T reader threads, a backend X that spends c_X of CPU per read and
// makes n_X storage reads per hit, on a device whose 4 KiB read takes L at
// depth 1 and g(T) x L at depth T, and a host of `cpus`, the model gives
//
//   R_X(L) = ClosedRate(T, c_X, cpus, n_X g L)
//
// (report/closed_rate.h): T / (c_X + n_X g L) with few threads, cpus / c_X
// with many, below both where they meet. The hit check "candidate A >= k x
// baseline B" passes where R_A(L) / R_B(L) >= k. The ratio is smooth in L,
// from c_B / c_A-like at L = 0 (CPU alone) to n_B / n_A as L grows (the
// device alone), so the latencies that pass are found by stepping through
// L from 1 ns to 1 s, twenty steps a decade, and placing each change by
// bisection: below the crossing when the candidate's CPU advantage carries
// it, above it when its fewer reads per hit do.

#include <string>
#include <vector>

#include "report/run_data.h"
#include "report/verdict/verdict.h"

namespace flatbench::report {

// The terms of one hit check at T threads.
struct LatencyTerms {
  double bound = 0;                            // k.
  int threads = 1;                             // T.
  double cpus = 1;                             // The host's hardware threads.
  double depth_scaling = 1;                    // g(T) = L(T) / L(1).
  double cpu_candidate = 0, cpu_baseline = 0;  // c, seconds per read.
  double reads_candidate = 0, reads_baseline = 0;  // n, per hit.
};

// The model's candidate / baseline reads/s at depth-1 latency `latency_s`.
double ModelRatio(const LatencyTerms& terms, double latency_s);

// A range of depth-1 latencies, in seconds; high may be infinity.
struct LatencyRange {
  double low = 0, high = 0;
};
// Every depth-1 latency (>= 0) at which the check passes, as disjoint
// ranges in ascending order: empty when none does, {0, inf} when every
// one does.
std::vector<LatencyRange> PassingLatencies(const LatencyTerms& terms);

// One hit check of one read path.
struct PassingLatency {
  bool available = false;
  std::string why_not;  // When !available.
  LatencyTerms terms;
  std::vector<LatencyRange> passing;
};

// The check `threshold` at (table, threads) with `candidate` in the
// candidate's place, from `v`'s gate-mode cells: c the median
// cpu_ns_per_read of its cold hit cell at `threads` (at 1 thread when the
// run has none at that count, as the structural model takes it), n its storage
// reads per hit at `threads` (device requests per hit where recorded, else 4
// KiB pages per hit), g(T) from the run's device (DepthScaling), cpus the
// host's hardware threads.
PassingLatency PassingLatencyOf(const Verdict& v, const ResultSet& results,
                                const RatioThreshold& threshold,
                                const std::string& candidate,
                                const std::string& table, int threads);

// "≤ 23.1 µs", "≥ 40.0 µs", "12.0–30.0 µs", "every latency", "none (CPU
// alone: 1.23)", or "– (why)".
std::string PassingLatencyText(const PassingLatency& p);

}  // namespace flatbench::report
