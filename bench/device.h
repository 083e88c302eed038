#pragma once
// The physical limit of a backend's own files: 4 KiB O_DIRECT random reads
// at offsets inside the files that hold one of its tables, one read in
// flight per thread. Run in the backend's process right before its cold hit
// pass of the same cell, so that the backend's reads can be expressed as a
// fraction of what the device delivers for those very files at that moment
// ("I/O efficiency"). On virtualized or tiered storage the same device serves
// recently written or recently read files several times faster than old
// ones, so a scratch file, or another backend's files, is no reference.
//
// Offsets are extent-weighted: a block is drawn uniformly over the
// concatenation of the files' whole 4 KiB blocks, so each file is read in
// proportion to its size. O_DIRECT bypasses the page cache, so the reads
// neither need eviction nor disturb it.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bench/pass.h"
#include "common/status.h"

namespace flatbench::bench {

inline constexpr uint64_t kDeviceBlock = 4096;

// A buffer for O_DIRECT reads: aligned to kDeviceBlock, freed with free().
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, FreeDeleter>;

// REQUIRES: `bytes` is a multiple of kDeviceBlock. Null when out of memory.
inline AlignedBuffer AlignedBlocks(size_t bytes) {
  return AlignedBuffer(
      static_cast<char*>(std::aligned_alloc(kDeviceBlock, bytes)));
}

class DeviceFiles {
 public:
  // Opens `paths` with O_DIRECT. When the filesystem cannot do O_DIRECT
  // (tmpfs) or the files hold no whole block, the result is ok but
  // !supported() and reason() says why. Other open errors are kIOError.
  static Result<std::unique_ptr<DeviceFiles>> Open(
      const std::vector<std::string>& paths);
  ~DeviceFiles();
  DeviceFiles(const DeviceFiles&) = delete;
  DeviceFiles& operator=(const DeviceFiles&) = delete;

  bool supported() const { return reason_.empty(); }
  const std::string& reason() const { return reason_; }
  uint64_t bytes() const { return total_blocks_ * kDeviceBlock; }
  uint64_t pages() const { return total_blocks_; }

  // One pass of `threads` x `reads_per_thread` reads at offsets drawn from
  // `seed`. REQUIRES: supported().
  Result<PassResult> Run(const std::string& name, int threads,
                         uint64_t reads_per_thread, uint64_t seed) const;

 private:
  DeviceFiles() = default;
  struct File {
    std::string path;
    int fd = -1;
    uint64_t first_block = 0;  // In the concatenation.
    uint64_t blocks = 0;
  };
  std::vector<File> files_;
  uint64_t total_blocks_ = 0;
  std::string reason_;
};

}  // namespace flatbench::bench
