#pragma once
// The machine a run happened on: kernel, CPU, memory, and the filesystem,
// block device, read-ahead and I/O scheduler under the data directory.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace flatbench::bench {

// The flatbench.env.* context keys of common/results_schema.h: kernel, CPU,
// hardware threads, RAM, machine-id hash, and the filesystem, device,
// read-ahead and scheduler under `data_dir`. A text that could not be found
// reads "unknown".
nlohmann::json DescribeEnvironment(const std::string& data_dir);

// Filesystem type (e.g. "ext4", "tmpfs") of the mount holding `path`.
std::string FilesystemOf(const std::string& path);

}  // namespace flatbench::bench
