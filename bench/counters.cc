#include "bench/counters.h"

#include <cstdio>

namespace flatbench::bench {
namespace {

constexpr const char* kCounterNames[] = {
    "reads_per_s",
    "lat_mean_ns",
    "lat_p50_ns",
    "lat_p99_ns",
    "lat_p999_ns",
    "lat_sample_every",
    "major_faults_per_read",
    "bytes_read_per_read",
    "resident_fraction_before",
    "eviction_verified",
    "threads",
    "peak_inflight",
    "concurrency_short",
    "distinct_keys",
    "rss_after_open_bytes",
    "rss_after_pass_bytes",
    "open_seconds",
    "metadata_bytes",
    "repetition",
    "found_fraction",
    "file_pages",
};

double PerRead(uint64_t delta, uint64_t reads) {
  return reads ? static_cast<double>(delta) / static_cast<double>(reads) : 0;
}

}  // namespace

const char* const* CounterNames(int* count) {
  *count = static_cast<int>(std::size(kCounterNames));
  return kCounterNames;
}

void AddCounters(const PassResult& pass, const CellFacts& facts,
                 nlohmann::json* entry) {
  nlohmann::json& e = *entry;
  const auto d = [](auto v) { return static_cast<double>(v); };
  e["reads_per_s"] =
      pass.wall_seconds > 0 ? d(pass.reads) / pass.wall_seconds : 0.0;
  e["lat_mean_ns"] = pass.latency.Mean();
  e["lat_p50_ns"] = pass.latency.Percentile(0.50);
  e["lat_p99_ns"] = pass.latency.Percentile(0.99);
  e["lat_p999_ns"] = pass.latency.Percentile(0.999);
  e["lat_sample_every"] = 1.0;  // RunPass times every read.
  e["major_faults_per_read"] =
      PerRead(pass.after.major_faults - pass.before.major_faults, pass.reads);
  e["bytes_read_per_read"] =
      pass.after.read_bytes_known
          ? PerRead(pass.after.read_bytes - pass.before.read_bytes, pass.reads)
          : -1.0;
  e["resident_fraction_before"] = facts.resident_before;
  if (facts.resident_after_pass) {
    e["resident_fraction_after_pass"] = *facts.resident_after_pass;
  }
  if (facts.resident_after_eviction) {
    e["resident_fraction_after_eviction"] = *facts.resident_after_eviction;
  }
  e["eviction_verified"] = facts.eviction_verified ? 1.0 : 0.0;
  e["threads"] = d(facts.threads);
  e["peak_inflight"] = d(pass.peak_inflight);
  e["concurrency_short"] =
      pass.peak_inflight < static_cast<uint64_t>(facts.threads) ? 1.0 : 0.0;
  e["distinct_keys"] = d(facts.distinct_keys);
  e["rss_after_open_bytes"] = d(facts.rss_after_open);
  e["rss_after_pass_bytes"] = d(pass.rss_after_pass);
  e["open_seconds"] = facts.open_seconds;
  e["metadata_bytes"] = d(facts.metadata_bytes);
  e["repetition"] = d(facts.repetition);
  e["file_pages"] = d(facts.file_pages);
  e["found_fraction"] = pass.reads ? d(pass.found) / d(pass.reads) : 0.0;
}

std::string SummaryLine(const nlohmann::json& e) {
  char buf[320];
  const auto num = [&](const char* k) { return e.value(k, 0.0); };
  std::snprintf(buf, sizeof(buf),
                "%s: %.0f reads/s, p50 %.1f us, p99 %.1f us, %.2f faults/read, "
                "%.0f B/read, resident %.1f%%%s, peak in flight %.0f/%.0f%s",
                e.value("name", std::string("?")).c_str(), num("reads_per_s"),
                num("lat_p50_ns") / 1e3, num("lat_p99_ns") / 1e3,
                num("major_faults_per_read"), num("bytes_read_per_read"),
                100 * (e.contains("resident_fraction_after_eviction")
                           ? num("resident_fraction_after_eviction")
                           : num("resident_fraction_before")),
                num("eviction_verified") > 0 ? "" : " (NOT VERIFIED)",
                num("peak_inflight"), num("threads"),
                num("concurrency_short") > 0 ? " (SHORT)" : "");
  return buf;
}

}  // namespace flatbench::bench
