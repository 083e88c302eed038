#pragma once
// The arena behind the shared read interface: DIR/account.arena and
// DIR/storage.arena, one Reader each. The same files can be opened with any
// ReadPath; each is a variant with its own name ("arena", "arena+pread",
// "arena+direct", "arena+cache").

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arena/reader.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

// File of `table` inside a dataset directory: DIR/account.arena or
// DIR/storage.arena.
std::string ArenaPath(const std::string& dir, Table table);

class ArenaBackend final : public Backend {
 public:
  // Opens both table files of `dir`. OpenOptions::lazy_metadata maps to
  // ReaderOptions::lazy and verify_checksums to verify_checksums. Errors as
  // Reader::Open, prefixed by the file's path.
  static Result<std::unique_ptr<ArenaBackend>> Open(
      const std::string& dir, const OpenOptions& options,
      ReadPath read_path = ReadPath::kMmap);

  // "arena" for the mmap read path, else "arena+pread" / "arena+direct" /
  // "arena+cache".
  std::string Name() const override;
  // Sessions are cheap. With the mmap read path, values they return from
  // uncompressed files stay valid while this backend lives (longer than the
  // interface promises); otherwise until the session's next Get.
  Result<std::unique_ptr<ReadSession>> NewSession() override;
  // Index and filter bytes copied into memory (0 with lazy_metadata).
  uint64_t ResidentMetadataBytes() const override;
  Settings Describe() const override;
  // From the file header; never fails once open.
  Result<uint64_t> CountPairs(Table table) const override;
  Result<ReadGeometry> Geometry(Table table) const override;
  // The arena's own Iterator over `table`'s reader: every block it enters
  // is checked against its checksum.
  Result<std::unique_ptr<TableScan>> OpenScan(Table table) override;
  // A full walk of both files (arena::VerifyFile): every block checksum,
  // key order, counts and shard boundaries.
  Result<std::string> CheckIntegrity() override;
  std::vector<std::string> DataFiles(Table table) const override {
    return {ArenaPath(dir_, table)};
  }

  // Whether sessions' batches submit their reads with io_uring
  // (OpenOptions::batch_prefetch).
  bool batch_uring() const { return options_.batch_prefetch; }

  const Reader& reader(Table table) const {
    return *readers_[static_cast<int>(table)];
  }
  // Failed posix_fadvise/madvise calls of both files, "FILE: what" each.
  std::vector<std::string> AdviceWarnings() const;

 private:
  ArenaBackend() = default;
  std::string dir_;
  OpenOptions options_;
  ReadPath read_path_ = ReadPath::kMmap;
  std::array<std::unique_ptr<Reader>, kNumTables> readers_;
};

}  // namespace flatbench::arena
