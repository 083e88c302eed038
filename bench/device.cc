#include "bench/device.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "common/rng.h"

namespace flatbench::bench {
namespace {

// Where one read goes, prepared before the timed loop.
struct Target {
  int fd;
  off_t offset;
};

class DirectReader : public PassReader {
 public:
  explicit DirectReader(const Target* targets)
      : targets_(targets), buf_(AlignedBlocks(kDeviceBlock)) {}
  Status Read(uint64_t i, bool* found) override {
    const Target& t = targets_[i];
    ssize_t n = pread(t.fd, buf_.get(), kDeviceBlock, t.offset);
    if (n < 0) return Status::FromErrno("O_DIRECT pread");
    *found = n == static_cast<ssize_t>(kDeviceBlock);
    return Status::Ok();
  }

 private:
  const Target* targets_;
  AlignedBuffer buf_;
};

}  // namespace

DeviceFiles::~DeviceFiles() {
  for (auto& f : files_) {
    if (f.fd >= 0) close(f.fd);
  }
}

Result<std::unique_ptr<DeviceFiles>> DeviceFiles::Open(
    const std::vector<std::string>& paths) {
  std::unique_ptr<DeviceFiles> d(new DeviceFiles());
  for (const auto& path : paths) {
    File f;
    f.path = path;
    f.fd = open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (f.fd < 0) {
      if (errno == EINVAL) {
        d->reason_ = path + ": the filesystem does not support O_DIRECT";
        return d;
      }
      return Status::FromErrno("open O_DIRECT " + path);
    }
    struct stat st {};
    if (fstat(f.fd, &st) != 0) {
      Status s = Status::FromErrno("stat " + path);
      close(f.fd);
      return s;
    }
    f.blocks = static_cast<uint64_t>(st.st_size) / kDeviceBlock;
    f.first_block = d->total_blocks_;
    d->total_blocks_ += f.blocks;
    d->files_.push_back(std::move(f));
  }
  if (d->total_blocks_ == 0) {
    d->reason_ = "the files hold no whole 4 KiB block";
  }
  return d;
}

Result<PassResult> DeviceFiles::Run(const std::string& name, int threads,
                                    uint64_t reads_per_thread,
                                    uint64_t seed) const {
  const size_t n = static_cast<size_t>(threads);
  std::vector<std::vector<Target>> targets(n);
  SplitMix64 rng(seed);
  for (auto& v : targets) {
    v.resize(reads_per_thread);
    for (auto& t : v) {
      // Uniform block over the concatenation: extent-weighted by file size.
      const uint64_t b = rng.Below(total_blocks_);
      auto it = std::upper_bound(
          files_.begin(), files_.end(), b,
          [](uint64_t x, const File& f) { return x < f.first_block; });
      const File& f = *(it - 1);
      t = {f.fd, static_cast<off_t>((b - f.first_block) * kDeviceBlock)};
    }
  }
  PassSpec spec;
  spec.name = name;
  spec.threads = threads;
  spec.reads_per_thread = reads_per_thread;
  spec.make_reader = [&targets](int t) -> Result<std::unique_ptr<PassReader>> {
    return std::unique_ptr<PassReader>(
        std::make_unique<DirectReader>(targets[static_cast<size_t>(t)].data()));
  };
  return RunPass(spec);
}

}  // namespace flatbench::bench
