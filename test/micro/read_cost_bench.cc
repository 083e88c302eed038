// What a cold random 4 KiB read costs its reader, by how it is read, apart
// from any format (RESEARCH.md, section 8b). Not a test: a tool for
// measuring by hand, on a quiet machine.
//
//   read_cost_bench --file F [--ways direct,buffered,readahead] [--batch 32]
//                   [--reads 40000] [--rounds 3] [--seed 1]
//
// A pass evicts F from the page cache (drop_caches as root, else fadvise),
// then reads `--reads` random 4 KiB-aligned pages of it from one thread,
// `--batch` at a time, one of three ways:
//   direct     O_DIRECT reads into the reader's buffers, submitted as the
//              arena's batches submit theirs (arena::BatchIo: io_uring where
//              built in). The cache path's and arena+direct's batch reads.
//   buffered   the same, without O_DIRECT: each page enters the page cache
//              and is copied out. The mmap path's batch reads.
//   readahead  readahead(2) for each page of the batch, then each page read
//              through a map of F (MADV_RANDOM): the page cache warmed
//              without io_uring.
// Every byte of every page is read once it is there. Prints one line per
// pass: pages/s and CPU µs per page (process CPU), and 4 KiB reads per page
// from storage (/proc/self/io).
//
// Rounds run every way once, in an order that rotates from round to round,
// and every pass reads pages of its own (its own seed): a virtual disk can
// serve pages it read recently faster than others. A --batch beyond 32
// shows what the device gives at depths past the bench's device cells.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "arena/batch_io.h"
#include "bench/io_stats.h"
#include "bench/page_cache.h"
#include "bench/pass.h"
#include "common/files.h"
#include "common/status.h"

namespace {

using namespace flatbench;

constexpr size_t kPage = 4096;

struct Args {
  std::string file;
  std::vector<std::string> ways = {"direct", "buffered", "readahead"};
  size_t batch = 32, reads = 40000, rounds = 3, seed = 1;
};

bool Parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    std::string v;
    const bool has = i + 1 < argc;
    if (has) v = argv[i + 1];
    auto number = [&](size_t* out) {
      char* end = nullptr;
      *out = std::strtoull(v.c_str(), &end, 10);
      return has && !v.empty() && *end == '\0' && *out > 0;
    };
    bool ok = true;
    if (f == "--file") {
      ok = has;
      a->file = v;
    } else if (f == "--ways") {
      ok = has;
      a->ways.clear();
      for (size_t at = 0; ok && at <= v.size();) {
        size_t end = v.find(',', at);
        if (end == std::string::npos) end = v.size();
        const std::string w = v.substr(at, end - at);
        ok = w == "direct" || w == "buffered" || w == "readahead";
        a->ways.push_back(w);
        at = end + 1;
      }
    } else if (f == "--batch") {
      ok = number(&a->batch);
    } else if (f == "--reads") {
      ok = number(&a->reads);
    } else if (f == "--rounds") {
      ok = number(&a->rounds);
    } else if (f == "--seed") {
      ok = number(&a->seed);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "read_cost_bench: bad argument %s%s%s\n", f.c_str(),
                   has ? " " : "", v.c_str());
      return false;
    }
    ++i;
  }
  return !a->file.empty();
}

// Sums a page's words, so that every byte is read and none of it is
// optimized away.
uint64_t Touch(const char* page) {
  const auto* w = reinterpret_cast<const uint64_t*>(page);
  uint64_t sum = 0;
  for (size_t k = 0; k < kPage / 8; ++k) sum += w[k];
  return sum;
}

// One pass of `way` over `offsets`. Adds what it read to `*sum`.
Status Pass(const Args& a, const std::string& way,
            const std::vector<uint64_t>& offsets, uint64_t file_bytes,
            uint64_t* sum, bool* uring) {
  const int flags = O_RDONLY | O_CLOEXEC | (way == "direct" ? O_DIRECT : 0);
  UniqueFd fd(::open(a.file.c_str(), flags));
  if (fd.get() < 0) return Status::FromErrno("open " + a.file);
  // As the arena's reader does: no readahead beyond the page asked for.
  (void)::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_RANDOM);
  if (way == "readahead") {
    void* m = ::mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, fd.get(), 0);
    if (m == MAP_FAILED) return Status::FromErrno("mmap " + a.file);
    (void)::madvise(m, file_bytes, MADV_RANDOM);
    const char* map = static_cast<const char*>(m);
    for (size_t b = 0; b < offsets.size(); b += a.batch) {
      const size_t end = std::min(offsets.size(), b + a.batch);
      for (size_t i = b; i < end; ++i) {
        if (::readahead(fd.get(), static_cast<off_t>(offsets[i]), kPage) != 0) {
          const Status st = Status::FromErrno(
              a.file + ": readahead at offset " + std::to_string(offsets[i]));
          ::munmap(m, file_bytes);
          return st;
        }
      }
      for (size_t i = b; i < end; ++i) *sum += Touch(map + offsets[i]);
    }
    *uring = false;
    return ::munmap(m, file_bytes) == 0 ? Status::Ok()
                                        : Status::FromErrno("munmap");
  }
  arena::BatchIo io(/*use_uring=*/true);
  char* buffers =
      static_cast<char*>(std::aligned_alloc(kPage, a.batch * kPage));
  if (buffers == nullptr) return Status::IOError("out of memory for buffers");
  std::unique_ptr<char, decltype(&std::free)> own(buffers, &std::free);
  std::vector<arena::BlockRead> reads(a.batch);
  for (size_t b = 0; b < offsets.size(); b += a.batch) {
    const size_t n = std::min(offsets.size() - b, a.batch);
    io.Begin(std::span<arena::BlockRead>(reads.data(), n));
    for (size_t i = 0; i < n; ++i) {
      reads[i] = {fd.get(), buffers + i * kPage, kPage, offsets[b + i], 0};
      io.Submit(i);
    }
    // Every read is waited for, even after one failed: none may still be
    // in flight when its buffer is freed.
    Status failed;
    for (size_t i = 0; io.Next(&i);) {
      if (!failed.ok()) continue;
      if (reads[i].result != static_cast<int64_t>(kPage)) {
        if (reads[i].result < 0) errno = static_cast<int>(-reads[i].result);
        const std::string where =
            a.file + ": read at offset " + std::to_string(reads[i].offset);
        failed = reads[i].result < 0
                     ? Status::FromErrno(where)
                     : Status::IOError(where + " came up short");
        continue;
      }
      *sum += Touch(reads[i].dst);
    }
    FLATBENCH_RETURN_IF_ERROR(failed);
  }
  // Still a ring at the end: no read fell back to pread.
  *uring = io.uring();
  return Status::Ok();
}

Status Run(const Args& a) {
  struct stat st;
  if (::stat(a.file.c_str(), &st) != 0) {
    return Status::MissingInput(a.file + ": " + std::strerror(errno));
  }
  const uint64_t pages = static_cast<uint64_t>(st.st_size) / kPage;
  if (!S_ISREG(st.st_mode) || pages == 0) {
    return Status::Usage(a.file + ": not a regular file of at least 4 KiB");
  }
  uint64_t sum = 0;
  uint64_t pass_seed = a.seed;
  for (size_t round = 0; round < a.rounds; ++round) {
    for (size_t k = 0; k < a.ways.size(); ++k) {
      const std::string& way = a.ways[(k + round) % a.ways.size()];
      std::mt19937_64 rng(pass_seed++);
      std::vector<uint64_t> offsets(a.reads);
      for (uint64_t& o : offsets) o = rng() % pages * kPage;
      bench::EvictMethod method = bench::EvictMethod::kFadvise;
      FLATBENCH_RETURN_IF_ERROR(bench::Evict({a.file}, &method));
      bool uring = false;
      const bench::IoSnapshot before = bench::TakeIoSnapshot();
      const uint64_t start = bench::NowNs();
      FLATBENCH_RETURN_IF_ERROR(Pass(
          a, way, offsets, static_cast<uint64_t>(st.st_size), &sum, &uring));
      const double seconds = (bench::NowNs() - start) / 1e9;
      const bench::IoSnapshot after = bench::TakeIoSnapshot();
      const double n = static_cast<double>(a.reads);
      std::printf(
          "%-9s B=%zu round %zu: %.0f pages/s, %.2f us CPU/page, %.2f 4KiB "
          "reads/page from storage (%s; evicted by %s)\n",
          way.c_str(), a.batch, round, n / seconds,
          (after.cpu_ns - before.cpu_ns) / 1e3 / n,
          (after.read_bytes - before.read_bytes) / 4096.0 / n,
          way == "readahead" ? "readahead(2) + map"
          : uring            ? "io_uring"
                             : "pread",
          bench::EvictMethodName(method));
      std::fflush(stdout);
    }
  }
  // Printed so that the pages' words are used.
  std::printf("checksum of the pages read: %016llx\n",
              static_cast<unsigned long long>(sum));
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!Parse(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: read_cost_bench --file F "
                 "[--ways direct,buffered,readahead] [--batch B] [--reads N] "
                 "[--rounds R] [--seed S]\n");
    return 64;
  }
  const Status st = Run(a);
  if (!st.ok()) {
    std::fprintf(stderr, "read_cost_bench: %s\n", st.message().c_str());
    return st.ExitCode();
  }
  return 0;
}
