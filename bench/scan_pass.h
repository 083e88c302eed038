#pragma once
// The scan kind's reader: each operation seeks to one hit key of the
// cell's plan and reads the next scan_length pairs in key order through
// ReadSession::Scan, validating the page as it arrives.
//
// A page is valid when its first key is the seek key (drawn from the hit
// keys, so it exists), its keys strictly ascend, and it holds scan_length
// pairs or ends short (the session returns fewer only at the table's end).
// An invalid page fails the pass with kCorruption naming the backend, the
// table and the seek key. Each thread also sums XXH3-64 of every returned
// key and value (ScanTally), so backends that returned different pairs
// for the same seek keys show different checksums.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/key_plan.h"
#include "bench/pass.h"
#include "common/backend.h"

namespace flatbench::bench {

// One thread's scan totals, written by its ScanReader.
struct ScanTally {
  uint64_t scans = 0;
  uint64_t entries = 0;
  uint64_t checksum = 0;  // Sum of per-pair hashes, modulo 2^64.
};

// Sums of `tallies`; the checksum is order-free, so thread boundaries do
// not change it.
ScanTally MergeTallies(const std::vector<ScanTally>& tallies);

// The recorded checksum: the low 48 bits, exact as a JSON number.
inline uint64_t RecordedChecksum(uint64_t checksum) {
  return checksum & ((uint64_t{1} << 48) - 1);
}

// Adds the scan counters (results_ops.h) of a pass with these totals.
void AddScanCounters(const ScanTally& total, uint32_t scan_length,
                     nlohmann::json* entry);

// Sets *found to whether the page was full. Allocates nothing per scan
// after the first (the session keeps its iterator), except to describe a
// failure.
class ScanReader : public PassReader {
 public:
  // `backend` names the backend in errors. The plan, the tally and the
  // session's backend must outlive the reader.
  ScanReader(std::unique_ptr<ReadSession> session, std::string backend,
             Table table, const KeyPlan& plan, int thread, uint32_t limit,
             ScanTally* tally);
  ~ScanReader() override;
  Status Read(uint64_t i, bool* found) override;

 private:
  class Checker;
  std::unique_ptr<ReadSession> session_;
  std::string backend_;
  Table table_;
  const KeyPlan& plan_;
  int thread_;
  uint32_t limit_;
  ScanTally* tally_;
  std::unique_ptr<Checker> checker_;
};

}  // namespace flatbench::bench
