#include "bench/scan_pass.h"

#include <xxhash.h>

#include <cstring>

#include "common/hex.h"
#include "common/results_ops.h"

namespace flatbench::bench {

// Validates one page pair by pair without allocating: the previous key is
// kept in a fixed buffer (keys are at most kStorageKeySize bytes).
class ScanReader::Checker : public ScanVisitor {
 public:
  void Start(std::string_view seek) {
    seek_ = seek;
    count_ = 0;
    checksum_ = 0;
    problem_ = nullptr;
  }
  void Visit(std::string_view key, std::string_view value) override {
    if (problem_ == nullptr) {
      if (key.size() != seek_.size()) {
        problem_ = "a key of the wrong width";
      } else if (count_ == 0 && key != seek_) {
        problem_ = "the first key is not the seek key";
      } else if (count_ > 0 &&
                 std::memcmp(prev_, key.data(), key.size()) >= 0) {
        problem_ = "keys out of order";
      }
    }
    if (key.size() <= sizeof(prev_)) std::memcpy(prev_, key.data(), key.size());
    checksum_ += XXH3_64bits_withSeed(value.data(), value.size(),
                                      XXH3_64bits(key.data(), key.size()));
    ++count_;
  }
  uint32_t count() const { return count_; }
  uint64_t checksum() const { return checksum_; }
  const char* problem() const { return problem_; }

 private:
  std::string_view seek_;
  char prev_[kStorageKeySize] = {};
  uint32_t count_ = 0;
  uint64_t checksum_ = 0;
  const char* problem_ = nullptr;
};

ScanTally MergeTallies(const std::vector<ScanTally>& tallies) {
  ScanTally sum;
  for (const auto& t : tallies) {
    sum.scans += t.scans;
    sum.entries += t.entries;
    sum.checksum += t.checksum;
  }
  return sum;
}

void AddScanCounters(const ScanTally& total, uint32_t scan_length,
                     nlohmann::json* entry) {
  nlohmann::json& e = *entry;
  const double per_scan = total.scans ? static_cast<double>(total.entries) /
                                            static_cast<double>(total.scans)
                                      : 0.0;
  e[std::string(results::kScanLength.name)] = static_cast<double>(scan_length);
  e[std::string(results::kEntriesPerScan.name)] = per_scan;
  e[std::string(results::kEntriesPerS.name)] =
      e.value(std::string(results::kReadsPerS.name), 0.0) * per_scan;
  e[std::string(results::kScanChecksum.name)] =
      static_cast<double>(RecordedChecksum(total.checksum));
}

ScanReader::ScanReader(std::unique_ptr<ReadSession> session,
                       std::string backend, Table table, const KeyPlan& plan,
                       int thread, uint32_t limit, ScanTally* tally)
    : session_(std::move(session)),
      backend_(std::move(backend)),
      table_(table),
      plan_(plan),
      thread_(thread),
      limit_(limit),
      tally_(tally),
      checker_(std::make_unique<Checker>()) {}

ScanReader::~ScanReader() = default;

Status ScanReader::Read(uint64_t i, bool* found) {
  const std::string_view seek = plan_.Key(thread_, i);
  checker_->Start(seek);
  uint32_t count = 0;
  Status st = session_->Scan(table_, seek, limit_, checker_.get(), &count);
  const char* problem = checker_->problem();
  if (st.ok() && problem == nullptr) {
    if (count != checker_->count()) {
      problem = "the count differs from the pairs passed";
    } else if (count == 0) {
      problem = "no pair at an existing key";
    } else if (count > limit_) {
      problem = "more pairs than asked for";
    }
  }
  if (!st.ok() || problem != nullptr) [[unlikely]] {
    const std::string where =
        backend_ + ": scan of " + TableName(table_) + " from " + ToHex(seek);
    if (!st.ok()) return st.WithContext(where);
    return Status::Corruption(where + ": " + problem + " (" +
                              std::to_string(count) + " pairs)");
  }
  *found = count == limit_;
  ++tally_->scans;
  tally_->entries += count;
  tally_->checksum += checker_->checksum();
  return Status::Ok();
}

}  // namespace flatbench::bench
