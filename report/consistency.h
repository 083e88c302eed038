#pragma once
// Fields of one results file that must agree with each other: a file whose
// fields contradict each other describes no run that could have happened,
// so the report refuses it (kCorruption, exit 65) naming both fields,
// rather than giving it a verdict. The checks within one benchmarks[]
// entry live in entry.cc; these compare the context with the entries and
// entries with each other:
//
//   - the spec's counts ("accounts=N slots_per_account=M") against
//     flatbench.dataset.accounts and flatbench.dataset.slots_per_account;
//     a spec without either count is refused too (bench writes both): the
//     scale gate reads the dataset keys, and a run that cannot show its
//     counts in both places could pass for any scale;
//   - each read pass's file_pages (4 KiB pages of the backend's files)
//     against the backend's disk_bytes (allocated bytes of the same files),
//     within a factor of kSizeFactor either way plus kSizeSlackBytes; and
//     each device pass's device_file_bytes (a table's files, a part of the
//     backend's) at most that far above disk_bytes;
//   - each cold hit's device_reads_per_s against the reads_per_s of its
//     adjacent device cell (same backend, table, mode, threads and
//     repetition), which it copies.

#include <string>

#include "common/status.h"
#include "report/run_data.h"

namespace flatbench::report {

// Pages and allocated bytes count the same files, taken at different times
// and by different means (page-rounded sizes against allocated blocks,
// logs and preallocation), so only a gross disagreement is a contradiction.
inline constexpr double kSizeFactor = 4;
inline constexpr double kSizeSlackBytes = 64.0 * 1024 * 1024;

// kCorruption naming `file` and both fields when `results` (one file,
// parsed) contradicts itself; Ok otherwise.
Status CheckConsistency(const ResultSet& results, const std::string& file);

}  // namespace flatbench::report
