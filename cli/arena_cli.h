#pragma once
// The arena-specific parts of verify, info and get (single files).

#include <string>

#include "common/status.h"

namespace flatbench::cli {

// Full walk of one arena file; prints a summary line when `print`.
Status VerifyArenaFile(const std::string& path, bool print);
// Layout, sizes, settings, failed kernel advice and a measured filter
// false-positive rate.
Status PrintArenaInfo(const std::string& path, bool per_shard);
// Looks `key` up in one arena file, checking the block's checksum when
// `verify`, and prints its value as hex. kNotFound when it is absent;
// kCorruption naming the file and key on a checksum mismatch.
Status GetFromFile(const std::string& path, const std::string& key,
                   const std::string& key_hex, bool verify);

}  // namespace flatbench::cli
