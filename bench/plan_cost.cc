#include "bench/plan_cost.h"

#include <algorithm>
#include <cmath>

#include "dataset/backend_facts.h"
#include "dataset/names.h"

namespace flatbench::bench {
namespace {

// Pages a pass reads when it asks for `reads` pages spread uniformly over
// a table of `pages`: those already read are not read again.
double DistinctPages(double reads, double pages) {
  if (pages <= 0 || reads <= 0) return std::max(0.0, reads);
  return pages * -std::expm1(-reads / pages);
}

// The pages of `table` in a backend of `disk_bytes`: its share of the raw
// bytes (dataset/estimate.h's figures: 100.625 bytes an account pair, 84 a
// storage pair).
double TablePages(const dataset::Spec& spec, Table table, uint64_t disk_bytes) {
  const double account = static_cast<double>(spec.accounts) * 100.625;
  const double storage = static_cast<double>(spec.storage_slots()) * 84;
  if (account + storage <= 0) return 0;
  const double share =
      (table == Table::kAccount ? account : storage) / (account + storage);
  return share * static_cast<double>(disk_bytes) / 4096;
}

double Pairs(const dataset::Spec& spec) {
  return static_cast<double>(spec.accounts + spec.storage_slots());
}

double EvictSeconds(const BackendFacts& facts, const BackendCost& cost,
                    const HostCost& host, bool drop_caches) {
  const double files = static_cast<double>(facts.files);
  // The eviction, then its residency check.
  return (drop_caches ? host.drop_caches_s
                      : host.fadvise_s + files * cost.per_file_s) +
         files * cost.per_file_s;
}

// A cold pass's own reads: the pages it reads at the device's rate for its
// depth, or its CPU over the cores, whichever is longer.
double ColdPassSeconds(const Step& step, const dataset::Spec& spec,
                       const BackendFacts& facts, const BackendCost& cost,
                       const HostCost& host) {
  const bool batch = step.cell.op == Op::kBatch;
  const double keys_per_op = batch ? static_cast<double>(step.batch_size) : 1;
  const double threads = static_cast<double>(step.cell.threads);
  const double ops = threads * static_cast<double>(step.reads_per_thread);
  const double keys = ops * keys_per_op;
  double asked = 0;
  if (step.cell.op == Op::kScan) {
    asked = ops * cost.scan_reads;
  } else {
    asked = keys * (step.cell.kind == datagen::KeyKind::kHit ? cost.hit_reads
                                                             : cost.miss_reads);
  }
  const double pages =
      DistinctPages(asked, TablePages(spec, step.cell.table, facts.disk_bytes));
  const double io = pages / host.ReadsPerS(threads * keys_per_op);
  const double cpu = keys * cost.cpu_read_s /
                     std::min<double>(threads, std::max(1, host.cores));
  return std::max(io, cpu);
}

double WarmPassSeconds(const Step& step, const BackendCost& cost,
                       const HostCost& host) {
  const double keys_per_op =
      step.cell.op == Op::kBatch ? static_cast<double>(step.batch_size) : 1;
  const double threads = static_cast<double>(step.cell.threads);
  const double per_op = step.cell.op == Op::kScan ? 10 : keys_per_op;
  return threads * static_cast<double>(step.reads_per_thread) * per_op *
         cost.warm_read_s / std::min<double>(threads, std::max(1, host.cores));
}

}  // namespace

BackendCost CostOf(const std::string& backend) {
  const dataset::BackendFacts* f =
      dataset::FindFacts(dataset::StoreOf(backend));
  if (f != nullptr && f->is_store()) return f->cost;
  BackendCost slowest{0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (const dataset::BackendFacts* store : dataset::kStoreFacts) {
    const BackendCost& c = store->cost;
    slowest.open_s = std::max(slowest.open_s, c.open_s);
    slowest.open_s_per_pair =
        std::max(slowest.open_s_per_pair, c.open_s_per_pair);
    slowest.hit_reads = std::max(slowest.hit_reads, c.hit_reads);
    slowest.miss_reads = std::max(slowest.miss_reads, c.miss_reads);
    slowest.cpu_read_s = std::max(slowest.cpu_read_s, c.cpu_read_s);
    slowest.warm_read_s = std::max(slowest.warm_read_s, c.warm_read_s);
    slowest.scan_reads = std::max(slowest.scan_reads, c.scan_reads);
    slowest.probe_s = std::max(slowest.probe_s, c.probe_s);
    slowest.per_file_s = std::max(slowest.per_file_s, c.per_file_s);
  }
  return slowest;
}

double DropCachesSeconds(uint64_t cached_inodes) {
  // Measured on this project's VM (RESEARCH.md section 6): 0.45 s with
  // 3.37M inodes cached, under 0.01 s with 1,650.
  constexpr double kFixedS = 0.01, kPerInodeS = 1.3e-7;
  return kFixedS + kPerInodeS * static_cast<double>(cached_inodes);
}

double HostCost::ReadsPerS(double depth) const {
  if (device.empty()) return 1;
  const double d = std::max(1.0, depth);
  auto latency = [](const DeviceRate& r) {
    return static_cast<double>(r.depth) / std::max(r.reads_per_s, 1e-9);
  };
  if (d <= device.front().depth) return device.front().reads_per_s;
  if (d >= device.back().depth) return device.back().reads_per_s;
  for (size_t i = 1; i < device.size(); ++i) {
    const DeviceRate& lo = device[i - 1];
    const DeviceRate& hi = device[i];
    if (d > hi.depth) continue;
    const double f = (std::log2(d) - std::log2(lo.depth)) /
                     (std::log2(hi.depth) - std::log2(lo.depth));
    return d / (latency(lo) + f * (latency(hi) - latency(lo)));
  }
  return device.back().reads_per_s;
}

HostCost HostCostFromProfile(const DeviceProfile& profile, HostCost base) {
  HostCost h = base;
  h.cores = std::max(1, profile.cpus);
  std::vector<int> depths;
  for (const DeviceProfileCell& c : profile.cells) depths.push_back(c.depth);
  std::sort(depths.begin(), depths.end());
  depths.erase(std::unique(depths.begin(), depths.end()), depths.end());
  h.device.clear();
  for (int d : depths) h.device.push_back({d, profile.ReadsPerS(d, 4096)});
  if (h.device.empty()) h.device = base.device;
  return h;
}

// The writing step's assumed rates (no calibration reads them yet): a
// store copied or merged at 200 MB/s, and blocks applied at 200 a second.
constexpr double kWritingCopyBytesPerS = 200e6;
constexpr double kWritingBlocksPerS = 200;

double EstimateStep(const Step& step, const dataset::Spec& spec,
                    const BackendFacts& facts, const BackendCost& cost,
                    const HostCost& host, bool drop_caches) {
  const bool cold = IsCold(step.mode);
  const double files = static_cast<double>(facts.files);
  // The request, and the residency check before the pass.
  double s = host.step_s + files * cost.per_file_s;
  if (step.cell.op == Op::kStartup) {
    const double probes = static_cast<double>(step.reads_per_thread);
    const double evict =
        cold ? EvictSeconds(facts, cost, host, drop_caches) : 0.0;
    return s + probes * (evict + cost.probe_s);
  }
  if (step.cell.op == Op::kWriting) {
    // The store copied (a plain copy at kWritingCopyBytesPerS; a reflink
    // is quicker), opened, and read until it has taken its blocks: at
    // least the blocks of one merge at kWritingBlocksPerS, a merge
    // rewriting the store at the copy's rate.
    const double bytes = static_cast<double>(facts.disk_bytes);
    const double blocks = static_cast<double>(step.merge_every);
    s += 2 * bytes / kWritingCopyBytesPerS + cost.open_s +
         blocks / kWritingBlocksPerS;
    return s + (cold ? ColdPassSeconds(step, spec, facts, cost, host)
                     : WarmPassSeconds(step, cost, host));
  }
  if (!cold) return s + WarmPassSeconds(step, cost, host);
  s += EvictSeconds(facts, cost, host, drop_caches);
  if (step.device_reads_per_thread > 0) {
    const double depth = static_cast<double>(step.DeviceThreads());
    s += depth * static_cast<double>(step.device_reads_per_thread) /
         host.ReadsPerS(depth);
  }
  s += cost.open_s;
  if (step.mode == Mode::kCold) s += cost.open_s_per_pair * Pairs(spec);
  return s + ColdPassSeconds(step, spec, facts, cost, host);
}

double WarmBeginSeconds(const BackendFacts& facts, const BackendCost& cost,
                        const dataset::Spec& spec) {
  // Reading the files in (kWarmReadBytesPerS from the device,
  // kResidentReadBytesPerS for what is resident already), holding them,
  // opening, and the warm-up reads: per table at most three per page
  // (worker_state.h).
  const double bytes = static_cast<double>(facts.disk_bytes);
  const double pages = bytes / 4096.0;
  const double keys = Pairs(spec);
  const double warmup = std::min({3 * pages, keys, 400'000.0});
  return bytes * (1 - facts.resident) / kWarmReadBytesPerS +
         bytes * facts.resident / kResidentReadBytesPerS +
         static_cast<double>(facts.files) * cost.per_file_s * 4 + cost.open_s +
         cost.open_s_per_pair * keys + warmup * cost.warm_read_s;
}

double StartSeconds(const dataset::Spec& spec, const BackendFacts& facts,
                    const BackendCost& cost, const HostCost& host,
                    uint64_t samples, bool lazy) {
  const double n = static_cast<double>(samples);
  const double accounts = static_cast<double>(spec.accounts);
  const double slots = static_cast<double>(spec.storage_slots());
  // Per table: its hits, and its misses (account: miss-absent; storage:
  // miss-absent and miss-live), each kind at most `samples` keys.
  const double account_pages = DistinctPages(
      std::min(n, accounts) * cost.hit_reads + n * cost.miss_reads,
      TablePages(spec, Table::kAccount, facts.disk_bytes));
  const double storage_pages =
      slots > 0
          ? DistinctPages(
                std::min(n, slots) * cost.hit_reads + 2 * n * cost.miss_reads,
                TablePages(spec, Table::kStorage, facts.disk_bytes))
          : 0;
  const double keys =
      std::min(n, accounts) + n + (slots > 0 ? std::min(n, slots) + 2 * n : 0);
  // Each open mode reads the same keys: the second finds their pages in
  // the page cache. The check runs before any eviction, so pages resident
  // at the start are read from memory, at a warm read's cost.
  const double cold = 1 - facts.resident;
  const double io = cold * (account_pages + storage_pages) / host.ReadsPerS(1);
  const double open = cost.open_s + cost.open_s_per_pair * Pairs(spec);
  const double per_key =
      facts.resident * cost.warm_read_s + cold * cost.cpu_read_s;
  return cost.probe_s + io + (lazy ? 2 : 1) * (open + keys * per_key);
}

}  // namespace flatbench::bench
