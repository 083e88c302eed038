#pragma once
// The results contract: every name `flatbench bench` writes and
// `flatbench report` reads, with its type. bench/RESULTS_FORMAT.md
// describes the same names in prose and is tested against this header, so
// no counter name or context key is spelled anywhere else. Over 300 lines
// because it is the one place the contract is written; the scan and startup
// counters are in results_ops.h.
//
// A results file is google-benchmark JSON: a `context` object and a
// `benchmarks` array. Each iteration entry of `benchmarks` is one measured
// pass named by the cell grammar below and carries the counters below as
// JSON numbers. Context values are JSON values of the type given here.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace flatbench::results {

// The version of this contract. A reader accepts exactly this version and
// refuses any other (older or newer) with kCorruption.
inline constexpr int64_t kFormatVersion = 2;

// --- Cell names -----------------------------------------------------------
//
//   <backend>/<table>/<kind>/<mode>/threads:<N>/rep:<R>
//
// backend: a backend name ([a-z0-9_+-], e.g. arena, rocksdb, lmdb).
// table:   kTableAccount or kTableStorage.
// kind:    kKindHit, kKindMissAbsent, kKindMissLive (storage only),
//          kKindDevice: 4 KiB O_DIRECT reads inside that backend's files for
//          that table, in cold and cold-lazy modes only, or the operation
//          kinds of results_ops.h: kKindScan, kKindStartup (account table,
//          threads:1 only), kKindBatch (MultiGet of hit keys, every mode),
//          kKindWriting (hit reads while the store takes blocks, rep 0:
//          results_writing.h).
// mode:    kModeWarm, kModeCold, kModeColdLazy.
// N >= 1:  OS threads; R >= 0: the repetition.

inline constexpr std::string_view kTableAccount = "account";
inline constexpr std::string_view kTableStorage = "storage";
inline constexpr std::string_view kKindHit = "hit";
inline constexpr std::string_view kKindMissAbsent = "miss-absent";
inline constexpr std::string_view kKindMissLive = "miss-live";
inline constexpr std::string_view kKindDevice = "device";
inline constexpr std::string_view kKindScan = "scan";
inline constexpr std::string_view kKindStartup = "startup";
inline constexpr std::string_view kKindBatch = "batch";
inline constexpr std::string_view kKindWriting = "writing";
inline constexpr std::string_view kModeWarm = "warm";
inline constexpr std::string_view kModeCold = "cold";
inline constexpr std::string_view kModeColdLazy = "cold-lazy";

inline constexpr std::string_view kTables[] = {kTableAccount, kTableStorage};
inline constexpr std::string_view kKinds[] = {
    kKindHit,  kKindMissAbsent, kKindMissLive, kKindDevice,
    kKindScan, kKindStartup,    kKindBatch,    kKindWriting};
inline constexpr std::string_view kModes[] = {kModeWarm, kModeCold,
                                              kModeColdLazy};

bool IsTable(std::string_view s);
bool IsKind(std::string_view s);
bool IsMode(std::string_view s);
// hit, miss-absent, miss-live: the kinds a backend's read path measures.
bool IsReadKind(std::string_view kind);
bool IsMissKind(std::string_view kind);
// cold and cold-lazy: the modes that evict before each pass.
bool IsColdMode(std::string_view mode);
// Whether a (table, kind) cell exists at all: miss-live (a live account, a
// slot never written) is a storage kind only, startup an account kind
// only (its probe opens the whole backend). The one rule bench's cell
// enumeration, the cell-name parser and thresholds.json's required cells
// all apply.
bool CellExists(std::string_view table, std::string_view kind);

struct CellName {
  std::string backend;
  std::string table;
  std::string kind;
  std::string mode;
  int threads = 0;
  int rep = 0;
};

// "arena/account/hit/cold/threads:8/rep:2".
std::string FormatCellName(const CellName& cell);
// Parses a name of the grammar above. Segments google-benchmark appends
// (such as "iterations:N" or "real_time") may sit between the mode and
// threads:N. nullopt for anything else, including an unknown table, kind
// or mode, a device kind outside the cold modes, a miss-live kind on the
// account table, and a startup kind on the storage table or with threads
// other than 1.
std::optional<CellName> ParseCellName(std::string_view name);

// --- Types ----------------------------------------------------------------

enum class Type {
  // Context values.
  kText,     // JSON string, non-empty.
  kInteger,  // JSON integer >= 0.
  kNumber,   // JSON number, finite.
  kBool,     // JSON true/false.
  kObject,   // JSON object of scalar values.
  kProfile,  // A device profile document (common/device_profile.h).
  // Counter values (all JSON numbers).
  kRate,      // Finite and > 0 (per second).
  kNanos,     // Finite and > 0 (nanoseconds).
  kSeconds,   // Finite and > 0.
  kCount,     // Finite and >= 0 (may be fractional: per-read averages).
  kFraction,  // Finite, in [0, 1].
  kFlag,      // Exactly 0 or 1.
};

// "text", "integer", ... as RESULTS_FORMAT.md writes them.
std::string_view TypeName(Type type);

// --- Counters (numbers on each benchmarks[] entry) ------------------------

// Where a counter must appear: a bitmask of Where values.
enum Where : uint32_t {
  kOnRead = 1,       // Every read cell (hit/miss kinds), every mode.
  kOnDevice = 2,     // Every device cell.
  kOnCold = 4,       // Read cells in cold and cold-lazy modes.
  kOnWarm = 8,       // Read cells in warm mode.
  kOnColdHit = 16,   // Hit cells in cold and cold-lazy modes, when the
                     // backend's device cells were measured (else absent).
  kOnScan = 32,      // Every scan cell (which also carries the kOnRead,
                     // kOnCold and kOnWarm counters, per scan).
  kOnStartup = 64,   // Every startup cell (kOnCold ones too in cold modes).
  kOnBatch = 128,    // Every batch cell (which also carries the kOnRead,
                     // kOnCold and kOnWarm counters, per MultiGet call).
  kOnWriting = 256,  // Every writing cell (results_writing.h).
};

struct Counter {
  std::string_view name;
  Type type;
  uint32_t where;  // Where values: the entries that must carry it.
};

// The counter's name as a key of a results entry.
inline std::string KeyOf(const Counter& c) { return std::string(c.name); }

inline constexpr Counter kReadsPerS{"reads_per_s", Type::kRate,
                                    kOnRead | kOnDevice | kOnWriting};
inline constexpr Counter kLatMeanNs{"lat_mean_ns", Type::kNanos,
                                    kOnRead | kOnDevice | kOnWriting};
inline constexpr Counter kLatP50Ns{"lat_p50_ns", Type::kNanos,
                                   kOnRead | kOnDevice | kOnWriting};
inline constexpr Counter kLatP99Ns{"lat_p99_ns", Type::kNanos,
                                   kOnRead | kOnDevice | kOnWriting};
inline constexpr Counter kLatP999Ns{"lat_p999_ns", Type::kNanos,
                                    kOnRead | kOnDevice | kOnWriting};
// Latency percentiles come from one read in this many (16).
inline constexpr Counter kLatSampleEvery{"lat_sample_every", Type::kCount,
                                         kOnRead | kOnDevice | kOnWriting};
inline constexpr Counter kMajorFaultsPerRead{"major_faults_per_read",
                                             Type::kCount, kOnRead};
inline constexpr Counter kMinorFaultsPerRead{"minor_faults_per_read",
                                             Type::kCount, kOnRead};
// Absent when /proc/self/io is unreadable (never negative).
inline constexpr Counter kBytesReadPerRead{"bytes_read_per_read", Type::kCount,
                                           kOnRead | kOnDevice};
// Read requests the block device holding the backend's files completed
// during the timed loop (/proc/diskstats), / reads: requests of whatever
// size, so one 12 KiB block read is one, as a device cell's 4 KiB read is.
// Every process's reads on that device count. Absent when the device is
// not found (tmpfs) or its line was unreadable.
inline constexpr Counter kDeviceRequestsPerRead{"device_requests_per_read",
                                                Type::kCount, kOnRead};
inline constexpr Counter kResidentFractionBefore{"resident_fraction_before",
                                                 Type::kFraction, kOnRead};
inline constexpr Counter kResidentFractionAfterEviction{
    "resident_fraction_after_eviction", Type::kFraction, kOnCold};
inline constexpr Counter kResidentFractionAfterPass{
    "resident_fraction_after_pass", Type::kFraction, kOnWarm};
inline constexpr Counter kEvictionVerified{"eviction_verified", Type::kFlag,
                                           kOnRead | kOnStartup};
inline constexpr Counter kThreads{
    "threads", Type::kCount, kOnRead | kOnDevice | kOnStartup | kOnWriting};
// Sum over threads of the thread's read-loop time / the pass's wall time
// (the sum of read durations / wall time, up to the loop's overhead).
inline constexpr Counter kMeanInflight{"mean_inflight", Type::kCount,
                                       kOnRead | kOnDevice};
// The most threads inside their read loops at one instant: the maximum of
// the count whose time average is mean_inflight, so never below it.
inline constexpr Counter kPeakInflight{"peak_inflight", Type::kCount,
                                       kOnRead | kOnDevice};
// 1 if the pass's reads waited on storage (bytes_read_per_read >= 512 or
// major_faults_per_read >= 0.1); device cells: 1.
inline constexpr Counter kStorageBound{"storage_bound", Type::kFlag,
                                       kOnRead | kOnDevice};
// The rule for kStorageBound on read and scan cells: a pass waited on
// storage when it read at least this many bytes or took at least this many
// major faults per read (a cold hit reads one 4 KiB block; a cached read
// none). An absent bytes_read_per_read counts as 0.
inline constexpr double kStorageBoundBytesPerRead = 512;
inline constexpr double kStorageBoundFaultsPerRead = 0.1;
inline constexpr Counter kDistinctKeys{"distinct_keys", Type::kCount, kOnRead};
inline constexpr Counter kRssAfterOpenBytes{"rss_after_open_bytes",
                                            Type::kCount, kOnRead | kOnStartup};
inline constexpr Counter kRssAfterPassBytes{"rss_after_pass_bytes",
                                            Type::kCount, kOnRead};
inline constexpr Counter kOpenSeconds{"open_seconds", Type::kSeconds,
                                      kOnRead | kOnStartup};
inline constexpr Counter kMetadataBytes{"metadata_bytes", Type::kCount,
                                        kOnRead};
inline constexpr Counter kRepetition{
    "repetition", Type::kCount, kOnRead | kOnDevice | kOnStartup | kOnWriting};
inline constexpr Counter kFilePages{"file_pages", Type::kCount,
                                    kOnRead | kOnDevice};
// Hits: 1; misses: 0; device: fraction of full 4 KiB reads.
inline constexpr Counter kFoundFraction{"found_fraction", Type::kFraction,
                                        kOnRead | kOnDevice | kOnWriting};
// Bytes of the backend's files resident right after the open, before the
// pass (cold modes: what the open itself read).
inline constexpr Counter kPreloadedBytes{"preloaded_bytes", Type::kCount,
                                         kOnRead};
// 0-based position of the pass in the whole run's schedule.
inline constexpr Counter kPassOrder{
    "pass_order", Type::kCount, kOnRead | kOnDevice | kOnStartup | kOnWriting};
// Seconds from the run's start to the pass's start.
inline constexpr Counter kPassStartS{
    "pass_start_s", Type::kCount,
    kOnRead | kOnDevice | kOnStartup | kOnWriting};
// Cold hit cells: the adjacent device cell's reads/s, and reads_per_s / it.
inline constexpr Counter kDeviceReadsPerS{"device_reads_per_s", Type::kRate,
                                          kOnColdHit};
inline constexpr Counter kIoEfficiency{"io_efficiency", Type::kCount,
                                       kOnColdHit};
// Warm cells: bytes of the backend's files mapped and mlock'ed during the
// pass (0 when locking was refused).
inline constexpr Counter kLockedBytes{"locked_bytes", Type::kCount, kOnWarm};
// Device cells: bytes of the files the device reads were spread over.
inline constexpr Counter kDeviceFileBytes{"device_file_bytes", Type::kCount,
                                          kOnDevice};
// CPU time per read: CLOCK_PROCESS_CPUTIME_ID of the process running the
// pass (user and system time of all its threads) over the timed loop, plus
// a server backend's server processes' utime + stime, / reads. Absent in
// results written before it existed, and when a server process exited
// during the pass, so never required.
inline constexpr Counter kCpuNsPerRead{"cpu_ns_per_read", Type::kNanos,
                                       kOnRead | kOnDevice};
// The rest of the host's busy CPU time per read over the same bracket: the
// whole host's (/proc/stat, every CPU, every state but idle, iowait and
// steal) less kCpuNsPerRead's, / reads. The device's own work where it
// runs on the host's cores (a loop device's worker), interrupts, kernel
// threads, and anything else running. Absent where kCpuNsPerRead is, and
// when /proc/stat is unreadable. Nanoseconds, typed a count: 0 is a
// measurement (a host whose every busy tick was the worker's).
inline constexpr Counter kHostCpuNsPerRead{"host_cpu_ns_per_read",
                                           Type::kCount, kOnRead | kOnDevice};

// Seconds the run was interrupted just before this pass (bench/journal.h:
// the session that measured the passes before it ended, and a later one
// resumed the schedule here): on the first entry measured after each gap
// only, so never required.
inline constexpr Counter kInterruptedBeforeS{
    "interrupted_before_s", Type::kSeconds, kOnRead | kOnDevice | kOnStartup};

inline constexpr Counter kCounters[] = {
    kReadsPerS,
    kLatMeanNs,
    kLatP50Ns,
    kLatP99Ns,
    kLatP999Ns,
    kLatSampleEvery,
    kMajorFaultsPerRead,
    kMinorFaultsPerRead,
    kBytesReadPerRead,
    kDeviceRequestsPerRead,
    kResidentFractionBefore,
    kResidentFractionAfterEviction,
    kResidentFractionAfterPass,
    kEvictionVerified,
    kThreads,
    kMeanInflight,
    kPeakInflight,
    kStorageBound,
    kDistinctKeys,
    kRssAfterOpenBytes,
    kRssAfterPassBytes,
    kOpenSeconds,
    kMetadataBytes,
    kRepetition,
    kFilePages,
    kFoundFraction,
    kPreloadedBytes,
    kPassOrder,
    kPassStartS,
    kDeviceReadsPerS,
    kIoEfficiency,
    kLockedBytes,
    kDeviceFileBytes,
    kCpuNsPerRead,
    kHostCpuNsPerRead,
    kInterruptedBeforeS,
};

// Whether `counter` must appear on an entry of this kind and mode.
// kBytesReadPerRead, kDeviceRequestsPerRead, kCpuNsPerRead,
// kHostCpuNsPerRead and kInterruptedBeforeS may be absent anywhere, and the
// kOnColdHit counters are absent when the backend's device cells were not
// measured, so none of them is ever required; nor is a batch counter that
// BatchCounterOptional (results_ops.h) names.
bool CounterExpected(const Counter& counter, std::string_view kind,
                     std::string_view mode);

// --- Backend counters (an object on read entries) -------------------------
//
// A read entry of a cold mode may carry kEntryBackendCounters: an object
// of what the pass's reads cost in the backend's own counts
// (ReadSession::TakeReadCost, summed over the pass's threads), each value
// the pass's total over its reads (a count per read, finite and >= 0). A
// key is a name below, or, for one whose `per_level` is set, "L<n>." and
// the name: the share of the reads in the files of level n. Only RocksDB
// keeps such counts (its perf context); the figures are informational.
inline constexpr std::string_view kEntryBackendCounters = "backend_counters";

struct BackendCounter {
  std::string_view name;
  bool per_level;  // Also given per level, as "L<n>.<name>".
};

inline constexpr BackendCounter kDataBlocksRead{"data_blocks_read", false};
inline constexpr BackendCounter kIndexBlocksRead{"index_blocks_read", false};
inline constexpr BackendCounter kFilterBlocksRead{"filter_blocks_read", false};
inline constexpr BackendCounter kFilterProbes{"filter_probes", true};
inline constexpr BackendCounter kFilterFalsePositives{"filter_false_positives",
                                                      true};
inline constexpr BackendCounter kBlockCacheMisses{"block_cache_misses", true};
inline constexpr BackendCounter kBlockCacheHits{"block_cache_hits", true};

inline constexpr BackendCounter kBackendCounters[] = {
    kDataBlocksRead,       kIndexBlocksRead,  kFilterBlocksRead, kFilterProbes,
    kFilterFalsePositives, kBlockCacheMisses, kBlockCacheHits,
};

// "L<n>.<name>" for level n.
std::string LevelCounterName(int level, const BackendCounter& counter);
// Splits a key of kEntryBackendCounters into its level (-1 for a total)
// and its counter; nullopt unless it is a name above, or "L<n>." (n in
// 0..99) and a per-level one.
struct BackendCounterKey {
  int level = -1;
  const BackendCounter* counter = nullptr;
};
std::optional<BackendCounterKey> ParseBackendCounterKey(std::string_view key);

// google-benchmark's own entry fields the contract relies on.
inline constexpr std::string_view kEntryName = "name";
inline constexpr std::string_view kEntryRunType = "run_type";
inline constexpr std::string_view kEntryIterations = "iterations";
inline constexpr std::string_view kEntryErrorOccurred = "error_occurred";
inline constexpr std::string_view kEntryErrorMessage = "error_message";
inline constexpr std::string_view kEntryLabel = "label";
inline constexpr std::string_view kRunTypeIteration = "iteration";

// --- Context keys ---------------------------------------------------------

struct ContextKey {
  std::string_view name;
  Type type;
  // Must be present and equal in every file of one report (provenance).
  bool provenance;
};

// The results format version: an integer, kFormatVersion.
inline constexpr ContextKey kResultsFormat{"flatbench.results_format",
                                           Type::kInteger, true};
// This binary.
inline constexpr ContextKey kVersion{"flatbench.version", Type::kText, true};
// Source revision (e.g. `git describe --always --dirty`, or "unknown").
inline constexpr ContextKey kRevision{"flatbench.revision", Type::kText, true};
// Meson build type: "release", "debug", ...
inline constexpr ContextKey kBuildType{"flatbench.build_type", Type::kText,
                                       true};
// Whether assert() is compiled in.
inline constexpr ContextKey kAssertsOn{"flatbench.asserts_on", Type::kBool,
                                       true};
// Dataset identity.
inline constexpr ContextKey kScale{"flatbench.scale", Type::kText, true};
inline constexpr ContextKey kSpec{"flatbench.spec", Type::kText, true};
inline constexpr ContextKey kFingerprint{"flatbench.fingerprint", Type::kText,
                                         true};
inline constexpr ContextKey kDatasetAccounts{"flatbench.dataset.accounts",
                                             Type::kInteger, true};
inline constexpr ContextKey kDatasetSlotsPerAccount{
    "flatbench.dataset.slots_per_account", Type::kInteger, true};
inline constexpr ContextKey kDatasetDir{"flatbench.dataset_dir", Type::kText,
                                        true};
// Run parameters.
inline constexpr ContextKey kReadsPerPass{"flatbench.reads_per_pass",
                                          Type::kInteger, true};
inline constexpr ContextKey kRepetitions{"flatbench.repetitions",
                                         Type::kInteger, true};
// Thread counts and modes, comma-separated in run order: "1,8,32",
// "cold,warm".
inline constexpr ContextKey kThreadCounts{"flatbench.threads", Type::kText,
                                          true};
inline constexpr ContextKey kModeList{"flatbench.modes", Type::kText, true};
inline constexpr ContextKey kKeyDraw{"flatbench.key_draw", Type::kText, true};
inline constexpr ContextKey kEvictionBound{"flatbench.eviction_bound",
                                           Type::kNumber, true};
inline constexpr ContextKey kWarmBound{"flatbench.warm_bound", Type::kNumber,
                                       true};
// The host: XXH3-64 hex of /etc/machine-id, CPU model, hardware threads
// (std::thread::hardware_concurrency), RAM, kernel (uname).
inline constexpr ContextKey kMachineIdHash{"flatbench.env.machine_id_hash",
                                           Type::kText, true};
inline constexpr ContextKey kCpu{"flatbench.env.cpu", Type::kText, true};
inline constexpr ContextKey kHardwareThreads{"flatbench.env.hardware_threads",
                                             Type::kInteger, true};
inline constexpr ContextKey kRamBytes{"flatbench.env.ram_bytes", Type::kInteger,
                                      true};
inline constexpr ContextKey kKernel{"flatbench.env.kernel", Type::kText, true};
// The filesystem type and block device ("source (major:minor)") holding the
// data directory, and its queue settings.
inline constexpr ContextKey kFilesystem{"flatbench.env.filesystem", Type::kText,
                                        true};
inline constexpr ContextKey kDevice{"flatbench.env.device", Type::kText, true};
inline constexpr ContextKey kReadAheadKb{"flatbench.env.read_ahead_kb",
                                         Type::kText, false};
inline constexpr ContextKey kScheduler{"flatbench.env.scheduler", Type::kText,
                                       false};
inline constexpr ContextKey kDropCaches{"flatbench.env.drop_caches",
                                        Type::kText, false};
// Library versions.
inline constexpr ContextKey kLibRocksdb{"flatbench.lib.rocksdb", Type::kText,
                                        true};
inline constexpr ContextKey kLibLmdb{"flatbench.lib.lmdb", Type::kText, true};
inline constexpr ContextKey kLibCompiler{"flatbench.lib.compiler", Type::kText,
                                         true};
// The run: ISO 8601 start time, the interleaved order in words, and the
// measured cost of one pair of clock reads.
inline constexpr ContextKey kRunStart{"flatbench.run_start", Type::kText,
                                      false};
inline constexpr ContextKey kSchedule{"flatbench.schedule", Type::kText, false};
inline constexpr ContextKey kTimingOverheadNs{"flatbench.timing_overhead_ns",
                                              Type::kNumber, false};

// Reads per device cell over all threads (0: no device cells), whether
// every backend verified block checksums on read, and how cold passes
// evicted ("drop_caches" or "fadvise").
inline constexpr ContextKey kDeviceReadsPerPass{
    "flatbench.device_reads_per_pass", Type::kInteger, true};
inline constexpr ContextKey kVerifyChecksums{"flatbench.verify_checksums",
                                             Type::kBool, true};
inline constexpr ContextKey kEvictMethod{"flatbench.evict", Type::kText, true};
// The device profile given to `bench --device-profile` (the document
// `flatbench device --out` wrote, checked), when one was given.
inline constexpr ContextKey kRecordedDeviceProfile{"flatbench.device_profile",
                                                   Type::kProfile, false};

// Interruptions of the run (bench/journal.h): how many times it stopped and
// was resumed from its journal (0: it ran in one go), and, when it was,
// each gap in words: when it began (the last pass finished before it),
// when the run resumed, how long it lasted and the pass it resumed at.
inline constexpr ContextKey kInterruptions{"flatbench.interruptions",
                                           Type::kInteger, false};
inline constexpr ContextKey kInterruptionLog{"flatbench.interruption_log",
                                             Type::kText, false};
// The longest gap a resumed run may have (24 h): bench refuses to resume a
// journal whose last pass is older (exit 65, giving both figures), and the
// report's device drift gate fails a file that records a longer one.
inline constexpr double kMaxInterruptionSeconds = 24 * 3600;

inline constexpr ContextKey kContextKeys[] = {
    kResultsFormat,
    kVersion,
    kRevision,
    kBuildType,
    kAssertsOn,
    kScale,
    kSpec,
    kFingerprint,
    kDatasetAccounts,
    kDatasetSlotsPerAccount,
    kDatasetDir,
    kReadsPerPass,
    kRepetitions,
    kThreadCounts,
    kModeList,
    kKeyDraw,
    kEvictionBound,
    kWarmBound,
    kMachineIdHash,
    kCpu,
    kHardwareThreads,
    kRamBytes,
    kKernel,
    kFilesystem,
    kDevice,
    kReadAheadKb,
    kScheduler,
    kDropCaches,
    kLibRocksdb,
    kLibLmdb,
    kLibCompiler,
    kRunStart,
    kSchedule,
    kTimingOverheadNs,
    kDeviceReadsPerPass,
    kVerifyChecksums,
    kEvictMethod,
    kRecordedDeviceProfile,
    kInterruptions,
    kInterruptionLog,
};

// Per-backend context keys: BackendKey(backend, key) is
// "flatbench.backend.<backend>.<key.name>". Present for every backend the
// run named unless noted.
struct BackendContextKey {
  std::string_view name;
  Type type;
  bool always;  // Present for every backend (else only when it applies).
};

inline constexpr BackendContextKey kBuildSeconds{"build_seconds", Type::kNumber,
                                                 true};
inline constexpr BackendContextKey kDiskBytes{"disk_bytes", Type::kInteger,
                                              true};
// Describe() pairs as a JSON object of strings.
inline constexpr BackendContextKey kSettings{"settings", Type::kObject, true};
inline constexpr BackendContextKey kSanityPassed{"sanity_passed", Type::kBool,
                                                 true};
// Keys the sanity check read (when it passed).
inline constexpr BackendContextKey kSanityKeys{"sanity_keys", Type::kInteger,
                                               false};
// Why it failed (when it failed); the backend then has no entries.
inline constexpr BackendContextKey kSanityError{"sanity_error", Type::kText,
                                                false};
// How cold passes evicted: "drop_caches", "fadvise" or "none".
inline constexpr BackendContextKey kEviction{"eviction", Type::kText, false};
// What the backend's open preloads in cold mode, in words.
inline constexpr BackendContextKey kPreload{"preload", Type::kText, false};
// Warm passes: "mlock", "mapped" or "refused: <reason>".
inline constexpr BackendContextKey kWarmLock{"warm_lock", Type::kText, false};
// The device cells: "measured", "skipped: <reason>" or "failed: <reason>".
inline constexpr BackendContextKey kDeviceStatus{"device", Type::kText, false};
// Present only when the backend's process died without results.
inline constexpr BackendContextKey kError{"error", Type::kText, false};
// The files holding each table, as {"account": "f1, f2", "storage": ...}:
// what the device cells read.
inline constexpr BackendContextKey kDataFiles{"data_files", Type::kObject,
                                              true};
// Warm mode: bytes of the backend's own mappings populated before the
// passes (so that a warm read takes no minor fault).
inline constexpr BackendContextKey kPopulatedBytes{"populated_bytes",
                                                   Type::kInteger, false};
// Warm mode: untimed hit reads per run before the passes, so the backend's
// own caches (RocksDB's block cache) are in steady state.
inline constexpr BackendContextKey kWarmupReads{"warmup_reads", Type::kInteger,
                                                false};

// The store's shape, from its completion marker, when the dataset has a
// stream of blocks: {"kind": "fresh", "blocks": N} for a bulk load of the
// aged state (gen --blocks), or "aged" with the upkeep figures of
// flatbench age (RESEARCH.md section 11).
inline constexpr BackendContextKey kShape{"shape", Type::kObject, false};
// The store's shape as its own metadata showed it when the worker opened it
// (Backend::OpenShape): RocksDB's files and bytes per level of each family.
inline constexpr BackendContextKey kOpenShape{"open_shape", Type::kObject,
                                              false};
// Phase times, for the plan's calibration: the worker's answer to its first
// request (open and sanity check), and warm mode's begin (the files read
// in and held, the warm-up reads), each from request to answer.
inline constexpr BackendContextKey kStartSeconds{"start_seconds", Type::kNumber,
                                                 false};
inline constexpr BackendContextKey kWarmBeginSeconds{"warm_begin_seconds",
                                                     Type::kNumber, false};

inline constexpr BackendContextKey kBackendContextKeys[] = {
    kBuildSeconds,   kDiskBytes,        kSettings, kSanityPassed,
    kSanityKeys,     kSanityError,      kEviction, kPreload,
    kWarmLock,       kDeviceStatus,     kError,    kDataFiles,
    kPopulatedBytes, kWarmupReads,      kShape,    kOpenShape,
    kStartSeconds,   kWarmBeginSeconds,
};

inline constexpr std::string_view kBackendPrefix = "flatbench.backend.";
std::string BackendKey(std::string_view backend, const BackendContextKey& key);

// Every counter (kCounters, then results_ops.h's kOpCounters), context key
// and per-backend key, for tests and docs.
std::span<const Counter> AllCounters();
// The counter's place in AllCounters(), by name; nullopt for a name outside
// the contract.
std::optional<size_t> CounterIndex(std::string_view name);
std::span<const ContextKey> AllContextKeys();
std::span<const BackendContextKey> AllBackendContextKeys();

}  // namespace flatbench::results
