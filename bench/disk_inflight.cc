#include "bench/disk_inflight.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <vector>

namespace flatbench::bench {
namespace {

constexpr char kDiskstats[] = "/proc/diskstats";
// Large enough for the diskstats of a host with hundreds of devices.
constexpr size_t kDiskstatsBytes = 256 * 1024;

bool ParseUnsigned(std::string_view s, uint64_t* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// Splits a line on blanks without allocating beyond `out`'s capacity.
void Fields(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out->push_back(line.substr(i, j - i));
    i = j;
  }
}

uint64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

std::optional<DiskCounts> DiskstatsOf(std::string_view text, unsigned major,
                                      unsigned minor) {
  std::vector<std::string_view> f;
  f.reserve(20);
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text =
        nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    Fields(line, &f);
    uint64_t ma = 0, mi = 0;
    if (f.size() < 12 || !ParseUnsigned(f[0], &ma) ||
        !ParseUnsigned(f[1], &mi) || ma != major || mi != minor) {
      continue;
    }
    DiskCounts c;
    if (!ParseUnsigned(f[3], &c.reads_completed) ||
        !ParseUnsigned(f[11], &c.in_flight)) {
      return std::nullopt;
    }
    return c;
  }
  return std::nullopt;
}

std::optional<uint64_t> DiskstatsInFlight(std::string_view text, unsigned major,
                                          unsigned minor) {
  auto c = DiskstatsOf(text, major, minor);
  if (!c) return std::nullopt;
  return c->in_flight;
}

namespace {

// The diskstats line of the device holding `path`: its numbers in
// *dev_major, *dev_minor, and /proc/diskstats opened in *fd (-1 when either
// cannot be found or the device has no line).
void OpenDiskstatsOf(const std::string& path, unsigned* dev_major,
                     unsigned* dev_minor, int* fd) {
  *fd = -1;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return;
  *dev_major = major(st.st_dev);
  *dev_minor = minor(st.st_dev);
  const int f = open(kDiskstats, O_RDONLY | O_CLOEXEC);
  if (f < 0) return;
  std::string buf(kDiskstatsBytes, '\0');
  const ssize_t n = pread(f, buf.data(), buf.size(), 0);
  if (n <= 0 ||
      !DiskstatsOf(std::string_view(buf.data(), static_cast<size_t>(n)),
                   *dev_major, *dev_minor)) {
    close(f);
    return;
  }
  *fd = f;
}

}  // namespace

DeviceReadCounter::DeviceReadCounter(const std::string& path) {
  OpenDiskstatsOf(path, &major_, &minor_, &fd_);
}

DeviceReadCounter::~DeviceReadCounter() {
  if (fd_ >= 0) close(fd_);
}

std::optional<uint64_t> DeviceReadCounter::Now() const {
  if (fd_ < 0) return std::nullopt;
  std::string buf(kDiskstatsBytes, '\0');
  const ssize_t n = pread(fd_, buf.data(), buf.size(), 0);
  if (n <= 0) return std::nullopt;
  auto c = DiskstatsOf(std::string_view(buf.data(), static_cast<size_t>(n)),
                       major_, minor_);
  if (!c) return std::nullopt;
  return c->reads_completed;
}

DiskInflightSampler::DiskInflightSampler(const std::string& path) {
  OpenDiskstatsOf(path, &major_, &minor_, &fd_);
  known_ = fd_ >= 0;
}

DiskInflightSampler::~DiskInflightSampler() {
  Stop();
  if (fd_ >= 0) close(fd_);
}

void DiskInflightSampler::Start() {
  seen_ = DiskInflight();
  sum_ = 0;
  stop_.store(false);
  thread_ = std::thread([this] { Loop(); });
}

DiskInflight DiskInflightSampler::Stop() {
  if (!thread_.joinable()) return DiskInflight();
  stop_.store(true);
  thread_.join();
  DiskInflight out = seen_;
  out.mean = out.samples > 0 ? sum_ / static_cast<double>(out.samples) : 0;
  return out;
}

void DiskInflightSampler::Loop() {
  // One buffer for the thread's life: a sample allocates nothing.
  std::string buf(kDiskstatsBytes, '\0');
  while (true) {
    const ssize_t n = pread(fd_, buf.data(), buf.size(), 0);
    if (n > 0) {
      auto v = DiskstatsInFlight(
          std::string_view(buf.data(), static_cast<size_t>(n)), major_, minor_);
      if (v) {
        ++seen_.samples;
        sum_ += static_cast<double>(*v);
        seen_.max = std::max(seen_.max, *v);
      }
    }
    if (stop_.load()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  seen_.sampler_cpu_ns = ThreadCpuNs();
}

}  // namespace flatbench::bench
