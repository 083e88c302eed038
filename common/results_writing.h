#pragma once
// The results contract's writing cells (bench --write-while-reading): hit
// keys read while the same store takes the dataset's stream of blocks.
//
//   <backend>/<table>/writing/<mode>/threads:<N>/rep:0
//
// A writing entry carries the point-read counters marked kOnWriting (one
// read is one Get, reads_per_s over the readers' wall time) and those
// below; kEntryReadSeries and kEntryMergeWindows are arrays on it
// (RESULTS_FORMAT.md, "Writing cells").
#include <string_view>

#include "common/results_schema.h"

namespace flatbench::results {

inline constexpr Counter kWritingSeconds{"writing_seconds", Type::kSeconds,
                                         kOnWriting};
inline constexpr Counter kBlocksApplied{"blocks_applied", Type::kCount,
                                        kOnWriting};
inline constexpr Counter kBlockRate{"block_rate", Type::kCount, kOnWriting};
inline constexpr Counter kBlockP50Ns{"block_p50_ns", Type::kNanos, kOnWriting};
inline constexpr Counter kBlockP99Ns{"block_p99_ns", Type::kNanos, kOnWriting};
inline constexpr Counter kBlockMaxNs{"block_max_ns", Type::kNanos, kOnWriting};
inline constexpr Counter kChecksDone{"checks_done", Type::kCount, kOnWriting};
inline constexpr Counter kChecksWrong{"checks_wrong", Type::kCount, kOnWriting};
inline constexpr Counter kWritingCapHit{"writing_cap_hit", Type::kFlag,
                                        kOnWriting};
inline constexpr Counter kSeriesIntervalS{"series_interval_s", Type::kSeconds,
                                          kOnWriting};
// The arena: merges that ended in the pass, their seconds, its merge rate,
// and the read figures inside and outside the merge windows.
inline constexpr Counter kMerges{"merges", Type::kCount, kOnWriting};
inline constexpr Counter kMergeSeconds{"merge_seconds", Type::kCount,
                                       kOnWriting};
inline constexpr Counter kMergeMbPerS{"merge_mb_per_s", Type::kRate,
                                      kOnWriting};
inline constexpr Counter kReadsPerSInMerge{"reads_per_s_in_merge", Type::kRate,
                                           kOnWriting};
inline constexpr Counter kLatP99NsInMerge{"lat_p99_ns_in_merge", Type::kNanos,
                                          kOnWriting};
inline constexpr Counter kReadsPerSOutsideMerge{"reads_per_s_outside_merge",
                                                Type::kRate, kOnWriting};
inline constexpr Counter kLatP99NsOutsideMerge{"lat_p99_ns_outside_merge",
                                               Type::kNanos, kOnWriting};
// RocksDB: the compactions that ended during the pass and what they wrote.
inline constexpr Counter kCompactions{"compactions", Type::kCount, kOnWriting};
inline constexpr Counter kCompactionBytes{"compaction_bytes", Type::kCount,
                                          kOnWriting};

inline constexpr Counter kWritingCounters[] = {
    kWritingSeconds,
    kBlocksApplied,
    kBlockRate,
    kBlockP50Ns,
    kBlockP99Ns,
    kBlockMaxNs,
    kChecksDone,
    kChecksWrong,
    kWritingCapHit,
    kSeriesIntervalS,
    kMerges,
    kMergeSeconds,
    kMergeMbPerS,
    kReadsPerSInMerge,
    kLatP99NsInMerge,
    kReadsPerSOutsideMerge,
    kLatP99NsOutsideMerge,
    kCompactions,
    kCompactionBytes,
};

// Whether a writing counter may be absent (the store's own: merges and
// their figures, compactions).
bool WritingCounterOptional(const Counter& counter);

// Arrays on a writing entry: the read p99 per interval of series_interval_s
// ([{"t_s", "p99_ns", "reads"}], t_s the interval's start from the first
// read), and the merge windows ([{"start_s", "end_s", "first_block",
// "last_block"}], seconds from the first read, blocks of the pass).
inline constexpr std::string_view kEntryReadSeries = "read_p99_series";
inline constexpr std::string_view kEntryMergeWindows = "merge_windows";

}  // namespace flatbench::results
