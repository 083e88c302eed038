#include "bench/io_stats.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace flatbench::bench {
namespace {

// read_bytes counts bytes the process caused to be fetched from the storage
// layer (page-cache misses), unlike rchar which counts syscalls.
void ReadIo(const std::string& path, IoSnapshot* s) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return;
  char line[128];
  while (std::fgets(line, sizeof(line), f)) {
    unsigned long long v = 0;
    if (std::sscanf(line, "read_bytes: %llu", &v) == 1) {
      s->read_bytes = v;
      s->read_bytes_known = true;
    }
  }
  std::fclose(f);
}

// minflt, majflt, utime and stime of /proc/<pid>/stat (fields 10, 12, 14
// and 15), after the parenthesised command name, which may itself hold
// spaces and ')'.
bool ReadStat(int pid, IoSnapshot* s) {
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return false;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* close = std::strrchr(buf, ')');
  if (!close) return false;
  char state = 0;
  int ppid = 0, pgrp = 0, session = 0, tty = 0, tpgid = 0;
  unsigned flags = 0;
  unsigned long long minflt = 0, cminflt = 0, majflt = 0, cmajflt = 0;
  unsigned long long utime = 0, stime = 0;
  if (std::sscanf(close + 1,
                  " %c %d %d %d %d %d %u %llu %llu %llu %llu %llu %llu", &state,
                  &ppid, &pgrp, &session, &tty, &tpgid, &flags, &minflt,
                  &cminflt, &majflt, &cmajflt, &utime, &stime) != 13) {
    return false;
  }
  s->minor_faults = minflt;
  s->major_faults = majflt;
  static const long ticks = sysconf(_SC_CLK_TCK);
  if (ticks > 0) {
    s->cpu_ns = (utime + stime) *
                (1'000'000'000ULL / static_cast<unsigned long long>(ticks));
    s->cpu_known = true;
  }
  return true;
}

uint64_t StatmRss(const char* path) {
  unsigned long long size = 0, resident = 0;
  FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

IoSnapshot TakeIoSnapshot() {
  IoSnapshot s;
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    s.major_faults = static_cast<uint64_t>(ru.ru_majflt);
    s.minor_faults = static_cast<uint64_t>(ru.ru_minflt);
  }
  ReadIo("/proc/self/io", &s);
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0) {
    s.cpu_ns = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
               static_cast<uint64_t>(ts.tv_nsec);
    s.cpu_known = true;
  }
  s.host_busy_known = HostBusyNs(&s.host_busy_ns);
  return s;
}

bool HostBusyNs(uint64_t* ns) {
  FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return false;
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0,
                     irq = 0, softirq = 0;
  const int n = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &user,
                            &nice, &system, &idle, &iowait, &irq, &softirq);
  std::fclose(f);
  static const long ticks = sysconf(_SC_CLK_TCK);
  if (n != 7 || ticks <= 0) return false;
  *ns = (user + nice + system + irq + softirq) *
        (1'000'000'000ULL / static_cast<unsigned long long>(ticks));
  return true;
}

std::map<int, IoSnapshot> TakeProcessSnapshots(const std::vector<int>& pids) {
  std::map<int, IoSnapshot> out;
  for (int pid : pids) {
    IoSnapshot s;
    if (!ReadStat(pid, &s)) continue;
    ReadIo("/proc/" + std::to_string(pid) + "/io", &s);
    out[pid] = s;
  }
  return out;
}

IoSnapshot ProcessDelta(const std::map<int, IoSnapshot>& before,
                        const std::map<int, IoSnapshot>& after) {
  IoSnapshot d;
  d.read_bytes_known = true;
  d.cpu_known = true;
  for (const auto& [pid, b] : before) {
    auto it = after.find(pid);
    if (it == after.end()) {
      d.read_bytes_known = false;
      d.cpu_known = false;
      continue;
    }
    const IoSnapshot& a = it->second;
    // A reused pid (another process) counts from 0: never a negative delta.
    d.major_faults += a.major_faults >= b.major_faults
                          ? a.major_faults - b.major_faults
                          : a.major_faults;
    d.minor_faults += a.minor_faults >= b.minor_faults
                          ? a.minor_faults - b.minor_faults
                          : a.minor_faults;
    if (!a.cpu_known || !b.cpu_known) {
      d.cpu_known = false;
    } else {
      d.cpu_ns += a.cpu_ns >= b.cpu_ns ? a.cpu_ns - b.cpu_ns : a.cpu_ns;
    }
    if (!a.read_bytes_known || !b.read_bytes_known) {
      d.read_bytes_known = false;
    } else {
      d.read_bytes += a.read_bytes >= b.read_bytes ? a.read_bytes - b.read_bytes
                                                   : a.read_bytes;
    }
  }
  return d;
}

uint64_t RssBytes() { return StatmRss("/proc/self/statm"); }

uint64_t PssBytesOf(int pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/smaps_rollup";
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return 0;
  char line[256];
  uint64_t bytes = 0;
  while (std::fgets(line, sizeof(line), f)) {
    unsigned long long kb = 0;
    if (std::sscanf(line, "Pss: %llu kB", &kb) == 1) {
      bytes = kb * 1024;
      break;
    }
  }
  std::fclose(f);
  return bytes;
}

uint64_t MemoryBytes(const std::vector<int>& servers) {
  uint64_t total = RssBytes();
  for (int pid : servers) total += PssBytesOf(pid);
  return total;
}

}  // namespace flatbench::bench
