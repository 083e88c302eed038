#pragma once
// The arena's upkeep at full scale, modelled from an aged run's measured
// rates (RESEARCH.md section 11, "The upkeep as a choice"): for a merge
// every M blocks, the delta it holds, what a merge reads and writes and how
// long it takes, the write amplification, the share of the device's write
// bandwidth and the years a drive lasts.
//
// The model, for C changes per block of b bytes each (keys and values) and
// a full-scale base of B bytes:
//   - delta keys: the distinct keys M blocks' changes touch (DistinctKeys);
//     its memory, those keys at b bytes each;
//   - log: every change appended, as a write-ahead log is: M C b bytes;
//   - a merge reads the base and the delta and writes a new base of B
//     bytes (the base held at its full-scale size);
//   - write amplification: (B + M C b) / (M C b) = 1 + B / (M C b), so it
//     equals a store's measured w at M = B / (C b (w - 1));
//   - bytes written per second of chain: (B + M C b) / (12 M).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "dataset/spec.h"

namespace flatbench::report {

// Mainnet's slot time: a block every 12 s.
inline constexpr double kSecondsPerBlock = 12;
// A drive's rated endurance when --drive-tbw is not given: a 2 TB Samsung
// 990 PRO, rated for 1,200 TB written (Samsung's data sheet; RESEARCH.md
// section 11).
inline constexpr double kDefaultDriveTbw = 1200;
// The merge intervals the report prices: 20 min, 3.3 h, a day and a week
// of chain.
inline constexpr uint64_t kUpkeepIntervals[] = {100, 1000, 7200, 50400};

// A figure of a store's shape (results_schema.h kShape), written as a
// number or as text ("engine.*" keys); NaN when absent or not a number.
double ShapeNumber(const nlohmann::json& shape, const std::string& key);

// The stream of a dataset's spec text (flatbench.spec: "... changes=C
// shares=a/n/u/s/d hot=h/a"); nullopt when it names no stream or a field
// does not parse.
std::optional<dataset::StreamSpec> StreamOfSpec(const std::string& spec);

// Expected distinct keys that `blocks` blocks of `stream` change in a
// store of `at`'s counts: new accounts and slots are new keys; updates
// and deletions draw over the live keys, a share hot_share of them over
// the hot set (hot_accounts of the accounts, and their slots) and the rest
// uniformly, and n draws over N keys meet N (1 - e^(-n/N)) distinct ones.
// An update that meets a key the same interval created is not netted out.
double DistinctKeys(const dataset::Spec& at, const dataset::StreamSpec& stream,
                    double blocks);

// What the model starts from: the priced scale and this run's rates.
struct UpkeepInputs {
  dataset::Spec full;            // The scale priced, with the run's stream.
  double base_pairs = 0;         // The full-scale base's pairs.
  double base_bytes = 0;         // Its bytes (the estimated arena size).
  double bytes_per_change = 0;   // Measured: changed bytes over changes.
  double merge_pairs_per_s = 0;  // Measured: the merges' rate.
  // Measured sequential write rate; NaN or 0 when not measured.
  double device_write_bytes_per_s = 0;
  double drive_tbw = kDefaultDriveTbw;  // Rated endurance, 1e12 bytes.

  // The changed (logical) bytes per second of chain.
  double LogicalBytesPerSecond() const;
};

// The full-scale inputs from an aged run: `spec` its flatbench.spec,
// `arena_shape` the arena's aged marker (results_schema.h kShape). Empty
// (and *why set) when a figure the model needs is missing.
std::optional<UpkeepInputs> UpkeepInputsOf(const std::string& spec,
                                           const nlohmann::json& arena_shape,
                                           double drive_tbw, std::string* why);

// The arena merging every `blocks` blocks.
struct ArenaUpkeep {
  double blocks = 0;
  double chain_s = 0;            // The interval in seconds of chain.
  double delta_keys = 0;         // Distinct keys the delta holds.
  double delta_bytes = 0;        // Their keys and values in memory.
  double log_bytes = 0;          // Every change appended.
  double merge_read_bytes = 0;   // The base and the delta.
  double merge_write_bytes = 0;  // The new base.
  double build_s = 0;            // At the measured merge rate.
  double write_s = 0;            // At the device's write rate (NaN unmeasured).
  double merge_s = 0;            // The slower of the two: they overlap.
  bool device_binds = false;     // write_s > build_s.
  bool keeps_up = true;          // merge_s <= chain_s.
  double write_amp = 0;
  double bytes_per_s = 0;   // Written per second of chain.
  double device_share = 0;  // bytes_per_s over the device's write rate.
  double drive_years = 0;
};
ArenaUpkeep ArenaUpkeepAt(const UpkeepInputs& in, double blocks);

// A store writing `write_amp` times the stream's bytes: its bytes per
// second of chain, device share and drive years, as ArenaUpkeep's.
struct StoreUpkeep {
  double write_amp = 0;
  double bytes_per_s = 0;
  double device_share = 0;
  double drive_years = 0;
};
StoreUpkeep StoreUpkeepAt(const UpkeepInputs& in, double write_amp);

// The merge interval, in blocks, at which the arena's write amplification
// is `write_amp`: B / (C b (write_amp - 1)); NaN when write_amp <= 1 (the
// arena's exceeds 1 at every interval).
double BreakEvenBlocks(const UpkeepInputs& in, double write_amp);

// Years a drive rated `tbw` (1e12 bytes) lasts at `bytes_per_s`.
double DriveYears(double tbw, double bytes_per_s);

}  // namespace flatbench::report
