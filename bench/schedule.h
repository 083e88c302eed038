#pragma once
// The run's schedule: which pass each backend runs, in which order.
//
// Order (RESEARCH.md, section 4, "Modes"):
//   for each mode, for each repetition, for each cell (table x kind x
//   threads), every backend runs that cell once, in an order rotated by
//   (repetition + cell index): a Latin square over repetitions, so each
//   backend takes each position equally often and drift or host-cache
//   warming over the run spreads evenly over the backends. A backend with
//   a narrower scope (BackendScope) sits out the cells it does not run;
//   the rotation is over the backends that run the cell.
// All backends read the same keys in the same (cell, repetition): the keys
// of a (table, kind) continue through one seeded permutation from pass to
// pass, so no key repeats within a pass.
//
// Each step of a cold mode on hit keys is preceded, in the backend's own
// process, by a device pass: 4 KiB O_DIRECT random reads inside the files
// that hold that backend's table (see device.h).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/defaults.h"
#include "common/backend.h"
#include "common/results_schema.h"
#include "common/status.h"
#include "datagen/sampler.h"
#include "dataset/spec.h"

namespace flatbench::bench {

enum class Mode { kWarm, kCold, kColdLazy };
// The contract's mode names (results::kModes).
const char* ModeName(Mode mode);
bool ParseMode(std::string_view name, Mode* out);
inline bool IsCold(Mode m) { return m != Mode::kWarm; }

inline constexpr uint64_t kDefaultDrawSeed = 0x647261772d6b6579ULL;

// What a cell measures: point reads of its key kind; ordered scans, each
// from a hit key (scan_pass.h); the startup of a fresh process up to its
// first hit read (startup.h); or batches of hit keys, one MultiGet per
// batch (batch_pass.h), or hit reads while the store takes blocks
// (writing_pass.h). These operations draw hit keys, so their cells have
// kind kHit; their names say "scan", "startup", "batch" and "writing".
enum class Op { kRead, kScan, kStartup, kBatch, kWriting };

// One (table, kind, threads) of the matrix.
struct Cell {
  Table table = Table::kAccount;
  datagen::KeyKind kind = datagen::KeyKind::kHit;
  int threads = 1;
  Op op = Op::kRead;
};

// The cell name's kind segment: the key kind's name, "scan", "startup" or
// "batch".
std::string CellKindName(const Cell& cell);

// The contract's name (results::CellName) of `backend`'s pass of `cell` in
// `mode`, repetition `rep`. A device pass (4 KiB O_DIRECT reads, see
// device.h) takes the same name with kind results::kKindDevice.
results::CellName CellNameOf(const std::string& backend, const Cell& cell,
                             Mode mode, int rep);
// results::FormatCellName(name); debug builds assert that the name parses
// back, so bench never writes a name the report refuses.
std::string PassName(const results::CellName& name);

// The seed of the sampler a cell draws its keys from: DrawSeed for reads;
// scans, startups and batches each walk their own permutation of the hit
// keys.
uint64_t CellDrawSeed(uint64_t base_seed, const Cell& cell);

// Pairs per scan unless --scan-length says otherwise: the page size of the
// pagination studies flatbench's scan follows.
inline constexpr uint32_t kDefaultScanLength = 100;
// Probe processes per startup pass unless configured.
inline constexpr uint64_t kDefaultStartupProbes = 5;
// Keys per MultiGet call unless --batch-size says otherwise, and the
// thread counts of batch cells unless --threads names some: one thread
// reaches the device's depth by itself, two show how batches share the
// cores.
inline constexpr uint32_t kDefaultBatchSize = 32;
inline constexpr int kDefaultBatchThreads[] = {1, 2};

// The cells of `tables` x `kinds` x `threads` that exist for `spec`:
// miss-live is a storage kind only, and a dataset without slots has no
// storage cells. The report's required cells are the same enumeration.
std::vector<Cell> EnumerateCells(const dataset::Spec& spec,
                                 const std::vector<Table>& tables,
                                 const std::vector<datagen::KeyKind>& kinds,
                                 const std::vector<int>& threads);

// One measured pass of one backend.
struct Step {
  std::string backend;
  Mode mode = Mode::kCold;
  Cell cell;
  int repetition = 0;
  uint64_t first_index = 0;  // Into the (table, kind) permutation.
  // > 0. Scan cells: scans per thread; startup cells: probe processes;
  // batch cells: MultiGet calls per thread.
  uint64_t reads_per_thread = 0;
  // Reads per thread of the device pass that precedes this step; 0: none.
  // Batch cells: that device pass runs at batch_size threads (depth B).
  uint64_t device_reads_per_thread = 0;
  uint32_t scan_length = 0;  // Scan cells: pairs per scan (> 0).
  uint32_t batch_size = 0;   // Batch cells: keys per MultiGet call (> 0).
  // Writing cells: blocks per second (0: as fast as the store takes them)
  // and the arena's blocks per merge (> 0).
  uint64_t block_rate = 0;
  uint64_t merge_every = 0;
  // The threads of the device pass before this step: the cell's, or
  // batch_size for a batch cell.
  int DeviceThreads() const {
    return cell.op == Op::kBatch ? static_cast<int>(batch_size) : cell.threads;
  }
};

// How much of the matrix one backend runs (bench/plan.h decides it from
// the backend's role). Each field narrows ScheduleOptions; the defaults
// narrow nothing.
struct BackendScope {
  std::vector<Mode> modes;  // Empty: every mode.
  // Per mode (absent: every repetition): repetitions of the read cells
  // (point reads and batches), and of the scan and startup cells.
  std::map<Mode, int> read_repetitions, op_repetitions;
  // Non-empty: only these (mode, cell) pairs, at repetition 0.
  std::vector<std::pair<Mode, Cell>> only;

  // Whether the backend runs `cell` in `mode` at repetition `rep`.
  bool Runs(Mode mode, const Cell& cell, int rep) const;
};

struct ScheduleOptions {
  std::vector<std::string> backends;
  std::vector<Mode> modes;
  std::vector<Table> tables;
  std::vector<datagen::KeyKind> kinds;
  std::vector<int> threads;
  int repetitions = 1;
  uint64_t reads_per_pass = 0;  // Over all threads.
  uint64_t device_reads = 0;    // Per device pass over all threads; 0: off.
  uint64_t draw_seed = 0;
  // The operation kinds: a scan cell per table and thread count, a startup
  // cell (account table, one thread).
  bool scan = false;
  bool startup = false;
  uint32_t scan_length = kDefaultScanLength;
  // Scans per scan pass over all threads; 0: reads_per_pass / 10 (a scan
  // costs about as much as a few point reads: its seek is one, and its page
  // one to three more blocks, so a scan pass lasts about a read pass).
  uint64_t scans_per_pass = 0;
  uint64_t startup_probes = kDefaultStartupProbes;
  // Batch cells: one per table and thread count of batch_threads, in every
  // mode; each pass reads reads_per_pass keys (capped by the key space) in
  // MultiGet calls of batch_size keys. In cold modes a device cell at
  // batch_size threads (depth B) precedes the batch pass, unless the
  // backend's hit read cell at that thread count already measures one in
  // the same mode and repetition.
  bool batch = false;
  uint32_t batch_size = kDefaultBatchSize;
  std::vector<int> batch_threads = {std::begin(kDefaultBatchThreads),
                                    std::end(kDefaultBatchThreads)};
  // Writing cells (--write-while-reading): a cell per table and thread
  // count of writing_threads, hit keys, in the warm and cold modes run, in
  // the first writing_repetitions repetitions, after the other cells, for
  // writing_backends only; each reads reads_per_pass keys at least.
  bool writing = false;
  std::vector<int> writing_threads;
  std::vector<std::string> writing_backends;
  uint64_t block_rate = 0;
  uint64_t merge_every = 0;
  int writing_repetitions = 1;
  // Backends that skip warm mode (O_DIRECT variants read the device even
  // when their files are cached, so "warm" means nothing for them).
  std::vector<std::string> no_warm;
  // Backends that run less than the whole matrix; the others run all of it.
  std::map<std::string, BackendScope> scopes;
};

// One mode's worth of steps, in run order.
struct Phase {
  Mode mode;
  std::vector<Step> steps;
};

// The whole run. Errors: kUsage when a thread count exceeds a (table, kind)
// key space (batch cells: when threads x batch_size does), or a batch size
// of 0.
Result<std::vector<Phase>> MakeSchedule(const dataset::Spec& spec,
                                        const ScheduleOptions& options);

// Adds each name of --kinds to `o`: a key kind (o->kinds), "scan",
// "startup" or "batch". kUsage names an unknown or repeated name, or an
// empty list.
Status ParseKinds(const std::vector<std::string>& names, ScheduleOptions* o);

// The text recorded as flatbench.schedule.
std::string DescribeSchedule();

// Steps travel to a backend's worker process as JSON.
nlohmann::json StepToJson(const Step& step);
Result<Step> StepFromJson(const nlohmann::json& j);

// The whole schedule as JSON, phase by phase (a run's journal records it,
// bench/journal.h), and back: kCorruption for anything StepFromJson
// refuses, or a step whose mode is not its phase's.
nlohmann::json ScheduleToJson(const std::vector<Phase>& phases);
Result<std::vector<Phase>> ScheduleFromJson(const nlohmann::json& j);

// Whether `names` (a list of backends, say) holds `name`.
bool Listed(const std::vector<std::string>& names, const std::string& name);

}  // namespace flatbench::bench
