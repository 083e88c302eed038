#include "bench/environment.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench/page_cache.h"
#include "common/host_id.h"
#include "common/results_schema.h"

namespace flatbench::bench {
namespace {

namespace fs = std::filesystem;
constexpr char kUnknown[] = "unknown";

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return kUnknown;
  return line;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        size_t start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? kUnknown : line.substr(start);
      }
    }
  }
  return kUnknown;
}

struct Mount {
  std::string mount_point, fstype, source, dev;  // dev is "major:minor"
};

// /proc/self/mountinfo: id parent major:minor root mount-point options
// [optional fields...] - fstype source super-options. Picks the mount with
// the longest mount point that is a prefix of `path`.
Mount MountOf(const std::string& path) {
  std::error_code ec;
  std::string real = fs::weakly_canonical(path, ec).string();
  if (ec) real = path;
  Mount best;
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string id, parent, dev, root, mp, opts, field;
    ss >> id >> parent >> dev >> root >> mp >> opts;
    while (ss >> field && field != "-") {
    }
    Mount m;
    m.mount_point = mp;
    m.dev = dev;
    ss >> m.fstype >> m.source;
    bool prefix =
        real.rfind(mp, 0) == 0 &&
        (mp == "/" || real.size() == mp.size() || real[mp.size()] == '/');
    if (prefix && mp.size() >= best.mount_point.size()) best = m;
  }
  return best;
}

// /sys/dev/block/M:m/queue, or the parent disk's queue for a partition.
std::string QueueDir(const std::string& dev) {
  std::error_code ec;
  fs::path base = fs::canonical("/sys/dev/block/" + dev, ec);
  if (ec) return "";
  if (fs::exists(base / "queue", ec)) return (base / "queue").string();
  if (fs::exists(base.parent_path() / "queue", ec)) {
    return (base.parent_path() / "queue").string();
  }
  return "";
}

std::string ActiveScheduler(const std::string& line) {
  auto open = line.find('['), close = line.find(']');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    return line.substr(open + 1, close - open - 1);
  }
  return line;
}

}  // namespace

std::string FilesystemOf(const std::string& path) {
  Mount m = MountOf(path);
  return m.fstype.empty() ? kUnknown : m.fstype;
}

nlohmann::json DescribeEnvironment(const std::string& data_dir) {
  nlohmann::json out = nlohmann::json::object();
  const auto set = [&out](const results::ContextKey& k, nlohmann::json v) {
    out[std::string(k.name)] = std::move(v);
  };
  utsname u{};
  std::string kernel = kUnknown;
  if (uname(&u) == 0) {
    kernel = std::string(u.sysname) + " " + u.release + " " + u.version + " " +
             u.machine;
  }
  set(results::kKernel, kernel);
  set(results::kCpu, CpuModel());
  set(results::kHardwareThreads,
      static_cast<int64_t>(std::thread::hardware_concurrency()));
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  set(results::kRamBytes,
      pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page : 0);
  set(results::kMachineIdHash, MachineIdHash());
  Mount m = MountOf(data_dir);
  set(results::kFilesystem, m.fstype.empty() ? kUnknown : m.fstype);
  set(results::kDevice,
      m.source.empty() ? kUnknown : m.source + " (" + m.dev + ")");
  std::string queue = m.dev.empty() ? "" : QueueDir(m.dev);
  set(results::kReadAheadKb,
      queue.empty() ? kUnknown : FirstLine(queue + "/read_ahead_kb"));
  set(results::kScheduler,
      queue.empty() ? kUnknown
                    : ActiveScheduler(FirstLine(queue + "/scheduler")));
  set(results::kDropCaches, DropCachesWritable() ? "writable" : "not writable");
  return out;
}

}  // namespace flatbench::bench
