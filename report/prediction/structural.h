#pragma once
// The structural prediction: each backend's reads/s in a cold cell from
// the structure of its reads and the device that serves them, not from a
// trend. Inputs:
//
//   geometry   the geometric model's 4 KiB pages per read (model.h) and the
//              pages one data unit spans, so a read costs
//              ops = pages / unit pages storage reads of unit pages x 4 KiB
//              (RocksDB's 6-10 KB blocks: one read of 8-12 KiB; an arena
//              block or LMDB page: one 4 KiB read);
//   CPU        c, the time per read that is not waiting on the device, per
//              (backend, table, kind, threads): where the passes carry
//              cpu_ns_per_read (the worker's CPU time over the pass / its
//              reads, RESULTS_FORMAT.md), the median of the cold passes'
//              at the cell's own thread count (at one thread when the run
//              has none at that count) -- the CPU of the read itself and
//              of the cold read's page fault or syscall, which at one
//              thread also pays a sleep and a wake-up per read that many
//              threads share (RESEARCH.md section 10, "CPU per read at
//              each thread count") -- split into its warm part (the warm
//              passes' median at the same count, when the run has warm
//              cells) and the cold extra (the difference). For results
//              without that counter, calibrated instead as a residual:
//              each one-thread cold pass's 1 / reads_per_s less its
//              measured storage reads priced at the latency of its own
//              files' adjacent device cell (the same table's hit device
//              cell for misses; the profile where the run had no device
//              cells);
//   device     the device profile (common/device_profile.h): mean latency
//              L(q, s) at queue depth q and read size s, interpolated
//              linearly in size and in log2(depth).
//
// T threads each wait for one read at a time: a closed system of T
// readers and two stations, the host's cpus, which every read needs for
// c + o, and the device's delay, which no other read waits for:
//
//   reads/s = ClosedRate(T, c + o, cpus, ops x Z(T, s))
//
// o is the rest of the host's busy CPU per read: measured where the passes
// carry host_cpu_ns_per_read (the median of the same cold passes c comes
// from), everything else the host's cores did per read, the device's own
// work where it runs on them (a loop device's worker) among it, moved to
// the priced device by ops x (h_to - h_from) (OnDevice); otherwise
// o = ops x h(T, s), the device's own work alone: the profile's
// host_cpu_ns_per_read per storage read, 0 for a profile without it and
// about 0 for a device whose work is done outside the host.
//
// Z(T, s) is what the profile's own readers waited per read beyond the
// host's CPU: the delay at which their closed system, T readers each
// spending the profile's cpu_ns_per_read + host_cpu_ns_per_read of CPU,
// reads at the profile's rate T / L(T, s) (DeviceDelay). For a profile
// without those figures Z = L. The model thus counts a read's kernel path
// once, in c, not again in L, and prices the wait for a busy CPU: with
// few threads it tends to T / (c + o + ops x Z), with many to
// cpus / (c + o), and below both where they meet (RESEARCH.md section 10,
// "The host's other CPU per read" and "Readers queue for the cores").
//
// The interval takes c at the lowest and highest of its passes and L at
// the device profile's fastest and slowest round (mean latency scaled by
// the round's rate against the cell's), together, so it holds both spreads
// at once.

#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/device_profile.h"
#include "common/status.h"
#include "report/closed_rate.h"
#include "report/interval.h"
#include "report/prediction/model.h"
#include "report/run_data.h"

namespace flatbench::report {

// How one read of a cell uses the device, from the geometric model.
struct IoShape {
  double pages = 0;       // 4 KiB pages read from storage per read.
  double unit_pages = 1;  // Pages one data unit read spans.
  double Ops() const { return pages / unit_pages; }
  double ReadBytes() const { return unit_pages * kPageBytes; }
};
IoShape ShapeOf(const BackendGeometry& g, flatbench::Table table,
                const std::string& kind, uint64_t ram_bytes,
                uint64_t reads_per_pass);

// c of one (backend, table, kind): seconds per read not spent waiting on
// the device; mid is the median over its passes, low and high the least
// and greatest.
struct CpuCost {
  double mid = 0, low = 0, high = 0;
  int passes = 0;
  // kMeasured: from the passes' cpu_ns_per_read; kResidual: what the
  // device did not take of each pass's time per read.
  enum class Source { kMeasured, kResidual } source = Source::kResidual;
  // kMeasured only: the median CPU per read of the cell's one-thread warm
  // passes (NaN when the run has none), and their count. mid - warm is the
  // cold read's extra: its page fault or read syscall.
  double warm = std::numeric_limits<double>::quiet_NaN();
  int warm_passes = 0;
  // kMeasured only: the thread count of the passes c came from (the one
  // asked for, or 1 when the run has none at that count).
  int threads = 1;
  // kMeasured only: o, the median of the same cold passes'
  // host_cpu_ns_per_read in seconds, the rest of the host's busy CPU per
  // read; NaN when they do not carry it (PredictRate then prices the
  // device's own work alone, from the profile).
  double host = std::numeric_limits<double>::quiet_NaN();
  double ColdExtra() const { return mid - warm; }
};
// c measured: from `rs`'s cold passes of the cell at `threads` that carry
// cpu_ns_per_read (at one thread when none at `threads` does), with the
// warm part from its warm passes at the same count. passes == 0 when none
// carries it.
CpuCost MeasuredCpu(const ResultSet& rs, const std::string& backend,
                    const std::string& table, const std::string& kind,
                    int threads = 1);
// c as a residual, from `rs`'s one-thread cold passes of the cell;
// unit_pages prices their measured bytes read. passes == 0 when the run
// has none.
CpuCost CalibrateCpu(const ResultSet& rs, const std::string& backend,
                     const std::string& table, const std::string& kind,
                     double unit_pages, const DeviceProfile& profile);
// MeasuredCpu at `threads` where the passes carry the counter, else
// CalibrateCpu (one thread).
CpuCost CpuPerRead(const ResultSet& rs, const std::string& backend,
                   const std::string& table, const std::string& kind,
                   double unit_pages, const DeviceProfile& profile,
                   int threads = 1);

// c measured on the device of profile `from`, for a read on the device of
// profile `to`: each of the read's storage reads spends `from`'s kernel
// read path CPU (the profiles' cpu_ns_per_read at the same depth and read
// size) in c; on `to` it spends `to`'s instead. c (mid, low, high) moves by
// ops x (to's - from's), not below 0. Unchanged when either profile lacks
// the figure (RESEARCH.md section 10, "CPU per read on another device").
// The host's other CPU per read, o, moves the same way by the device's own
// work on the host's cores: ops x (to's host_cpu_ns_per_read - from's),
// each 0 where its profile lacks it, not below 0.
CpuCost OnDevice(CpuCost c, const IoShape& shape, int threads,
                 const DeviceProfile& from, const DeviceProfile& to);

// The delay per read at which `threads` readers spending `reader_cpu` +
// `host_cpu` seconds of the host's `cpus` per read (NaN counts as 0) read
// at threads / `latency`: a device profile cell's time beyond CPU. 0 when
// even no delay is too slow; `latency` when the rate is not finite.
double DeviceDelay(int threads, double latency, double reader_cpu,
                   double host_cpu, double cpus);

// o of a read, seconds: cpu.host where measured, else ops x the profile's
// host_cpu_ns_per_read at `threads` and the read's size (0 without it).
double HostCpuPerRead(const IoShape& shape, const CpuCost& cpu, int threads,
                      const DeviceProfile& profile);

struct RatePrediction {
  double rate = 0;
  Interval interval;       // low <= rate <= high.
  bool cpu_bound = false;  // cpus / c is the lower of the two bounds.
};
// `own_latency` > 0: the mean latency (seconds) of a 4 KiB read at this
// depth on the backend's own files (T / its device cells' reads/s), used in
// place of the profile's, which then only scales it to the read size; the
// interval then holds c's spread alone.
RatePrediction PredictRate(const IoShape& shape, const CpuCost& cpu,
                           int threads, const DeviceProfile& profile,
                           double own_latency = 0);

// The backend whose geometry a read-path variant uses: "arena+cache" ->
// "arena".
std::string GeometryBackend(const std::string& backend);

}  // namespace flatbench::report
