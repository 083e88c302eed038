#include "bench/device.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "bench/counters.h"
#include "bench/environment.h"
#include "bench/eviction.h"
#include "datagen/rng.h"
#include "datagen/sampler.h"

namespace flatbench::bench {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, FreeDeleter>;

AlignedBuffer NewAligned(size_t bytes) {
  return AlignedBuffer(
      static_cast<char*>(std::aligned_alloc(kDeviceBlock, bytes)));
}

// Removes the scratch file however MeasureDevice leaves.
struct ScratchFile {
  std::string path;
  ~ScratchFile() {
    if (!path.empty()) unlink(path.c_str());
  }
};

Status WriteScratch(const std::string& path, uint64_t bytes, uint64_t seed) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::FromErrno("create " + path);
  constexpr size_t kChunk = 1 << 20;
  std::unique_ptr<uint64_t[]> chunk(new uint64_t[kChunk / 8]);
  datagen::SplitMix64 rng(seed);
  Status st;
  for (uint64_t done = 0; done < bytes && st.ok();) {
    // Random, non-zero data: the filesystem must allocate real blocks.
    for (size_t i = 0; i < kChunk / 8; ++i) chunk[i] = rng.Next() | 1;
    size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, bytes - done));
    ssize_t w = write(fd, chunk.get(), n);
    if (w <= 0) {
      st = Status::FromErrno("write " + path);
      break;
    }
    done += static_cast<uint64_t>(w);
  }
  if (st.ok() && fsync(fd) != 0) st = Status::FromErrno("fsync " + path);
  close(fd);
  return st;
}

class DirectReader : public PassReader {
 public:
  DirectReader(int fd, const uint64_t* blocks)
      : fd_(fd), blocks_(blocks), buf_(NewAligned(kDeviceBlock)) {}
  Status Read(uint64_t i, bool* found) override {
    ssize_t n = pread(fd_, buf_.get(), kDeviceBlock,
                      static_cast<off_t>(blocks_[i] * kDeviceBlock));
    *found = n == static_cast<ssize_t>(kDeviceBlock);
    if (n < 0) return Status::FromErrno("O_DIRECT pread");
    return Status::Ok();
  }

 private:
  int fd_;
  const uint64_t* blocks_;
  AlignedBuffer buf_;
};

}  // namespace

std::string DeviceScratchPath(const std::string& dir) {
  return dir + "/.flatbench-device-scratch";
}

Result<DeviceRun> MeasureDevice(const DeviceOptions& options) {
  DeviceRun run;
  std::string fs_type = FilesystemOf(options.dir);
  if (fs_type == "tmpfs" || fs_type == "ramfs") {
    run.status = "skipped: " + options.dir + " is on " + fs_type +
                 ", which has no block device";
    return run;
  }
  const uint64_t blocks = std::max<uint64_t>(1, options.bytes / kDeviceBlock);
  const uint64_t bytes = blocks * kDeviceBlock;
  struct statvfs vfs {};
  if (statvfs(options.dir.c_str(), &vfs) == 0 &&
      static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize <
          bytes + (1ULL << 30)) {
    run.status = "skipped: not enough free space in " + options.dir +
                 " for a " + std::to_string(bytes) + "-byte scratch file";
    return run;
  }
  ScratchFile scratch{DeviceScratchPath(options.dir)};
  if (options.progress) {
    std::fprintf(stderr, "bench: device: writing a %llu-byte scratch file %s\n",
                 static_cast<unsigned long long>(bytes), scratch.path.c_str());
  }
  FLATBENCH_RETURN_IF_ERROR(WriteScratch(scratch.path, bytes, options.seed));
  int fd = open(scratch.path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EINVAL) {
      run.status = "skipped: " + fs_type + " at " + options.dir +
                   " does not support O_DIRECT";
      return run;
    }
    return Status::FromErrno("open O_DIRECT " + scratch.path);
  }
  struct CloseFd {
    int fd;
    ~CloseFd() { close(fd); }
  } closer{fd};
  // Written pages are resident; O_DIRECT bypasses them anyway, but drop them
  // so that the recorded residency is what the device rows claim.
  EvictMethod method;
  FLATBENCH_RETURN_IF_ERROR(Evict({scratch.path}, &method));

  datagen::Permutation perm(blocks, options.seed);
  uint64_t next = 0;
  int ordinal = 0;
  for (int threads : options.threads) {
    const uint64_t n = static_cast<uint64_t>(threads);
    const uint64_t rpt = std::max<uint64_t>(1, options.reads_per_pass / n);
    for (int rep = 0; rep < options.repetitions; ++rep, ++ordinal) {
      // Block numbers per thread, prepared before the timed loop.
      std::vector<std::vector<uint64_t>> offsets(n, std::vector<uint64_t>(rpt));
      for (auto& v : offsets) {
        for (auto& b : v) b = perm(next++ % blocks);
      }
      auto res = MeasureResidency({scratch.path});
      if (!res.ok()) return res.status();
      CellFacts facts;
      facts.threads = threads;
      facts.repetition = rep;
      facts.distinct_keys = std::min(n * rpt, blocks);
      facts.rss_after_open = RssBytes();
      facts.resident_before = res->fraction();
      facts.file_pages = res->total_pages;
      facts.resident_after_eviction = res->fraction();
      facts.eviction_verified = res->fraction() <= options.eviction_bound;

      PassSpec spec;
      spec.name = "device/raw/hit/cold/threads:" + std::to_string(threads) +
                  "/rep:" + std::to_string(rep);
      spec.threads = threads;
      spec.reads_per_thread = rpt;
      spec.make_reader =
          [fd, &offsets](int t) -> Result<std::unique_ptr<PassReader>> {
        return std::unique_ptr<PassReader>(std::make_unique<DirectReader>(
            fd, offsets[static_cast<size_t>(t)].data()));
      };
      auto pass = RunPass(spec);
      if (!pass.ok()) return pass.status();
      if (run.context.empty()) run.context = pass->context;
      nlohmann::json entry = pass->entry;
      AddCounters(pass.value(), facts, &entry);
      entry["label"] = "4 KiB O_DIRECT random reads, " + std::to_string(bytes) +
                       "-byte file";
      if (options.progress) {
        std::fprintf(stderr, "bench: %s\n", SummaryLine(entry).c_str());
      }
      run.benchmarks.push_back(std::move(entry));
    }
  }
  run.status = "measured: 4 KiB O_DIRECT random reads on a " +
               std::to_string(bytes) + "-byte scratch file on " + fs_type;
  return run;
}

}  // namespace flatbench::bench
