// Another process's counters, as a pass sums them over a backend's server
// processes: faults, storage bytes and CPU time as deltas, memory as Pss,
// so a page two processes share counts once. The child acts only when told and
// answers when done; nothing depends on timing.
#include "bench/io_stats.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "test/temp_dir.h"

namespace flatbench::bench {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kTouched = 8 << 20;  // Private pages the child faults in.
constexpr size_t kShared = 16 << 20;  // Pages both processes map.
constexpr size_t kDirect = 1 << 20;   // Bytes the child reads with O_DIRECT.

uint64_t RssOf(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/statm");
  uint64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// CPU time this process has used, by getrusage (user + system).
uint64_t RusageCpuNs() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& t) {
    return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000ULL +
           static_cast<uint64_t>(t.tv_usec) * 1000;
  };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

// Spins until this process has used `ns` more CPU time: a fixed amount of
// work in CPU time, whatever the load.
void BurnCpu(uint64_t ns) {
  const uint64_t start = RusageCpuNs();
  volatile uint64_t x = 0;
  while (RusageCpuNs() - start < ns) {
    for (int i = 0; i < 10000; ++i) x = x + static_cast<uint64_t>(i);
  }
}

constexpr uint64_t kBurnNs = 50'000'000;  // CPU time the child burns.

// The child: on 'f' faults in kTouched fresh private pages, on 's' reads
// every page of `shared`, on 'r' reads kDirect bytes of `file` with
// O_DIRECT, on 'c' burns kBurnNs of CPU time; answers each with one byte;
// exits on EOF.
[[noreturn]] void Child(int in, int out, volatile char* shared,
                        const std::string& file) {
  char cmd = 0;
  while (read(in, &cmd, 1) == 1) {
    bool ok = true;
    if (cmd == 'f') {
      void* p = mmap(nullptr, kTouched, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      ok = p != MAP_FAILED;
      if (ok) {
        madvise(p, kTouched, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < kTouched; i += kPage) {
          static_cast<volatile char*>(p)[i] = 1;
        }
      }
    } else if (cmd == 's') {
      char sum = 0;
      for (size_t i = 0; i < kShared; i += kPage) sum += shared[i];
      ok = sum == static_cast<char>((kShared / kPage) * 7);
    } else if (cmd == 'r') {
      int fd = open(file.c_str(), O_RDONLY | O_DIRECT);
      void* buf = nullptr;
      ok = fd >= 0 && posix_memalign(&buf, kPage, kDirect) == 0 &&
           pread(fd, buf, kDirect, 0) == static_cast<ssize_t>(kDirect);
      if (fd >= 0) close(fd);
      std::free(buf);
    } else if (cmd == 'c') {
      BurnCpu(kBurnNs);
    }
    char answer = ok ? 1 : 0;
    if (write(out, &answer, 1) != 1) break;
  }
  _exit(0);
}

struct ChildProcess {
  int pid = 0, to = -1, from = -1;
  bool Ask(char cmd) const {
    char answer = 0;
    return write(to, &cmd, 1) == 1 && read(from, &answer, 1) == 1 &&
           answer == 1;
  }
  void End() {
    close(to);
    int status = 0;
    waitpid(pid, &status, 0);
    close(from);
  }
};

TEST_CASE("another process's faults, storage bytes and Pss",
          "[bench][io_stats]") {
  testing::TempDir tmp;
  const std::string file = tmp / "data";
  {
    std::ofstream out(file, std::ios::binary);
    const std::string block(kDirect, 'x');
    out.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
  // Both processes read every page of a shared mapping.
  void* mem = mmap(nullptr, kShared, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mem != MAP_FAILED);
  auto* shared = static_cast<volatile char*>(mem);
  for (size_t i = 0; i < kShared; i += kPage) shared[i] = 7;

  int down[2], up[2];
  REQUIRE(pipe(down) == 0);
  REQUIRE(pipe(up) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    Child(down[0], up[1], shared, file);
  }
  close(down[0]);
  close(up[1]);
  ChildProcess child{pid, down[1], up[0]};

  const auto before = TakeProcessSnapshots({pid});
  REQUIRE(before.count(pid) == 1);
  REQUIRE(child.Ask('f'));
  REQUIRE(child.Ask('s'));
  REQUIRE(child.Ask('r'));
  REQUIRE(child.Ask('c'));
  const auto after = TakeProcessSnapshots({pid});
  const IoSnapshot d = ProcessDelta(before, after);
  // Its CPU time, in clock ticks (10 ms at 100 per second): at least the
  // burn less a tick lost to rounding at each end.
  CHECK(d.cpu_known);
  CHECK(d.cpu_ns >= kBurnNs - 20'000'000);
  // One fault per private page written (shared pages read are mapped 16
  // at a time by fault-around).
  CHECK(d.minor_faults >= kTouched / kPage);
  CHECK(d.read_bytes_known);
  CHECK(d.read_bytes >= kDirect);
  // The child's own view agrees on the order of magnitude: its RSS holds
  // both regions.
  const uint64_t rss = RssOf(pid);
  CHECK(rss >= kTouched + kShared);
  // Pss: the shared region counts half in each process.
  const uint64_t pss = PssBytesOf(pid);
  CHECK(pss >= kTouched + kShared / 2);
  CHECK(rss - pss >= kShared / 2);
  CHECK(MemoryBytes({pid}) >= RssBytes() + kTouched);

  // A process that ended between the snapshots leaves the bytes unknown
  // rather than silently short.
  child.End();
  CHECK(TakeProcessSnapshots({pid}).empty());
  CHECK_FALSE(
      ProcessDelta(before, TakeProcessSnapshots({pid})).read_bytes_known);
  CHECK_FALSE(ProcessDelta(before, TakeProcessSnapshots({pid})).cpu_known);
  CHECK(PssBytesOf(pid) == 0);
  munmap(mem, kShared);
}

TEST_CASE("this process's CPU time is the process clock's",
          "[bench][io_stats]") {
  const IoSnapshot before = TakeIoSnapshot();
  const uint64_t rusage_before = RusageCpuNs();
  BurnCpu(20'000'000);
  const uint64_t burnt = RusageCpuNs() - rusage_before;
  const IoSnapshot after = TakeIoSnapshot();
  REQUIRE(before.cpu_known);
  REQUIRE(after.cpu_known);
  // The clock was read before and after getrusage, which rounds to
  // microseconds: a millisecond of slack is far more than either needs.
  CHECK(after.cpu_ns - before.cpu_ns + 1'000'000 >= burnt);
  CHECK(burnt >= 20'000'000);
}

TEST_CASE("server deltas sum per process and skip newcomers",
          "[bench][io_stats]") {
  std::map<int, IoSnapshot> before = {{10, {1, 100, 4096, true, 1000, true}},
                                      {11, {0, 50, 0, true, 0, true}}};
  std::map<int, IoSnapshot> after = {{10, {3, 180, 12288, true, 21000, true}},
                                     {11, {1, 70, 4096, true, 5000, true}},
                                     {12, {9, 900, 90000, true, 99000, true}}};
  IoSnapshot d = ProcessDelta(before, after);
  CHECK(d.major_faults == 3);
  CHECK(d.minor_faults == 100);
  CHECK(d.read_bytes == 12288);
  CHECK(d.read_bytes_known);
  CHECK(d.cpu_ns == 25000);
  CHECK(d.cpu_known);
  after[11].read_bytes_known = false;
  d = ProcessDelta(before, after);
  CHECK_FALSE(d.read_bytes_known);
  CHECK(d.minor_faults == 100);  // Faults come from stat, still known.
  // No server processes: nothing added, and nothing unknown.
  d = ProcessDelta({}, {});
  CHECK(d.read_bytes_known);
  CHECK(d.read_bytes == 0);
  CHECK(d.cpu_known);
  CHECK(d.cpu_ns == 0);
}

}  // namespace
}  // namespace flatbench::bench
