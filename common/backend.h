#pragma once
// The read and bulk-load interfaces every storage backend implements.
//
// A backend holds two tables (account and storage) of fixed-width keys and
// variable-length values. Readers open one ReadSession per thread; a session
// does no heap allocation per Get.

#include <csignal>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace flatbench {

enum class Table : int { kAccount = 0, kStorage = 1 };
inline constexpr int kNumTables = 2;
inline constexpr size_t kAccountKeySize = 20;
inline constexpr size_t kStorageKeySize = 52;

inline const char* TableName(Table t) {
  return t == Table::kAccount ? "account" : "storage";
}
inline size_t KeySize(Table t) {
  return t == Table::kAccount ? kAccountKeySize : kStorageKeySize;
}
// Parses "account" or "storage"; returns false for anything else.
bool ParseTable(std::string_view name, Table* out);

// Options that shape how a backend is opened for reading.
struct OpenOptions {
  // Cold-lazy mode: preload no metadata (arena: index and filter stay in the
  // map; RocksDB: index and filter blocks go through a fresh block cache).
  bool lazy_metadata = false;
  // Verify block checksums where the backend supports it (each backend's
  // header says when: on every read, or once per block).
  bool verify_checksums = false;
  // With verify_checksums, check on every read where a backend would check
  // once per block (the arena's mmap path); for measuring that cost.
  bool verify_every_read = false;
  // Bytes of block cache for a cache this project configures (the arena's
  // cache read path, shared by its two tables in proportion to their data).
  // RocksDB's caches keep their production sizes (RESEARCH.md §3).
  uint64_t cache_bytes = uint64_t{1} << 30;
  // How MultiGet brings in a batch's pages, for measuring the two ways
  // (RESEARCH.md, "Batched lookups"): the arena submits the blocks it lacks
  // together with io_uring (false: a pread loop); LMDB advises the batch's
  // leaf pages with madvise(MADV_WILLNEED) before its loop of mdb_get
  // (false: the loop alone). Others ignore it.
  bool batch_prefetch = true;
};

// Settings as ordered name/value pairs, for reports.
using Settings = std::vector<std::pair<std::string, std::string>>;

// Receives the pairs of one ReadSession::Scan, in ascending key order.
class ScanVisitor {
 public:
  virtual ~ScanVisitor() = default;
  // `key` and `value` are valid only for the duration of the call.
  virtual void Visit(std::string_view key, std::string_view value) = 0;
};

// One key's answer in a batch (ReadSession::MultiGet): its value, not
// found, or its own error.
struct GetResult {
  // Non-ok: this key's I/O error or corruption (or kUsage for a key of the
  // wrong width); found and value are then unset.
  Status status;
  bool found = false;
  std::string_view value;  // When found.
};

// What a session's batches asked of the storage, summed over its
// MultiGet calls (for the bench's batch cells). Backends that do not know
// leave it zero.
struct BatchIoStats {
  uint64_t batches = 0;
  // Batches whose reads were in flight together, and those reads: the
  // arena's io_uring (a batch's blocks not already in memory, each
  // submitted as it is placed and all before the first is waited for);
  // LMDB's advice (one per batch, of the pages it advised).
  uint64_t submissions = 0;
  uint64_t reads = 0;
  // The most reads the session had in flight at once.
  uint64_t max_depth = 0;
  // Reads done with pread one after the other (no io_uring at build or
  // run time, a page already cached, a short read retried).
  uint64_t sync_reads = 0;
  // Whether the submissions were reads this session itself had in flight
  // together (the arena's io_uring), so that max_depth and reads /
  // submissions are I/O depths reached; false for advice (LMDB's madvise),
  // which the kernel reads at its own pace.
  bool submits_reads = false;
};

// What a session's reads cost in the backend's own counts (RocksDB's perf
// context): name and total pairs, named as the results contract's backend
// counters (common/results_schema.h): a name, or "L<n>." and a name for
// the reads' share in the files of level n.
using ReadCost = std::vector<std::pair<std::string, uint64_t>>;

// One reader thread's handle. Not thread-safe: use one per thread.
class ReadSession {
 public:
  virtual ~ReadSession() = default;
  // Looks up `key` in `table`. On success sets *found; when found, *value
  // views the value bytes. The view stays valid until the next Get on this
  // session or until the session is destroyed, whichever comes first
  // (backends may document a longer lifetime). Returns a non-ok status only
  // for I/O errors or corruption. Performs no heap allocation on success.
  virtual Status Get(Table table, std::string_view key, bool* found,
                     std::string_view* value) = 0;
  // An ordered page: positions at the first key >= `start` in `table` and
  // passes up to `limit` pairs, ascending, to `visitor`. *count is the
  // number passed; fewer than `limit` only at the table's end. Returns a
  // non-ok status only for I/O errors or corruption (then *count says how
  // many pairs were passed before it).
  virtual Status Scan(Table table, std::string_view start, uint32_t limit,
                      ScanVisitor* visitor, uint32_t* count) = 0;
  // A batch of lookups in `table`: results[i] answers keys[i], exactly as
  // Get(table, keys[i]) would. Keys may come in any order and repeat; each
  // key gets its own status, so an I/O error or a corrupt block fails only
  // the keys it holds. Values stay valid until the next Get, Scan or
  // MultiGet on this session. Returns non-ok only for the call as a whole:
  // kUsage when the spans' sizes differ. The default is a loop of Get that
  // copies each value into the session's storage (the reference stores
  // have no batch API; RESEARCH.md, "Batched lookups").
  virtual Status MultiGet(Table table, std::span<const std::string_view> keys,
                          std::span<GetResult> results);
  // Totals of this session's batches (see BatchIoStats).
  virtual BatchIoStats BatchIo() const { return batch_io_; }
  // Starts counting, in the backend's own statistics, what this session's
  // Gets cost on the calling thread (blocks read, filter probes), from now
  // on. RocksDB's counters belong to the thread, so call it on the thread
  // that reads, and TakeReadCost on the same thread. Counting costs a
  // little CPU time per read. Returns false when the backend keeps no such
  // counts (the default).
  virtual bool StartReadCost() { return false; }
  // The counts since StartReadCost of the calling thread's reads, and stops
  // counting. Empty without StartReadCost. Allocates: call it outside a
  // timed loop.
  virtual ReadCost TakeReadCost() { return {}; }

 protected:
  // The default MultiGet's storage: values copied one after another, and
  // where each starts. Reused across calls (no allocation once grown).
  std::string batch_values_;
  std::vector<size_t> batch_offsets_;
  BatchIoStats batch_io_;
};

// Points each found result's value into `values` at its offset in
// `offsets` (MultiGet copies values into one growing string, then views
// them once it stops growing).
void ViewBatchValues(const std::string& values, std::span<const size_t> offsets,
                     std::span<GetResult> results);

// The structure a point read in one table walks, read from the backend's
// own metadata (not measured), for the geometric model of reads per hit
// and per miss (report/prediction/model.h, RESEARCH.md).
struct ReadGeometry {
  uint64_t pairs = 0;
  // Units a hit reads from storage: arena data blocks, RocksDB data blocks,
  // LMDB leaf and overflow pages; and their bytes on disk.
  uint64_t data_units = 0;
  uint64_t data_bytes = 0;
  // Whether every data unit starts on a 4 KiB page boundary (arena, LMDB);
  // RocksDB's blocks do not, so one may straddle pages.
  bool data_page_aligned = false;
  // The read metadata a lookup consults before the data: arena block index
  // and bloom filter, RocksDB index and filter blocks, LMDB branch pages.
  uint64_t index_bytes = 0;
  uint64_t filter_bytes = 0;
  // Levels of index above the data (LMDB: tree depth - 1; others 1).
  uint32_t index_levels = 1;
  // The filter's expected false-positive rate from its own parameters;
  // 1 without a filter.
  double filter_fp_rate = 1;
};

// An ordered walk over one table of a backend, for the full verify (not
// the bench's read path). Not thread-safe. Must not outlive the backend
// that opened it.
class TableScan {
 public:
  virtual ~TableScan() = default;
  // Moves to the next pair in ascending key order (the first pair on the
  // first call) and sets *valid; false means the table has no more pairs.
  // When *valid, *key and *value view the pair until the next call or the
  // scan's destruction. A read error or corruption ends the scan with a
  // non-ok status (kCorruption or kIOError).
  virtual Status Next(bool* valid, std::string_view* key,
                      std::string_view* value) = 0;
};

// An open, read-only backend. Thread-safe: sessions may be used concurrently.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string Name() const = 0;
  // A new per-thread read session.
  virtual Result<std::unique_ptr<ReadSession>> NewSession() = 0;
  // Bytes of metadata this backend holds resident in memory outside the
  // page cache after open (index, filter, table readers, block cache).
  virtual uint64_t ResidentMetadataBytes() const = 0;
  // Options in force, for the report.
  virtual Settings Describe() const = 0;
  // The files that hold `table`'s data, for the device cells' O_DIRECT
  // reads (arena: the table's file; RocksDB: the column family's SST files;
  // LMDB: data.mdb). Empty: every file of the backend.
  virtual std::vector<std::string> DataFiles(Table /*table*/) const {
    return {};
  }
  // The store's shape as its own metadata shows it at open, for the
  // report beside what its reads cost: RocksDB's files and bytes per level
  // of each family. Empty where a backend has no such shape (the default).
  virtual Settings OpenShape() const { return {}; }
  // Processes other than this one that serve this backend's reads (a
  // database server's postmaster and backends), for memory accounting:
  // their resident memory counts toward the backend's. Empty for embedded
  // backends.
  virtual std::vector<int> ServerProcesses() const { return {}; }
  // The structure of `table`'s read path (see ReadGeometry). Backends
  // without one return kUsage naming themselves; the model skips them.
  virtual Result<ReadGeometry> Geometry(Table /*table*/) const {
    return Status::Usage(Name() + ": reports no read geometry");
  }
  // Exact number of pairs in `table`, from the backend's own metadata
  // (arena header, RocksDB table properties, LMDB mdb_stat).
  virtual Result<uint64_t> CountPairs(Table table) const = 0;
  // An ordered walk of every pair of `table`, checking what the backend
  // checks as it reads (see TableScan). Default: kUsage, no ordered walk.
  virtual Result<std::unique_ptr<TableScan>> OpenScan(Table table);
  // The backend's own whole-store check, where it keeps checksums or a
  // check of its own (the arena's block checksums, RocksDB's
  // VerifyChecksum, SQLite's integrity_check). Returns what it showed, in a
  // few words for verify's summary; kCorruption naming the file on a
  // defect. Default: nothing to check, "no checksums (NAME keeps none)".
  virtual Result<std::string> CheckIntegrity();
};

// The pairs of one bucket of a load: every pair of one table whose key
// starts with one byte, ascending (BulkLoader::Prepare).
class PairRun {
 public:
  virtual ~PairRun() = default;
  virtual size_t size() const = 0;
  virtual std::string_view key(size_t i) const = 0;
  virtual std::string_view value(size_t i) const = 0;
};

class BulkLoader;

// A bucket a loader has built off the generating thread, waiting to be
// committed (BulkLoader::Commit). Opaque outside its loader: each loader
// has its own part type, which knows what it holds and places itself, so
// that no loader casts a part back to its type.
class LoadPart {
 public:
  virtual ~LoadPart() = default;
  // What `loader`'s Commit does with this part: places it after every pair
  // given so far. kUsage when `loader` did not prepare it.
  virtual Status AppendTo(BulkLoader* loader) = 0;
};

// Streams ascending key/value pairs into a new backend. Tables are written
// one after the other: every account pair, then every storage pair.
class BulkLoader {
 public:
  virtual ~BulkLoader() = default;
  // REQUIRES: keys of one table arrive in strictly ascending order, and the
  // account table is complete before the first storage key.
  virtual Status Add(Table table, std::string_view key,
                     std::string_view value) = 0;
  // Makes the data durable. Only after Finish returns ok is the backend
  // complete; a loader destroyed without Finish leaves no valid backend.
  virtual Status Finish() = 0;

  // Whether the loader builds whole buckets (by the key's first byte) with
  // Prepare and Commit. A loader whose files split that way (the arena's
  // shards) does the bulk of its work in Prepare, on any thread and for
  // several buckets at once; Commit, on the generating thread in order,
  // only places the result. Default: no, the loader takes Add.
  virtual bool TakesBuckets() const { return false; }
  // Builds `run` (pairs of `table` whose keys share their first byte;
  // ascending, not empty) into a part. Thread-safe, and no part depends on
  // another's. Errors: kCorruption for a run Add would refuse (key width,
  // value size, order). Default: kUsage (TakesBuckets is false).
  virtual Result<std::unique_ptr<LoadPart>> Prepare(Table table,
                                                    const PairRun& run);
  // Places `part` (from Prepare on this loader) after every pair given so
  // far, as Add of its pairs would; tables and buckets in ascending order.
  // Default: kUsage.
  virtual Status Commit(std::unique_ptr<LoadPart> part);
};

// One key's change in a block of the stream that ages a store: `key` takes
// `value`, or is erased.
struct KeyChange {
  Table table = Table::kAccount;
  std::string_view key;
  bool erase = false;
  std::string_view value;  // Unless erase.
};

// How a StoreWriter is made (flatbench age): `jobs` where the engine can use
// them, `merge_every` for a store kept packed by merges (the arena),
// `stop` checked by long steps (a relevel, a merge), whether it may print
// progress lines, `from_block`, the blocks of the stream the store holds
// durably by its own last checkpoint (the next block applied is that
// one), and the arena's log tail.
struct WriterOptions {
  unsigned jobs = 1;
  uint64_t merge_every = 1;
  const volatile std::sig_atomic_t* stop = nullptr;
  bool progress = false;
  uint64_t from_block = 0;
  // The stream's last block + 1, and how many of its last blocks the
  // arena leaves in its log after the final merge (the delta the
  // `arena+delta` read path reads; 0: none).
  uint64_t to_block = 0;
  uint64_t log_tail = 0;
};

// Whether a store has reached the steady state the default stream aims for
// (RESEARCH.md, section 11): `applies` false for a store with no such
// condition; `met` once reached; `what` the figures that say how far it is.
struct Steadiness {
  bool applies = false;
  bool met = false;
  std::string what;
};

// Applies the stream's blocks to a store through the write path a running
// node uses (flatbench age): RocksDB a WriteBatch per block with its
// automatic compactions, LMDB a write transaction per block, the arena a
// delta of blocks merged into a new base now and then (arena/merge.h).
// Driven from one thread.
class StoreWriter {
 public:
  virtual ~StoreWriter() = default;
  // Applies one block: `changes` touch each key at most once, and no
  // change depends on another, so applying a block twice, or again after
  // the blocks that followed it, leaves the same state.
  virtual Status ApplyBlock(std::span<const KeyChange> changes) = 0;
  // How many of the blocks applied so far are durable, after making
  // durable what is cheap to (a WAL sync); the arena counts only merged
  // blocks and merges when it has gathered its blocks per merge.
  virtual Result<uint64_t> Checkpoint() = 0;
  // Makes every applied block durable as a node would at a clean stop
  // (RocksDB flushes its memtables, no manual compaction; the arena merges
  // what it gathered). Nothing may be applied after it.
  virtual Status Finish() = 0;
  // The store's shape and upkeep figures from its own statistics, for the
  // dataset's record and the report: RocksDB's files and bytes per level
  // and flush and compaction bytes, LMDB's pages and free pages, the
  // arena's merges. Valid after Finish. A store whose files another
  // process writes (a database server) says so with a "written_by" pair:
  // this process's write count is then not the store's.
  virtual Settings Upkeep() const = 0;
  // Its steady-state condition after the blocks applied so far; cheap
  // enough to ask after every block.
  virtual Steadiness Steady() { return {}; }
};

}  // namespace flatbench
