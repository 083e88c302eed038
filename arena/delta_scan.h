#pragma once
// A base's ordered reads merged with a sorted delta (arena/delta.h): its
// puts in place, its erases left out. What the read paths that layer a
// delta over a base (`arena+delta`, arena/delta_backend.h, and the live
// store, arena/live_store.h) share.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arena/delta.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

// A page of the base's pairs, reused from one scan to the next.
using ScanPage = std::vector<std::pair<std::string, std::string>>;

// ReadSession::Scan over `base` merged with `ops` (one table's, strictly
// ascending): the base read a page at a time from `start`, merged with the
// ops that page covers. Errors: the base's.
Status ScanWithDelta(ReadSession& base, const std::vector<DeltaOp>& ops,
                     Table table, std::string_view start, uint32_t limit,
                     ScanVisitor* visitor, uint32_t* count, ScanPage* page);

// The pairs of `table` in `base` with `ops` (one table's, strictly
// ascending) applied: the base's count, the new keys added and the erased
// ones taken away (each looked up in the base).
Result<uint64_t> CountWithDelta(Backend& base, Table table,
                                const std::vector<DeltaOp>& ops);

// The base's walk merged with `ops`; `ops` must outlive the scan.
class DeltaScan final : public TableScan {
 public:
  DeltaScan(const std::vector<DeltaOp>& ops, std::unique_ptr<TableScan> base)
      : ops_(ops), base_(std::move(base)) {}

  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override;

 private:
  const std::vector<DeltaOp>& ops_;
  std::unique_ptr<TableScan> base_;
  size_t next_op_ = 0;
  bool base_read_ = false;
  bool base_valid_ = false;
  std::string_view bk_, bv_;
};

}  // namespace flatbench::arena
