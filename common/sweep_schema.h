#pragma once
// The sweep contract: every name `flatbench sweep` writes into SWEEP.json
// and `flatbench report SWEEP.json` reads, with its type.
// bench/SWEEP_FORMAT.md describes the same names in prose and is tested
// against this header.
//
// A sweep document is one JSON object: the run-wide keys below, and under
// kSizes one object per measured dataset size (ascending accounts), each
// holding that size's bench results document (bench/RESULTS_FORMAT.md)
// whole and the read geometry of every backend that reports one.

#include <cstdint>
#include <span>
#include <string_view>

namespace flatbench::sweep {

// The version of this contract; a reader refuses any other.
inline constexpr int64_t kFormatVersion = 1;

enum class Type { kInteger, kNumber, kText, kBool, kArray, kObject };
// "integer", "number", "text", "bool", "array", "object".
const char* TypeName(Type type);

struct Key {
  std::string_view name;
  Type type;
};

// --- Run-wide keys (top level) --------------------------------------------
inline constexpr Key kVersion{"flatbench_sweep", Type::kInteger};
inline constexpr Key kSlotsPerAccount{"slots_per_account", Type::kInteger};
inline constexpr Key kSeed{"seed", Type::kInteger};
inline constexpr Key kPlannedAccounts{"planned_accounts", Type::kArray};
inline constexpr Key kBackends{"backends", Type::kText};
inline constexpr Key kBenchArgs{"bench_args", Type::kArray};
inline constexpr Key kCreatedDatasets{"created_datasets", Type::kArray};
inline constexpr Key kFinished{"finished", Type::kBool};
inline constexpr Key kSizes{"sizes", Type::kArray};

inline constexpr Key kTopKeys[] = {
    kVersion,         kSlotsPerAccount, kSeed,
    kPlannedAccounts, kBackends,        kBenchArgs,
    kCreatedDatasets, kFinished,        kSizes};

// --- One measured size (an element of kSizes) ------------------------------
inline constexpr Key kAccounts{"accounts", Type::kInteger};
inline constexpr Key kPairs{"pairs", Type::kInteger};
inline constexpr Key kSpec{"spec", Type::kText};
inline constexpr Key kDatasetDir{"dataset_dir", Type::kText};
inline constexpr Key kDatasetRemoved{"dataset_removed", Type::kBool};
inline constexpr Key kBenchSeconds{"bench_seconds", Type::kNumber};
inline constexpr Key kGeometry{"geometry", Type::kObject};
inline constexpr Key kResults{"results", Type::kObject};

inline constexpr Key kSizeKeys[] = {kAccounts,   kPairs,          kSpec,
                                    kDatasetDir, kDatasetRemoved, kBenchSeconds,
                                    kGeometry,   kResults};

// --- Read geometry (kGeometry: backend -> table -> these keys) -------------
// common/backend.h ReadGeometry, field for field.
inline constexpr Key kGeoPairs{"pairs", Type::kInteger};
inline constexpr Key kGeoDataUnits{"data_units", Type::kInteger};
inline constexpr Key kGeoDataBytes{"data_bytes", Type::kInteger};
inline constexpr Key kGeoDataPageAligned{"data_page_aligned", Type::kBool};
inline constexpr Key kGeoIndexBytes{"index_bytes", Type::kInteger};
inline constexpr Key kGeoFilterBytes{"filter_bytes", Type::kInteger};
inline constexpr Key kGeoIndexLevels{"index_levels", Type::kInteger};
inline constexpr Key kGeoFilterFpRate{"filter_fp_rate", Type::kNumber};

inline constexpr Key kGeometryKeys[] = {
    kGeoPairs,      kGeoDataUnits,   kGeoDataBytes,   kGeoDataPageAligned,
    kGeoIndexBytes, kGeoFilterBytes, kGeoIndexLevels, kGeoFilterFpRate};

// --- Optional run-wide key ---------------------------------------------------
// The device profile of the sweep's directory (below), measured by
// `flatbench device` before the first size; absent with --no-device.
inline constexpr Key kDeviceProfile{"device_profile", Type::kObject};

inline constexpr Key kOptionalTopKeys[] = {kDeviceProfile};

// --- A device profile (`flatbench device --out P.json`, or kDeviceProfile) -
// Random O_DIRECT reads of a scratch file in the measured directory at each
// queue depth (reader threads, one read in flight each) and read size.
inline constexpr int64_t kDeviceProfileVersion = 1;
inline constexpr Key kProfileVersion{"flatbench_device_profile",
                                     Type::kInteger};
inline constexpr Key kProfileDir{"dir", Type::kText};
inline constexpr Key kProfileFilesystem{"filesystem", Type::kText};
inline constexpr Key kProfileFileBytes{"file_bytes", Type::kInteger};
inline constexpr Key kProfileRounds{"rounds", Type::kInteger};
inline constexpr Key kProfileSecondsPerCell{"seconds_per_cell", Type::kNumber};
inline constexpr Key kProfileCpus{"cpus", Type::kInteger};
inline constexpr Key kProfileLoadAverage{"load_average", Type::kNumber};
inline constexpr Key kProfileMeasuredAt{"measured_at", Type::kText};
inline constexpr Key kProfileCells{"cells", Type::kArray};

inline constexpr Key kProfileKeys[] = {
    kProfileVersion,   kProfileDir,         kProfileFilesystem,
    kProfileFileBytes, kProfileRounds,      kProfileSecondsPerCell,
    kProfileCpus,      kProfileLoadAverage, kProfileMeasuredAt,
    kProfileCells};

// One element of kProfileCells: one queue depth and read size, all rounds.
inline constexpr Key kCellQueueDepth{"queue_depth", Type::kInteger};
inline constexpr Key kCellReadBytes{"read_bytes", Type::kInteger};
inline constexpr Key kCellReads{"reads", Type::kInteger};
inline constexpr Key kCellReadsPerS{"reads_per_s", Type::kNumber};
inline constexpr Key kCellReadsPerSLow{"reads_per_s_low", Type::kNumber};
inline constexpr Key kCellReadsPerSHigh{"reads_per_s_high", Type::kNumber};
inline constexpr Key kCellLatMean{"lat_mean_ns", Type::kNumber};
inline constexpr Key kCellLatP50{"lat_p50_ns", Type::kNumber};
inline constexpr Key kCellLatP99{"lat_p99_ns", Type::kNumber};
inline constexpr Key kCellLatP999{"lat_p999_ns", Type::kNumber};

// Optional (profiles from before them lack them): the readers' CPU time per
// read, and the rest of the host's busy CPU time per read over the cell
// (the device's own work where it runs on the host's cores).
inline constexpr Key kCellCpuNsPerRead{"cpu_ns_per_read", Type::kNumber};
inline constexpr Key kCellHostCpuNsPerRead{"host_cpu_ns_per_read",
                                           Type::kNumber};

inline constexpr Key kProfileCellKeys[] = {
    kCellQueueDepth,   kCellReadBytes,     kCellReads,   kCellReadsPerS,
    kCellReadsPerSLow, kCellReadsPerSHigh, kCellLatMean, kCellLatP50,
    kCellLatP99,       kCellLatP999};
inline constexpr Key kProfileCellOptionalKeys[] = {kCellCpuNsPerRead,
                                                   kCellHostCpuNsPerRead};

// The queue depths and read sizes a profile measures: the gated thread
// counts, and 4 KiB pages up to RocksDB's largest blocks.
inline constexpr int kProfileQueueDepths[] = {1, 8, 32};
inline constexpr int64_t kProfileReadBytes[] = {4096, 8192, 12288, 16384};

// The file a sweep keeps in its directory: its state while it runs (what
// is done, which datasets it created) and its result when finished.
inline constexpr std::string_view kFileName = "sweep.json";

}  // namespace flatbench::sweep
