#include "arena/backend.h"

#include <sys/stat.h>

#include "arena/batch.h"
#include "arena/iterator.h"
#include "arena/verify.h"

namespace flatbench::arena {
namespace {

class ArenaSession final : public ReadSession {
 public:
  explicit ArenaSession(const ArenaBackend& backend) : backend_(backend) {
    for (int t = 0; t < kNumTables; ++t) {
      if (backend.reader(static_cast<Table>(t)).NeedsBuffer()) {
        buffers_[t] = std::make_unique<ReadBuffer>();
      }
    }
  }

  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    const int t = static_cast<int>(table);
    return backend_.reader(table).Get(key, found, value, buffers_[t].get());
  }

  // The reader's own batch (reader_batch.cc), one scratch per table.
  Status MultiGet(Table table, std::span<const std::string_view> keys,
                  std::span<GetResult> results) override {
    if (keys.size() != results.size()) {
      return ReadSession::MultiGet(table, keys, results);  // its kUsage
    }
    auto& scratch = batches_[static_cast<int>(table)];
    if (scratch == nullptr) {
      scratch = std::make_unique<BatchScratch>(backend_.batch_uring());
    }
    backend_.reader(table).MultiGet(keys, results, scratch.get());
    ++batch_io_.batches;
    return Status::Ok();
  }

  BatchIoStats BatchIo() const override {
    BatchIoStats stats = batch_io_;
    for (const auto& b : batches_) {
      if (b != nullptr) b->io().AddTo(&stats);
    }
    return stats;
  }

  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    *count = 0;
    auto& it = iterators_[static_cast<int>(table)];
    // One iterator per table for the session's life: a scan reuses its
    // buffer, so it allocates nothing after the first.
    if (it == nullptr) it = std::make_unique<Iterator>(backend_.reader(table));
    it->Seek(start);
    for (; *count < limit && it->Valid(); it->Next()) {
      visitor->Visit(it->key(), it->value());
      ++*count;
    }
    return it->status();
  }

 private:
  const ArenaBackend& backend_;
  std::array<std::unique_ptr<ReadBuffer>, kNumTables> buffers_;
  std::array<std::unique_ptr<Iterator>, kNumTables> iterators_;
  std::array<std::unique_ptr<BatchScratch>, kNumTables> batches_;
};

// TableScan over the arena's own Iterator.
class ArenaScan final : public TableScan {
 public:
  explicit ArenaScan(const Reader& reader) : it_(reader) {}
  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override {
    if (started_) {
      it_.Next();
    } else {
      it_.SeekToFirst();
      started_ = true;
    }
    *valid = it_.Valid();
    if (!*valid) return it_.status();
    *key = it_.key();
    *value = it_.value();
    return Status::Ok();
  }

 private:
  Iterator it_;
  bool started_ = false;
};

}  // namespace

std::string ArenaPath(const std::string& dir, Table table) {
  return dir + "/" + TableName(table) + ".arena";
}

Result<std::unique_ptr<ArenaBackend>> ArenaBackend::Open(
    const std::string& dir, const OpenOptions& options, ReadPath read_path) {
  std::unique_ptr<ArenaBackend> backend(new ArenaBackend());
  backend->dir_ = dir;
  backend->options_ = options;
  backend->read_path_ = read_path;
  ReaderOptions ro;
  ro.lazy = options.lazy_metadata;
  ro.verify_checksums = options.verify_checksums;
  ro.verify_every_read = options.verify_every_read;
  ro.read_path = read_path;
  // The cache read path splits options.cache_bytes between the tables in
  // proportion to their files' sizes (a missing file fails in Open below).
  uint64_t file_bytes[kNumTables] = {};
  uint64_t total_bytes = 0;
  for (int t = 0; t < kNumTables; ++t) {
    struct stat st {};
    if (::stat(ArenaPath(dir, static_cast<Table>(t)).c_str(), &st) == 0) {
      file_bytes[t] = static_cast<uint64_t>(st.st_size);
      total_bytes += file_bytes[t];
    }
  }
  for (int t = 0; t < kNumTables; ++t) {
    const Table table = static_cast<Table>(t);
    ro.cache_bytes = total_bytes == 0
                         ? options.cache_bytes / kNumTables
                         : static_cast<uint64_t>(
                               static_cast<long double>(options.cache_bytes) *
                               file_bytes[t] / total_bytes);
    FLATBENCH_ASSIGN_OR_RETURN(auto reader,
                               Reader::Open(ArenaPath(dir, table), ro));
    if (reader->key_width() != KeySize(table)) {
      return Status::Corruption(ArenaPath(dir, table) + ": key width " +
                                std::to_string(reader->key_width()) +
                                ", expected " + std::to_string(KeySize(table)));
    }
    backend->readers_[t] = std::move(reader);
  }
  return backend;
}

std::string ArenaBackend::Name() const {
  if (read_path_ == ReadPath::kMmap) return "arena";
  return std::string("arena+") + ReadPathName(read_path_);
}

std::vector<std::string> ArenaBackend::AdviceWarnings() const {
  std::vector<std::string> out;
  for (const auto& r : readers_) {
    for (const auto& w : r->AdviceWarnings()) {
      out.push_back(r->info().path + ": " + w);
    }
  }
  return out;
}

Result<std::unique_ptr<ReadSession>> ArenaBackend::NewSession() {
  return std::unique_ptr<ReadSession>(new ArenaSession(*this));
}

uint64_t ArenaBackend::ResidentMetadataBytes() const {
  uint64_t bytes = 0;
  for (const auto& r : readers_) bytes += r->info().resident_bytes;
  return bytes;
}

Result<std::unique_ptr<TableScan>> ArenaBackend::OpenScan(Table table) {
  return std::unique_ptr<TableScan>(new ArenaScan(reader(table)));
}

Result<std::string> ArenaBackend::CheckIntegrity() {
  uint64_t blocks = 0;
  uint64_t checksums = 0;
  for (Table t : {Table::kAccount, Table::kStorage}) {
    VerifyReport report;
    FLATBENCH_RETURN_IF_ERROR(VerifyFile(ArenaPath(dir_, t), &report));
    blocks += report.block_count;
    checksums += report.checksums_checked;
  }
  return "every block checksum checked (" + std::to_string(checksums) +
         " checksums, " + std::to_string(blocks) + " blocks)";
}

Result<uint64_t> ArenaBackend::CountPairs(Table table) const {
  return reader(table).info().key_count;
}

Result<ReadGeometry> ArenaBackend::Geometry(Table table) const {
  const ArenaInfo& i = reader(table).info();
  ReadGeometry g;
  g.pairs = i.key_count;
  g.data_units = i.block_count;
  g.data_bytes = i.data_bytes;
  g.data_page_aligned = true;  // FORMAT.md: every block starts on 4 KiB.
  g.index_bytes = i.index_bytes;
  g.filter_bytes = i.filter_bytes;
  g.index_levels = 1;
  g.filter_fp_rate = i.bloom_bits_per_key > 0 ? i.expected_fp_rate : 1.0;
  return g;
}

Settings ArenaBackend::Describe() const {
  Settings s;
  s.emplace_back("dir", dir_);
  s.emplace_back("shards", std::to_string(kNumShards));
  s.emplace_back("block_size", std::to_string(kBlockSize));
  s.emplace_back("lazy_metadata", options_.lazy_metadata ? "true" : "false");
  s.emplace_back("preload", options_.lazy_metadata
                                ? "nothing: the index and filter are read "
                                  "through the map on first use"
                                : "the index and filter of every shard, read "
                                  "at open from their own pages");
  // What the read path does is its source's to say (the tables share it).
  const Reader& any = *readers_[0];
  s.emplace_back("verify_checksums",
                 !options_.verify_checksums
                     ? std::string("false")
                     : std::string("true: ") + any.checksum_rule());
  s.emplace_back("read_path", ReadPathName(read_path_));
  if (any.cache() != nullptr) {
    uint64_t frames = 0;
    for (const auto& r : readers_) frames += r->cache()->frame_bytes();
    s.emplace_back("block_cache",
                   std::to_string(options_.cache_bytes) +
                       " bytes asked, split by file size; " +
                       std::to_string(frames) +
                       " bytes of 4 KiB frames (at most one per block, "
                       "2 MiB pages where allowed, filled on first use); "
                       "CLOCK eviction");
    std::string loads;
    for (const auto& r : readers_) {
      if (loads.find(r->cache_loads()) == std::string::npos) {
        loads += (loads.empty() ? "" : "; ") + r->cache_loads();
      }
    }
    s.emplace_back("cache_loads", "blocks not in the page cache: " + loads +
                                      "; blocks in it: buffered pread");
  }
  const BatchIo probe(options_.batch_prefetch);
  s.emplace_back("batch_reads",
                 probe.uring()
                     ? std::string("io_uring: a batch's blocks not in "
                                   "memory, each submitted as it is planned")
                     : std::string("pread loop (") + probe.why_not() + ")");
  s.emplace_back("madvise", "MADV_RANDOM");
  std::string advice;
  for (const auto& w : AdviceWarnings()) {
    advice += (advice.empty() ? "" : "; ") + w;
  }
  s.emplace_back("advice_warnings", advice.empty() ? "none" : advice);
  for (int t = 0; t < kNumTables; ++t) {
    const ArenaInfo& i = readers_[t]->info();
    const std::string p = std::string(TableName(static_cast<Table>(t))) + ".";
    s.emplace_back(p + "format_version", std::to_string(i.format_version));
    s.emplace_back(p + "key_width", std::to_string(i.key_width));
    s.emplace_back(p + "compression", i.compressed ? "zstd" : "none");
    s.emplace_back(p + "bloom_bits_per_key",
                   std::to_string(i.bloom_bits_per_key));
    s.emplace_back(p + "bloom_probes", std::to_string(i.bloom_probes));
    s.emplace_back(p + "keys", std::to_string(i.key_count));
    s.emplace_back(p + "blocks", std::to_string(i.block_count));
    s.emplace_back(p + "file_bytes", std::to_string(i.file_bytes));
    s.emplace_back(p + "index_bytes", std::to_string(i.index_bytes));
    s.emplace_back(p + "filter_bytes", std::to_string(i.filter_bytes));
  }
  return s;
}

}  // namespace flatbench::arena
