#pragma once
// The machine a run happened on: kernel, CPU, memory, and the filesystem,
// block device, read-ahead and I/O scheduler under the data directory.

#include <string>
#include <utility>
#include <vector>

namespace flatbench::bench {

// Ordered (key, value) pairs; keys are "kernel", "cpu", "cores",
// "ram_bytes", "filesystem", "device", "read_ahead_kb", "scheduler",
// "drop_caches". A value that could not be found reads "unknown".
std::vector<std::pair<std::string, std::string>> DescribeEnvironment(
    const std::string& data_dir);

// Filesystem type (e.g. "ext4", "tmpfs") of the mount holding `path`.
std::string FilesystemOf(const std::string& path);

}  // namespace flatbench::bench
