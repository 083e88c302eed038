#pragma once
// The bench plan's cost model: what one step of the schedule costs, in
// seconds, from the costs that dominate it (RESEARCH.md section 6, "The
// bench time model"). With R keys in a pass of T threads (a batch call
// reads B keys, so its depth is T x B), D(d) the host's 4 KiB random reads
// per second at depth d, and P a table's pages:
//
//   every step   step_s (the request, the results, the journal's append)
//                + a residency check (mincore) of every file
//   cold step    + the eviction: drop_caches_s, or fadvise_s and
//                  per_file_s per file by fadvise, and its residency check
//                + the device cell before a hit pass: its reads / D(depth)
//                + the open: open_s + open_s_per_pair x pairs (cold-lazy
//                  preloads nothing: open_s)
//                + the pass: max(I/O, CPU), where I/O = the pages it reads
//                  / D(T x B) and CPU = R x cpu_read_s / min(T, cores); a
//                  pass reads R x hit_reads (or miss_reads) pages, less
//                  those that land on a page it read already:
//                  P (1 - exp(-R x reads / P)); a scan reads scan_reads
//                  pages
//   warm step    + R x warm_read_s / min(T, cores) (a scan: 10 reads)
//   startup      + per probe: probe_s (spawn, open, first read), and in a
//                  cold mode an eviction
// and, once per backend before its first step, its worker's start and
// sanity check (StartSeconds).
//
// Each store's figures are among its facts (dataset/backend_facts.h), the
// host's below; where both were measured: RESEARCH.md section 6. A device
// profile gives another host's device and cores, and this host's last
// results calibrate them (plan_calibration.h).

#include <cstdint>
#include <string>
#include <vector>

#include "bench/schedule.h"
#include "common/device_profile.h"
#include "dataset/backend_facts.h"
#include "dataset/spec.h"

namespace flatbench::bench {

// What one backend's passes cost: its store's facts (dataset/backend_facts.h).
using BackendCost = dataset::PassCost;

// The figures for `backend` (a read variant "B+HOW" costs what B does);
// a backend the table does not know gets the slowest figures.
BackendCost CostOf(const std::string& backend);

// 4 KiB random reads per second at one queue depth.
struct DeviceRate {
  int depth = 1;
  double reads_per_s = 0;
};

// The host's side of the model.
struct HostCost {
  // The device's 4 KiB random reads at each depth measured: this
  // project's VM's device cells (RESEARCH.md section 6).
  std::vector<DeviceRate> device = {{1, 20000}, {8, 67000}, {32, 110000}};
  int cores = 2;          // Threads that run at once.
  double step_s = 0.003;  // A step's request, results and journal.
  // sync and drop_caches, once per cold step: DropCachesSeconds of this
  // host's cached inodes, or this for a host whose count is not known.
  double drop_caches_s = 0.16;
  double fadvise_s = 0.005;  // An eviction by fadvise, beside per_file_s.

  // Reads per second at `depth`: the latency (depth / rate) interpolated
  // in log2(depth) between the depths measured, clamped at both ends.
  double ReadsPerS(double depth) const;
};

// A drop_caches eviction's seconds on a host whose kernel caches
// `cached_inodes` inodes: writing drop_caches walks every cached inode to
// drop its pages, so its time grows with them (a file store of 600,000
// files adds most of 0.1 s to every cold step), beside a fixed sync.
double DropCachesSeconds(uint64_t cached_inodes);

// The host a device profile describes (`flatbench device --out`): its
// cores (the profile's cpus) and its 4 KiB read rate at each depth.
HostCost HostCostFromProfile(const DeviceProfile& profile, HostCost base);

// One backend's facts the plan needs.
struct BackendFacts {
  uint64_t disk_bytes = 0;
  uint64_t files = 0;
  // The share of its files' pages in the page cache when the run starts:
  // its workers' sanity checks and warm begins read those from memory.
  double resident = 0;
};

// The estimated seconds of `step` of a backend with `facts` in a dataset
// of `spec`; eviction by drop_caches or else fadvise.
double EstimateStep(const Step& step, const dataset::Spec& spec,
                    const BackendFacts& facts, const BackendCost& cost,
                    const HostCost& host, bool drop_caches);

// The rate the model reads a backend's files in for warm mode, bytes per
// second (RESEARCH.md section 6, "The bench time model").
inline constexpr double kWarmReadBytesPerS = 200e6;
// The rate at which it maps in pages already in the page cache.
inline constexpr double kResidentReadBytesPerS = 2e9;

// Holding a backend's files resident for warm mode: reading them in (at
// kWarmReadBytesPerS), opening, and its warm-up reads (worker_state.h).
double WarmBeginSeconds(const BackendFacts& facts, const BackendCost& cost,
                        const dataset::Spec& spec);

// A backend's worker start and sanity check, before the run's first step:
// a process start (probe_s), then per open mode checked (cold-lazy's too
// when the run has it) an open and `samples` keys of every table and kind
// at depth 1; the pages those keys read, once (the second mode finds them
// in the page cache), less those read twice, as a cold pass's.
double StartSeconds(const dataset::Spec& spec, const BackendFacts& facts,
                    const BackendCost& cost, const HostCost& host,
                    uint64_t samples, bool lazy);

}  // namespace flatbench::bench
