// What each name of the results contract means: the one place the words
// are written. bench/RESULTS_FORMAT.md's meaning cells are tested equal to
// these, so the document cannot say what the code does not compute. Long
// because it is prose for every counter and key.
#include "common/results_meanings.h"

#include <algorithm>

namespace flatbench::results {
namespace {

constexpr Meaning kCounterMeanings[] = {
    {"reads_per_s",
     "reads completed / wall seconds of the pass, all threads (no "
     "per-read clock calls in the loop)"},
    {"lat_mean_ns", "mean latency of the sampled reads"},
    {"lat_p50_ns", "median latency of the sampled reads"},
    {"lat_p99_ns", "99th percentile"},
    {"lat_p999_ns", "99.9th percentile"},
    {"lat_sample_every", "one read in this many is timed (16)"},
    {"major_faults_per_read",
     "`getrusage` major faults during the pass / reads; for a server "
     "backend (PostgreSQL) plus its server processes' (`majflt` of "
     "`/proc/<pid>/stat`, summed over the processes alive at both "
     "ends of the pass)"},
    {"minor_faults_per_read",
     "minor faults during the pass / reads (near zero in warm steady "
     "state); server processes' added as for major faults"},
    {"bytes_read_per_read",
     "`/proc/self/io` `read_bytes` delta, plus the server processes' "
     "`/proc/<pid>/io` `read_bytes` deltas, / reads; absent if "
     "`/proc/self/io`, or a server process's `/proc/<pid>/io`, is "
     "unreadable, or a server process exited during the pass"},
    {"device_requests_per_read",
     "read requests the block device holding the backend's files "
     "completed during the timed loop (`/proc/diskstats`, 4th "
     "column), / reads (batch cells: / MultiGet calls). A request "
     "is counted once whatever its size, so one 12 KiB block read "
     "is one request, as a device cell's 4 KiB read is. Every "
     "process's reads on that device count, so on a shared device "
     "it bounds the pass's own from above. Absent when the files "
     "sit on no block device (tmpfs) or its line was unreadable"},
    {"cpu_ns_per_read",
     "CPU time per read: the `CLOCK_PROCESS_CPUTIME_ID` delta of the "
     "worker process (user and system time of every one of its "
     "threads: the pass's reader threads, the thread that waits for "
     "them, and any thread the backend runs, such as RocksDB's "
     "background threads) over the same bracket as the fault and "
     "byte counters, just around the timed loop, plus, for a server "
     "backend, its server processes' `utime` + `stime` deltas "
     "(`/proc/<pid>/stat`, in clock ticks, 10 ms at the usual 100 "
     "per second), / reads. Kernel time is included: a cold read's "
     "page fault or read syscall, the page cache's work and the I/O "
     "submission it makes; time waiting for the device or for a CPU "
     "is not. Absent in results written before this counter existed, "
     "and when a server process exited during the pass"},
    {"host_cpu_ns_per_read",
     "The rest of the host's busy CPU time per read over the same "
     "bracket: the whole host's (`/proc/stat`'s first line, every "
     "CPU, every state but idle, iowait and steal, in clock ticks)"
     " less `cpu_ns_per_read`'s, / reads, in nanoseconds, never "
     "below 0. It holds the device's own work where that runs on "
     "the host's cores (a loop device's worker copies every read "
     "there), interrupts, kernel threads, and whatever else ran on"
     " the host: a figure for a host with nothing else running. "
     "The structural prediction's CPU bound uses it (RESEARCH.md "
     "section 10, \"The host's other CPU per read\"). Absent where "
     "`cpu_ns_per_read` is, and when `/proc/stat` is unreadable"},
    {"resident_fraction_before",
     "backend's file pages resident just before the pass (`mincore`)"},
    {"resident_fraction_after_eviction",
     "resident after eviction, before the reopen (startup: the most "
     "resident before any probe)"},
    {"resident_fraction_after_pass", "resident right after the pass"},
    {"eviction_verified",
     "cold: after-eviction fraction ≤ `flatbench.eviction_bound`; "
     "warm: before and after ≥ `flatbench.warm_bound`"},
    {"threads", "thread count (equals the name's `N`)"},
    {"mean_inflight",
     "sum over threads of each thread's read-loop span (its first "
     "read's start to its last read's end) / the pass's wall time "
     "(the earliest start to the latest end): the sum of read "
     "durations / wall time, up to the loop's overhead"},
    {"peak_inflight",
     "the most read-loop spans (as in `mean_inflight`) that overlap at "
     "one instant: the maximum of the count whose time average is "
     "`mean_inflight`, so at least `mean_inflight` in every pass"},
    {"storage_bound",
     "1 if the reads waited on storage (`bytes_read_per_read` ≥ "
     "512 or `major_faults_per_read` ≥ 0.1, an absent "
     "`bytes_read_per_read` counting 0), else 0; device: 1"},
    {"distinct_keys", "distinct keys read (equals `iterations`)"},
    {"rss_after_open_bytes",
     "process RSS after the open, plus, for a server backend, the "
     "Pss (`/proc/<pid>/smaps_rollup`) of each of its server "
     "processes, so memory they share (PostgreSQL's shared buffers) "
     "counts once (startup: the probe's, median over probes)"},
    {"rss_after_pass_bytes",
     "the same after the pass (the server processes then include "
     "each reader thread's connection)"},
    {"open_seconds",
     "time to open the backend (after eviction in cold modes; "
     "startup: the probe's own open, median over probes)"},
    {"metadata_bytes",
     "resident metadata after open (arena index+filter, RocksDB "
     "table readers + block cache, LMDB 0)"},
    {"repetition", "`R`"},
    {"file_pages",
     "4 KiB pages of the files measured: read cells, all of the "
     "backend's files; device cells, the table's "
     "(`device_file_bytes` / 4096)"},
    {"found_fraction",
     "hits: 1; misses: 0; device: fraction of full 4 KiB reads; writing: "
     "reads that found their key (below 1 when the stream deleted some)"},
    {"preloaded_bytes",
     "bytes of the backend's files resident right after the open, "
     "before the pass (cold modes: what the open itself read)"},
    {"pass_order", "0-based position of the pass in the whole run's schedule"},
    {"pass_start_s", "seconds from the run's start to the pass's start"},
    {"device_reads_per_s",
     "the adjacent device cell's reads/s (present when the device "
     "cells were measured)"},
    {"io_efficiency",
     "`reads_per_s` / `device_reads_per_s` (present when the device "
     "cells were measured): hits/s over the own files' device rate, not a "
     "fraction (above 1 when a pass reads fewer pages than it has hits); "
     "the report's device-side efficiency multiplies it by the pass's "
     "4 KiB pages read per hit"},
    {"locked_bytes",
     "bytes of the backend's files mapped and mlock'ed during the "
     "pass (0 when locking was refused)"},
    {"device_file_bytes",
     "bytes of the files the device reads were spread over"},
    {"scan_length", "pairs asked for per scan (the page size)"},
    {"entries_per_scan",
     "pairs returned per scan, mean over the pass (below "
     "`scan_length` only when scans reached a table's end)"},
    {"entries_per_s",
     "pairs returned per second: `reads_per_s` × `entries_per_scan`"},
    {"scan_checksum",
     "sum over the pass's scans of XXH3-64 of each returned value "
     "seeded with XXH3-64 of its key, modulo 2^48: equal across "
     "backends that returned the same pairs for the same seek keys"},
    {"startup_s",
     "spawn to the end of the first successful read, median over the "
     "probes"},
    {"startup_min_s", "the fastest probe's startup"},
    {"startup_max_s", "the slowest probe's startup"},
    {"startup_probes", "probe processes in the pass"},
    {"batch_size", "keys per `MultiGet` call (`--batch-size`)"},
    {"keys_per_s",
     "keys answered per second: `reads_per_s` × `batch_size` (the keys "
     "of every call, all threads, over the pass's wall time)"},
    {"cpu_ns_per_key",
     "`cpu_ns_per_read` / `batch_size`: the worker process's CPU time per "
     "key, less the in-flight sampler's own (absent when "
     "`cpu_ns_per_read` is)"},
    {"storage_reads_per_key",
     "4 KiB reads from storage per key: `bytes_read_per_read` / 4096 / "
     "`batch_size` (absent when `bytes_read_per_read` is)"},
    {"io_depth_max",
     "the deepest I/O reached: with `io_depth_source` 1, the most reads "
     "a session had in flight at once (the sessions' "
     "`BatchIoStats` `max_depth`, the deepest of any thread's); with 0, "
     "the most I/Os in progress on the data files' block device in "
     "`/proc/diskstats`, sampled every millisecond during the pass "
     "(every process's I/O on that device counts); absent when neither "
     "is known"},
    {"io_depth_mean",
     "the mean I/O depth: with `io_depth_source` 1, reads / submissions "
     "of the sessions' `BatchIoStats` (the reads a batch had in flight "
     "together); with 0, the mean of the "
     "`/proc/diskstats` in-flight samples; absent with `io_depth_max`"},
    {"io_depth_source",
     "1: `io_depth_*` come from the backend's own batch submissions (its "
     "sessions submitted reads together, such as the arena's io_uring); "
     "0: from sampling `/proc/diskstats` (the others)"},
    {"batch_device_reads_per_s",
     "cold modes: the own files' device rate at depth `batch_size`, the "
     "`reads_per_s` of the device entry of the same backend, table, mode "
     "and repetition at `threads:<batch_size>` (present when the device "
     "cells were measured)"},
    {"batch_io_efficiency",
     "`keys_per_s` / `batch_device_reads_per_s`: keys answered per random "
     "4 KiB read the device gives the same files at depth `batch_size` (1 "
     "is one key per device read at that depth; present with "
     "`batch_device_reads_per_s`)"},
    {"writing_seconds",
     "the writer's time from its first block to the pass's end"},
    {"blocks_applied",
     "blocks of the stream the writer applied during the pass (one "
     "`WriteBatch`, write transaction, arena delta append or file per change "
     "each)"},
    {"block_rate",
     "blocks per second asked (`--block-rate`); 0: as fast as the store took "
     "them"},
    {"block_p50_ns",
     "median time to apply one block (`StoreWriter::ApplyBlock`; the arena's "
     "includes a merge that block started)"},
    {"block_p99_ns", "99th percentile of the block times"},
    {"block_max_ns", "the slowest block"},
    {"checks_done",
     "sampled reads checked against the state of the blocks applied while they "
     "ran"},
    {"checks_wrong",
     "checked reads whose answer no state of their window explains (a pass "
     "with one fails the run, exit 65, so a results file holds 0)"},
    {"writing_cap_hit",
     "1 when the pass ended at its cap (300 s) before its reads were made, or "
     "before the arena's merge ended"},
    {"series_interval_s",
     "the interval of `read_p99_series`: 1 s for a pass of 20 s or more, else "
     "a multiple of 0.1 s giving about 20 intervals"},
    {"merges", "the arena: merges that ended during the pass"},
    {"merge_seconds",
     "the arena: seconds of the pass inside its merge windows"},
    {"merge_mb_per_s",
     "the arena: its merges' rate, the new base's megabytes over the merges' "
     "seconds"},
    {"reads_per_s_in_merge",
     "the arena: sampled reads that ended inside a merge window × 16 / the "
     "windows' seconds within the pass"},
    {"lat_p99_ns_in_merge",
     "the arena: 99th percentile of the sampled reads that ended inside a "
     "merge window"},
    {"reads_per_s_outside_merge",
     "the arena: sampled reads that ended outside the merge windows × 16 / the "
     "pass's other seconds"},
    {"lat_p99_ns_outside_merge",
     "the arena: 99th percentile of the sampled reads that ended outside the "
     "merge windows"},
    {"compactions",
     "RocksDB: compactions that ended during the pass (its statistics' "
     "`COMPACTION_TIME` count)"},
    {"compaction_bytes",
     "RocksDB: bytes its compactions wrote during the pass "
     "(`COMPACT_WRITE_BYTES`)"},
    {"interrupted_before_s",
     "seconds the run was interrupted just before this pass: the session "
     "that measured the passes before it ended (a stop signal, a crash, a "
     "reboot) and a rerun resumed the schedule here from its journal; on "
     "the first entry measured after each gap only"},
};

constexpr Meaning kContextKeyMeanings[] = {
    {"flatbench.results_format", "2"},
    {"flatbench.version", "flatbench version"},
    {"flatbench.revision",
     "source revision (`git describe --always --dirty`, or "
     "`unknown`)"},
    {"flatbench.build_type", "Meson build type (`release`, `debug`, ...)"},
    {"flatbench.asserts_on", "whether `assert` is compiled in"},
    {"flatbench.scale", "named scale"},
    {"flatbench.spec", "the dataset spec, canonical text"},
    {"flatbench.fingerprint", "dataset fingerprint"},
    {"flatbench.dataset.accounts", "accounts in the dataset"},
    {"flatbench.dataset.slots_per_account", "storage slots per account"},
    {"flatbench.dataset_dir", "where the data was read"},
    {"flatbench.reads_per_pass", "reads per pass, all threads"},
    {"flatbench.repetitions", "repetitions per cell"},
    {"flatbench.threads", "thread counts, comma-separated (`1,8,32`)"},
    {"flatbench.modes", "modes, comma-separated, in run order"},
    {"flatbench.key_draw",
     "how keys were drawn, naming the draw seed (`bench --draw-seed`)"},
    {"flatbench.eviction_bound",
     "max resident fraction accepted after eviction"},
    {"flatbench.warm_bound", "min resident fraction accepted for warm passes"},
    {"flatbench.env.machine_id_hash", "XXH3-64 hex of `/etc/machine-id`"},
    {"flatbench.env.cpu", "CPU model"},
    {"flatbench.env.hardware_threads", "`std::thread::hardware_concurrency()`"},
    {"flatbench.env.ram_bytes", "physical RAM"},
    {"flatbench.env.kernel", "`uname`: system, release, version, machine"},
    {"flatbench.env.filesystem", "filesystem type of the data directory"},
    {"flatbench.env.device",
     "block device of the data directory, `source (major:minor)`"},
    {"flatbench.env.read_ahead_kb", "the device's read-ahead"},
    {"flatbench.env.scheduler", "the device's I/O scheduler"},
    {"flatbench.env.drop_caches", "`writable` or `not writable`"},
    {"flatbench.lib.rocksdb", "RocksDB version (`not built` without it)"},
    {"flatbench.lib.lmdb", "LMDB version"},
    {"flatbench.lib.compiler", "compiler and version"},
    {"flatbench.run_start", "ISO 8601 time the run started"},
    {"flatbench.schedule", "the interleaved order, in words"},
    {"flatbench.timing_overhead_ns",
     "measured cost of one pair of clock reads"},
    {"flatbench.device_reads_per_pass",
     "reads per device cell over all threads (0: no device cells)"},
    {"flatbench.verify_checksums",
     "every backend verified block checksums on read"},
    {"flatbench.evict", "how cold passes evicted: `drop_caches` or `fadvise`"},
    {"flatbench.device_profile",
     "present when bench was given `--device-profile P.json`: "
     "P.json's document whole, as `flatbench device --out` wrote it "
     "(bench/SWEEP_FORMAT.md, \"Device profile keys\"). Bench checks "
     "it before running anything: a missing file exits 66, one that "
     "is not JSON or not a valid profile 65, naming the file (and "
     "the key at fault), and no results are written"},
    {"flatbench.interruptions",
     "times the run stopped and was resumed from its journal (0: it ran "
     "in one go)"},
    {"flatbench.interruption_log",
     "present when it was interrupted: each gap, with when it began (the "
     "last pass finished before it), when the run resumed, how long it "
     "lasted and the pass it resumed at"},
};

constexpr Meaning kBackendKeyMeanings[] = {
    {"build_seconds", "build time, from the dataset's completion marker"},
    {"disk_bytes", "on-disk bytes, from the completion marker"},
    {"settings",
     "the backend's `Describe()` pairs as a JSON object of strings"},
    {"sanity_passed", "the pre-eviction sanity check passed"},
    {"sanity_keys", "keys the sanity check read (when it passed)"},
    {"sanity_error", "why it failed (then the backend has no entries)"},
    {"eviction", "`drop_caches`, `fadvise` or `none`"},
    {"preload", "what the backend's open preloads in cold mode"},
    {"warm_lock", "`mlock`, `mapped` or `refused: <reason>`"},
    {"device",
     "device cells: `measured`, `skipped: <reason>` or `failed: "
     "<reason>`"},
    {"error", "present only when the backend's process died without results"},
    {"data_files",
     "the files holding each table (`account`, `storage`: "
     "comma-separated paths), which the device cells read"},
    {"populated_bytes",
     "warm: bytes of the backend's own mappings populated before the "
     "passes"},
    {"warmup_reads",
     "warm: untimed hit reads before the passes, so the backend's "
     "own caches are in steady state: per table, the least of "
     "200,000, the table's hit keys and three per 4 KiB page of its "
     "files"},
    {"shape",
     "the store's shape when the dataset has a stream of blocks: `kind` "
     "`fresh` (bulk load of the aged state, `gen --blocks`) or `aged` "
     "(`flatbench age`, with its upkeep figures)"},
    {"open_shape",
     "the store's shape as its own metadata showed it when the worker "
     "opened it (RocksDB: per family, `levels` as `Ln:files/bytes` for each "
     "level that holds files, `l0_files` and `sst_bytes`), for a fresh "
     "store as for an aged one"},
    {"start_seconds",
     "seconds from the request to the answer of the worker's first "
     "request: its open and sanity check"},
    {"warm_begin_seconds",
     "warm: seconds from the request to the answer of the warm begin: "
     "the files read in and held, and the warm-up reads"},
};

constexpr Meaning kBackendCounterMeanings[] = {
    {"data_blocks_read",
     "data blocks read from the SST files (page cache or device), not found "
     "in the block cache: RocksDB's `block_read_count` less its index, "
     "filter and compression-dictionary block reads"},
    {"index_blocks_read",
     "index blocks read from the files (`index_block_read_count`): 0 when "
     "the open preloads them (cold), each first use in cold-lazy"},
    {"filter_blocks_read",
     "filter blocks read from the files (`filter_block_read_count`): 0 "
     "when the open preloads them (cold), each first use in cold-lazy"},
    {"filter_probes",
     "SST files whose filter a read asked (files whose key range holds the "
     "key): `bloom_filter_useful` + `bloom_filter_full_positive` of the "
     "level's per-level perf context; the total is the levels' sum"},
    {"filter_false_positives",
     "probes that answered \"maybe\" for a key the file does not hold: "
     "`bloom_filter_full_positive` - `bloom_filter_full_true_positive` (a "
     "key's tombstone counts as held); the total is the levels' sum"},
    {"block_cache_misses",
     "blocks looked up in the block cache and read from the file "
     "(`block_cache_miss_count`): data blocks, and in cold-lazy index and "
     "filter blocks; the total is the levels' sum"},
    {"block_cache_hits",
     "blocks found in the block cache (`block_cache_hit_count`): blocks "
     "read before in the same pass, since each cold pass opens a fresh "
     "cache; the total is the levels' sum"},
};

std::string_view Find(std::span<const Meaning> table, std::string_view name) {
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const Meaning& m) { return m.name == name; });
  return it == table.end() ? std::string_view() : it->text;
}

}  // namespace

std::span<const Meaning> CounterMeanings() { return kCounterMeanings; }
std::span<const Meaning> ContextKeyMeanings() { return kContextKeyMeanings; }
std::span<const Meaning> BackendKeyMeanings() { return kBackendKeyMeanings; }
std::span<const Meaning> BackendCounterMeanings() {
  return kBackendCounterMeanings;
}

std::string_view MeaningOf(const Counter& counter) {
  return Find(kCounterMeanings, counter.name);
}
std::string_view MeaningOf(const ContextKey& key) {
  return Find(kContextKeyMeanings, key.name);
}
std::string_view MeaningOf(const BackendContextKey& key) {
  return Find(kBackendKeyMeanings, key.name);
}

std::string_view MeaningOf(const BackendCounter& counter) {
  return Find(kBackendCounterMeanings, counter.name);
}

}  // namespace flatbench::results
