#include "bench/io_stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace flatbench::bench {

IoSnapshot TakeIoSnapshot() {
  IoSnapshot s;
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    s.major_faults = static_cast<uint64_t>(ru.ru_majflt);
    s.minor_faults = static_cast<uint64_t>(ru.ru_minflt);
  }
  // read_bytes counts bytes this process caused to be fetched from the
  // storage layer (page-cache misses), unlike rchar which counts syscalls.
  if (FILE* f = std::fopen("/proc/self/io", "r")) {
    char line[128];
    while (std::fgets(line, sizeof(line), f)) {
      unsigned long long v = 0;
      if (std::sscanf(line, "read_bytes: %llu", &v) == 1) {
        s.read_bytes = v;
        s.read_bytes_known = true;
      }
    }
    std::fclose(f);
  }
  return s;
}

namespace {

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

uint64_t RssBytes() { return StatmRss("/proc/self/statm"); }

uint64_t RssBytesOf(int pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/statm";
  return StatmRss(path.c_str());
}

}  // namespace flatbench::bench
