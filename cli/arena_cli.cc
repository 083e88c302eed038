#include "cli/arena_cli.h"

#include <cstdio>

#include "arena/backend.h"
#include "arena/reader.h"
#include "arena/verify.h"
#include "common/files.h"
#include "common/hex.h"

namespace flatbench::cli {

Status VerifyArenaFile(const std::string& path, bool print) {
  arena::VerifyReport report;
  FLATBENCH_RETURN_IF_ERROR(arena::VerifyFile(path, &report));
  if (print) {
    std::printf("%s ok: %llu keys in %llu blocks, %llu checksums checked\n",
                path.c_str(), static_cast<unsigned long long>(report.key_count),
                static_cast<unsigned long long>(report.block_count),
                static_cast<unsigned long long>(report.checksums_checked));
  }
  return Status::Ok();
}

Status PrintArenaInfo(const std::string& path, bool per_shard) {
  FLATBENCH_ASSIGN_OR_RETURN(auto reader, arena::Reader::Open(path));
  const arena::ArenaInfo& i = reader->info();
  auto per_key = [&](uint64_t bytes) {
    return i.key_count ? static_cast<double>(bytes) / i.key_count : 0.0;
  };
  uint64_t raw = i.key_count * i.key_width + i.value_bytes;
  std::printf("arena file     %s\n", path.c_str());
  std::printf("format         version %u, key width %u, %s\n", i.format_version,
              i.key_width, i.compressed ? "zstd blocks" : "uncompressed");
  std::printf("keys           %llu (%llu value bytes)\n",
              static_cast<unsigned long long>(i.key_count),
              static_cast<unsigned long long>(i.value_bytes));
  std::printf("file           %s (%.3f x raw key+value bytes)\n",
              HumanBytes(i.file_bytes).c_str(),
              raw ? static_cast<double>(i.file_bytes) / raw : 0.0);
  std::printf("shards         %u non-empty of 256, %llu blocks\n",
              i.nonempty_shards,
              static_cast<unsigned long long>(i.block_count));
  std::printf("index          %s (%.2f bytes/key)\n",
              HumanBytes(i.index_bytes).c_str(), per_key(i.index_bytes));
  std::printf("filter         %s (%.2f bytes/key), %u bits/key, %u probes\n",
              HumanBytes(i.filter_bytes).c_str(), per_key(i.filter_bytes),
              i.bloom_bits_per_key, i.bloom_probes);
  std::printf("resident       %s after open (%.2f bytes/key)\n",
              HumanBytes(i.resident_bytes).c_str(), per_key(i.resident_bytes));
  const auto& warnings = reader->AdviceWarnings();
  if (warnings.empty()) {
    std::printf("kernel advice  ok (POSIX_FADV_RANDOM, MADV_RANDOM)\n");
  }
  for (const auto& w : warnings) std::printf("kernel advice  %s\n", w.c_str());
  if (i.bloom_bits_per_key > 0 && i.key_count > 0) {
    double measured = reader->MeasureFalsePositiveRate(100'000, 1);
    std::printf(
        "filter FP rate %.5f measured (100000 absent keys), %.5f "
        "computed\n",
        measured, i.expected_fp_rate);
  }
  if (i.build_micros > 0) {
    std::printf("build time     %.3f s\n", i.build_micros / 1e6);
  }
  if (per_shard) {
    std::printf("%5s %10s %8s %14s %12s %10s %10s\n", "shard", "keys", "blocks",
                "data offset", "data bytes", "index", "filter");
    for (int s = 0; s < 256; ++s) {
      const arena::ShardInfo& sh = i.shards[s];
      std::printf("%5d %10llu %8llu %14llu %12llu %10llu %10llu\n", s,
                  static_cast<unsigned long long>(sh.key_count),
                  static_cast<unsigned long long>(sh.block_count),
                  static_cast<unsigned long long>(sh.data_offset),
                  static_cast<unsigned long long>(sh.data_bytes),
                  static_cast<unsigned long long>(sh.index_bytes),
                  static_cast<unsigned long long>(sh.filter_bytes));
    }
  }
  return Status::Ok();
}

Status GetFromFile(const std::string& path, const std::string& key,
                   const std::string& key_hex, bool verify) {
  arena::ReaderOptions options;
  options.verify_checksums = verify;
  FLATBENCH_ASSIGN_OR_RETURN(auto reader, arena::Reader::Open(path, options));
  if (key.size() != reader->key_width()) {
    return Status::Usage("--key: " + std::to_string(key.size()) + " bytes, " +
                         path + " holds " +
                         std::to_string(reader->key_width()) + "-byte keys");
  }
  arena::ReadBuffer buffer;
  bool found = false;
  std::string_view value;
  // The reader's message already names the file and the block's offset.
  FLATBENCH_RETURN_IF_ERROR(reader->Get(key, &found, &value, &buffer)
                                .WithContext("get key " + key_hex));
  if (!found) {
    return Status::NotFound("key " + key_hex + " not found in " + path);
  }
  std::printf("%s\n", ToHex(value).c_str());
  return Status::Ok();
}

}  // namespace flatbench::cli
