#include "bench/device_profile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "bench/device.h"
#include "bench/environment.h"
#include "bench/io_stats.h"
#include "common/files.h"
#include "common/rng.h"
#include "common/stop_signals.h"
#include "common/sweep_schema.h"
#include "common/text.h"

namespace flatbench::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kAlign = 4096;
constexpr uint64_t kWriteChunk = 1 << 20;

// Removes the scratch file when it goes out of scope.
class Scratch {
 public:
  // A stop signal ends the process from the watcher thread, so the
  // removal is also registered as a stop action.
  explicit Scratch(std::string path)
      : path_(std::move(path)),
        stop_action_(AddStopAction([p = path_] { unlink(p.c_str()); })) {}
  ~Scratch() {
    RemoveStopAction(stop_action_);
    if (fd_ >= 0) close(fd_);
    unlink(path_.c_str());
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  int fd_ = -1;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  uint64_t stop_action_;
};

Status StoppedStatus() {
  return Status::IOError("device profile stopped by " +
                         DescribeSignal(StopSignal()) +
                         "; the scratch file is removed");
}

Status WriteScratch(const std::string& path, uint64_t bytes, uint64_t seed,
                    bool progress) {
  // A new file of our own: a leftover scratch file (a killed run's) is
  // removed first, and whatever else holds the name, a symbolic link for
  // one, is neither followed nor truncated.
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return Status::IOError(
        path + ": cannot remove the old scratch file: " + std::strerror(errno));
  }
  const int fd = open(
      path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::IOError(
        path + ": cannot create the scratch file: " + std::strerror(errno) +
        " (the directory must be writable)");
  }
  // Random bytes: storage that compresses or deduplicates would serve
  // zeros from nowhere.
  std::vector<uint64_t> buf(kWriteChunk / 8);
  SplitMix64 rng(seed);
  uint64_t written = 0;
  const auto start = Clock::now();
  auto last = start;
  Status st;
  while (written < bytes) {
    if (StopSignal() != 0) {
      st = StoppedStatus();
      break;
    }
    for (auto& w : buf) w = rng.Next();
    const size_t n =
        static_cast<size_t>(std::min(kWriteChunk, bytes - written));
    const ssize_t w = write(fd, buf.data(), n);
    if (w != static_cast<ssize_t>(n)) {
      st = Status::IOError(path + ": writing the scratch file: " +
                           (w < 0 ? std::strerror(errno) : "short write") +
                           (w < 0 && errno == ENOSPC ? " (disk full)" : ""));
      break;
    }
    written += n;
    const auto now = Clock::now();
    if (progress && now - last > std::chrono::seconds(2)) {
      last = now;
      const double s = std::chrono::duration<double>(now - start).count();
      std::fprintf(stderr,
                   "device: writing scratch %5.1f%% (%s of %s), ETA %.0f s\n",
                   100.0 * written / bytes, HumanBytes(written).c_str(),
                   HumanBytes(bytes).c_str(),
                   s / written * static_cast<double>(bytes - written));
    }
  }
  if (st.ok() && fsync(fd) != 0) {
    st = Status::IOError(
        path + ": fsync of the scratch file: " + std::strerror(errno));
  }
  close(fd);
  return st;
}

struct RoundResult {
  uint64_t reads = 0;
  double seconds = 0;
  std::vector<uint32_t> latency_ns;  // Every read's.
  // CPU over the round: this process's (the readers'), and the rest of the
  // host's busy time (the device's own work where it runs on the host's
  // cores, such as a loop device's worker; anything else running).
  double process_cpu_s = 0, host_cpu_s = 0;
};

// This process's CPU time, seconds.
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The host's busy CPU time so far, seconds (io_stats.h); NaN where it
// cannot be read.
double HostBusySeconds() {
  uint64_t ns = 0;
  return HostBusyNs(&ns) ? static_cast<double>(ns) * 1e-9
                         : std::numeric_limits<double>::quiet_NaN();
}

// `depth` threads read `read_bytes` at random aligned offsets for `seconds`.
Result<RoundResult> RunRound(int fd, uint64_t file_bytes, int depth,
                             uint64_t read_bytes, double seconds,
                             uint64_t seed) {
  const uint64_t slots = (file_bytes - read_bytes) / kAlign + 1;
  std::vector<std::vector<uint32_t>> lat(static_cast<size_t>(depth));
  std::vector<int> err(static_cast<size_t>(depth), 0);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  Clock::time_point start;
  Clock::time_point deadline;
  for (int t = 0; t < depth; ++t) {
    threads.emplace_back([&, t] {
      SplitMix64 rng(seed * 1'000'003 + static_cast<uint64_t>(t));
      AlignedBuffer buf = AlignedBlocks(read_bytes);
      auto& mine = lat[static_cast<size_t>(t)];
      mine.reserve(4096);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (;;) {
        const auto t0 = Clock::now();
        // At least one read each, however short the round or busy the
        // host: a round's rate is never 0 (its slowest round prices L).
        if ((t0 >= deadline && !mine.empty()) || StopSignal() != 0) break;
        const off_t off = static_cast<off_t>(rng.Below(slots) * kAlign);
        const ssize_t n = pread(fd, buf.get(), read_bytes, off);
        if (n != static_cast<ssize_t>(read_bytes)) {
          err[static_cast<size_t>(t)] = n < 0 ? errno : EIO;
          break;
        }
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            Clock::now() - t0)
                            .count();
        mine.push_back(static_cast<uint32_t>(
            std::min<int64_t>(ns, std::numeric_limits<uint32_t>::max())));
      }
    });
  }
  const double cpu0 = ProcessCpuSeconds();
  const double host0 = HostBusySeconds();
  start = Clock::now();
  deadline = start + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(seconds));
  go.store(true, std::memory_order_release);
  for (auto& th : threads) th.join();
  RoundResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.process_cpu_s = ProcessCpuSeconds() - cpu0;
  r.host_cpu_s = std::max(0.0, HostBusySeconds() - host0 - r.process_cpu_s);
  for (size_t t = 0; t < lat.size(); ++t) {
    if (err[t] != 0) {
      return Status::IOError("O_DIRECT read of the scratch file: " +
                             std::string(std::strerror(err[t])));
    }
    r.latency_ns.insert(r.latency_ns.end(), lat[t].begin(), lat[t].end());
  }
  r.reads = r.latency_ns.size();
  if (StopSignal() != 0) return StoppedStatus();
  return r;
}

double Percentile(const std::vector<uint32_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t i = std::min(
      sorted.size() - 1,
      static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size()))) -
          (q > 0 ? 1 : 0));
  return sorted[i];
}

double LoadAverage() {
  auto text = ReadSmallFile("/proc/loadavg");
  if (!text.ok()) return 0;
  return std::strtod(text.value().c_str(), nullptr);
}

// The options checked: the folder there, the scratch file's size, the
// seconds and rounds, and the free disk.
Status CheckOptions(const DeviceProfileOptions& o) {
  std::error_code ec;
  if (!fs::exists(o.dir, ec)) {
    return Status::MissingInput(o.dir + ": no such directory");
  }
  if (!fs::is_directory(o.dir, ec)) {
    // As for a dataset directory (get, verify, bench): the directory the
    // command needs is missing.
    return Status::MissingInput(o.dir + ": not a directory");
  }
  const uint64_t largest = static_cast<uint64_t>(
      *std::max_element(std::begin(sweep::kProfileReadBytes),
                        std::end(sweep::kProfileReadBytes)));
  if (o.file_bytes < 4 * largest || o.file_bytes % kAlign != 0) {
    return Status::Usage(
        "device profile: the scratch file must be a multiple "
        "of 4 KiB and at least " +
        HumanBytes(4 * largest));
  }
  if (!(o.seconds > 0) || o.rounds < 1) {
    return Status::Usage("device profile: seconds and rounds must be positive");
  }
  const uint64_t free_disk = FreeBytes(o.dir);
  if (free_disk != 0 && free_disk < o.file_bytes + (64ULL << 20)) {
    return Status::RefuseOverwrite(
        o.dir +
        ": too little free disk for the device profile's scratch "
        "file: it needs " +
        HumanBytes(o.file_bytes) + " (plus 64 MiB), " + HumanBytes(free_disk) +
        " is free; use a smaller --file-mib");
  }
  return Status::Ok();
}

// The scratch file, opened with O_DIRECT.
Status OpenDirect(Scratch* scratch) {
  scratch->fd_ = open(scratch->path().c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (scratch->fd_ >= 0) return Status::Ok();
  return Status::IOError(
      scratch->path() + ": cannot open with O_DIRECT: " + std::strerror(errno) +
      (errno == EINVAL ? " (the filesystem does not support direct I/O, "
                         "so it has no device to profile)"
                       : ""));
}

// One queue depth and read size, and its rounds.
struct ProfileCell {
  int depth;
  uint64_t bytes;
  std::vector<RoundResult> rounds;
};

// Every cell's rounds, each `o.seconds` over the cells and rounds long,
// with progress lines.
Result<std::vector<ProfileCell>> MeasureCells(const DeviceProfileOptions& o,
                                              int fd) {
  std::vector<ProfileCell> cells;
  for (int d : sweep::kProfileQueueDepths) {
    for (int64_t b : sweep::kProfileReadBytes) {
      cells.push_back({d, static_cast<uint64_t>(b), {}});
    }
  }
  const size_t slots = cells.size() * static_cast<size_t>(o.rounds);
  const double each = o.seconds / static_cast<double>(slots);
  const auto start = Clock::now();
  auto last = start;
  size_t done = 0;
  for (int r = 0; r < o.rounds; ++r) {
    // Rotated each round, so a drifting device does not always meet the
    // same cell first.
    for (size_t k = 0; k < cells.size(); ++k) {
      ProfileCell& c = cells[(k + static_cast<size_t>(r) * 5) % cells.size()];
      FLATBENCH_ASSIGN_OR_RETURN(
          RoundResult rr, RunRound(fd, o.file_bytes, c.depth, c.bytes, each,
                                   o.seed + done + 1));
      c.rounds.push_back(std::move(rr));
      ++done;
      const auto now = Clock::now();
      if (o.progress &&
          (now - last > std::chrono::seconds(5) || done == slots)) {
        last = now;
        const double s = std::chrono::duration<double>(now - start).count();
        std::fprintf(
            stderr, "device: %zu/%zu cells measured, ETA %.0f s\n", done, slots,
            s / static_cast<double>(done) * static_cast<double>(slots - done));
      }
    }
  }
  return cells;
}

// A cell's figures: reads, rate (with its slowest and fastest round) and
// latency percentiles over every round.
Result<json> CellFigures(const ProfileCell& c) {
  std::vector<uint32_t> all;
  uint64_t reads = 0;
  double seconds = 0, low = 0, high = 0, process_cpu = 0, host_cpu = 0;
  bool first = true;
  for (const auto& rr : c.rounds) {
    process_cpu += rr.process_cpu_s;
    host_cpu += rr.host_cpu_s;
    if (rr.reads == 0) {
      return Status::Usage("device profile: a round at queue depth " +
                           std::to_string(c.depth) + ", " +
                           std::to_string(c.bytes) +
                           " bytes completed no read; give it more --seconds");
    }
    reads += rr.reads;
    seconds += rr.seconds;
    const double rate = static_cast<double>(rr.reads) / rr.seconds;
    low = first ? rate : std::min(low, rate);
    high = first ? rate : std::max(high, rate);
    first = false;
    all.insert(all.end(), rr.latency_ns.begin(), rr.latency_ns.end());
  }
  std::sort(all.begin(), all.end());
  double sum = 0;
  for (uint32_t v : all) sum += v;
  return json{
      {sweep::kCellQueueDepth.name, c.depth},
      {sweep::kCellReadBytes.name, c.bytes},
      {sweep::kCellReads.name, reads},
      {sweep::kCellReadsPerS.name, static_cast<double>(reads) / seconds},
      {sweep::kCellReadsPerSLow.name, low},
      {sweep::kCellReadsPerSHigh.name, high},
      {sweep::kCellLatMean.name, sum / static_cast<double>(all.size())},
      {sweep::kCellLatP50.name, Percentile(all, 0.5)},
      {sweep::kCellLatP99.name, Percentile(all, 0.99)},
      {sweep::kCellLatP999.name, Percentile(all, 0.999)},
      {sweep::kCellCpuNsPerRead.name,
       process_cpu * 1e9 / static_cast<double>(reads)},
      {sweep::kCellHostCpuNsPerRead.name,
       std::isfinite(host_cpu) ? host_cpu * 1e9 / static_cast<double>(reads)
                               : 0.0}};
}

}  // namespace

// The phases: the options checked, the scratch file written and opened
// with O_DIRECT, every cell measured in rotated rounds, the cells' figures
// sorted by depth and size into the profile.
Result<json> MeasureDeviceProfile(const DeviceProfileOptions& o) {
  FLATBENCH_RETURN_IF_ERROR(CheckOptions(o));
  const double load = LoadAverage();
  const std::string measured_at = UtcTime(std::time(nullptr));
  Scratch scratch((fs::path(o.dir) / kScratchName).string());
  FLATBENCH_RETURN_IF_ERROR(
      WriteScratch(scratch.path(), o.file_bytes, o.seed, o.progress));
  FLATBENCH_RETURN_IF_ERROR(OpenDirect(&scratch));
  FLATBENCH_ASSIGN_OR_RETURN(const std::vector<ProfileCell> cells,
                             MeasureCells(o, scratch.fd_));
  json out_cells = json::array();
  for (const ProfileCell& c : cells) {
    FLATBENCH_ASSIGN_OR_RETURN(json figures, CellFigures(c));
    out_cells.push_back(std::move(figures));
  }
  std::sort(out_cells.begin(), out_cells.end(),
            [](const json& a, const json& b) {
              return std::make_pair(a[sweep::kCellQueueDepth.name].get<int>(),
                                    a[sweep::kCellReadBytes.name].get<int>()) <
                     std::make_pair(b[sweep::kCellQueueDepth.name].get<int>(),
                                    b[sweep::kCellReadBytes.name].get<int>());
            });
  std::error_code ec;
  json doc = json::object();
  doc[sweep::kProfileVersion.name] = sweep::kDeviceProfileVersion;
  doc[sweep::kProfileDir.name] = fs::absolute(o.dir, ec).string();
  doc[sweep::kProfileFilesystem.name] = FilesystemOf(o.dir);
  doc[sweep::kProfileFileBytes.name] = o.file_bytes;
  doc[sweep::kProfileRounds.name] = o.rounds;
  doc[sweep::kProfileSecondsPerCell.name] =
      o.seconds /
      static_cast<double>(cells.size() * static_cast<size_t>(o.rounds));
  doc[sweep::kProfileCpus.name] = std::thread::hardware_concurrency();
  doc[sweep::kProfileLoadAverage.name] = load;
  doc[sweep::kProfileMeasuredAt.name] = measured_at;
  doc[sweep::kProfileCells.name] = std::move(out_cells);
  return doc;
}

}  // namespace flatbench::bench
