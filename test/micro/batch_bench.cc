// Batched cold lookups against single gets, on one backend of a dataset
// built with `flatbench gen` (RESEARCH.md, section 8b). Not a test and not
// the bench's matrix: a tool for measuring MultiGet by hand, on a quiet
// machine, in longer passes than the bench's batch cells.
//
//   batch_bench --dir DATASET --backend arena --table account
//               [--batch 32] [--threads 1] [--keys 64000] [--reps 3]
//               [--warm] [--single | --alternate] [--no-prefetch]
//
// Each repetition: evict the backend's files from the page cache (cold;
// drop_caches as root, else fadvise), or read them in and make one untimed
// pass (--warm); open the backend (its metadata loaded, as the bench's cold
// mode); then `--threads` threads each look up their share of `--keys` hit
// keys drawn by the dataset's sampler, in batches of `--batch` with
// MultiGet, or one by one with Get (--single), or (--alternate, warm only)
// both, one after the other on the same resident files, in an order that
// swaps every repetition. Prints one line per timed pass: keys/s, CPU µs per
// key (process CPU, all threads), storage bytes and 4 KiB reads per key
// (/proc/self/io), and the session's batch I/O (batches that read with
// io_uring, their reads, reads done with pread, and the most in flight at
// once).

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "backends/table.h"
#include "bench/io_stats.h"
#include "bench/page_cache.h"
#include "bench/pass.h"
#include "datagen/dataset_dir.h"
#include "datagen/sampler.h"

namespace {

using namespace flatbench;

struct Args {
  std::string dir, backend = "arena", table = "account";
  size_t batch = 32, threads = 1, keys = 64000, reps = 3;
  bool warm = false, single = false, alternate = false, prefetch = true;
};

bool Parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    auto next = [&](std::string* v) {
      if (i + 1 >= argc) return false;
      *v = argv[++i];
      return true;
    };
    auto number = [&](size_t* v) {
      std::string s;
      if (!next(&s)) return false;
      char* end = nullptr;
      *v = std::strtoull(s.c_str(), &end, 10);
      return *end == '\0' && *v > 0;
    };
    bool ok = true;
    if (f == "--dir")
      ok = next(&a->dir);
    else if (f == "--backend")
      ok = next(&a->backend);
    else if (f == "--table")
      ok = next(&a->table);
    else if (f == "--batch")
      ok = number(&a->batch);
    else if (f == "--threads")
      ok = number(&a->threads);
    else if (f == "--keys")
      ok = number(&a->keys);
    else if (f == "--reps")
      ok = number(&a->reps);
    else if (f == "--warm")
      a->warm = true;
    else if (f == "--single")
      a->single = true;
    else if (f == "--alternate")
      a->alternate = true;
    else if (f == "--no-prefetch")
      a->prefetch = false;
    else
      ok = false;
    if (!ok) {
      std::fprintf(stderr, "batch_bench: bad argument %s\n", f.c_str());
      return false;
    }
  }
  return !a->dir.empty() && !(a->single && a->alternate) &&
         (a->warm || !a->alternate);
}

// One thread's lookups: keys [first, first + n) of `keys`.
Status RunThread(Backend& backend, Table table, const Args& a, bool single,
                 const std::vector<std::string>& keys, size_t first, size_t n,
                 std::atomic<int>* ready, const std::atomic<bool>* go,
                 BatchIoStats* io, uint64_t* found) {
  auto session = backend.NewSession();
  if (!session.ok()) return session.status();
  ReadSession& s = *session.value();
  std::vector<std::string_view> batch;
  std::vector<GetResult> results(a.batch);
  ready->fetch_add(1);
  while (!go->load()) std::this_thread::yield();
  for (size_t i = first; i < first + n; i += a.batch) {
    const size_t m = std::min(a.batch, first + n - i);
    if (single) {
      for (size_t j = i; j < i + m; ++j) {
        bool hit = false;
        std::string_view v;
        FLATBENCH_RETURN_IF_ERROR(s.Get(table, keys[j], &hit, &v));
        *found += hit;
      }
      continue;
    }
    batch.assign(keys.begin() + i, keys.begin() + i + m);
    FLATBENCH_RETURN_IF_ERROR(
        s.MultiGet(table, batch, std::span<GetResult>(results.data(), m)));
    for (size_t j = 0; j < m; ++j) {
      FLATBENCH_RETURN_IF_ERROR(results[j].status);
      *found += results[j].found;
    }
  }
  *io = s.BatchIo();
  return Status::Ok();
}

// `a.keys` hit keys of `table`, drawn by the dataset's sampler.
std::vector<std::string> DrawHitKeys(const datagen::Dataset& ds, Table table,
                                     const Args& a) {
  datagen::Sampler sampler(ds.spec(), table, datagen::KeyKind::kHit, 5);
  std::vector<std::string> keys(a.keys, std::string(KeySize(table), '\0'));
  for (size_t i = 0; i < a.keys; ++i) {
    sampler.DrawKey(i, reinterpret_cast<uint8_t*>(keys[i].data()));
  }
  return keys;
}

// What one pass of every thread measured: its wall time, the process's
// I/O counters around it (a timed pass only), and the threads' sums.
struct PassTotals {
  double seconds = 0;
  bench::IoSnapshot before, after;
  BatchIoStats io;
  uint64_t hits = 0;
};

// One pass: `a.threads` threads, released together once all are ready,
// each over its share of `keys`. Returns the first thread's error.
Status RunPass(Backend& backend, Table table, const Args& a, bool single,
               bool timed, const std::vector<std::string>& keys,
               PassTotals* out) {
  const size_t per = a.keys / a.threads;
  std::vector<BatchIoStats> io(a.threads);
  std::vector<uint64_t> found(a.threads, 0);
  std::vector<Status> status(a.threads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < a.threads; ++t) {
    threads.emplace_back([&, t] {
      status[t] = RunThread(backend, table, a, single, keys, t * per, per,
                            &ready, &go, &io[t], &found[t]);
    });
  }
  while (ready.load() < static_cast<int>(a.threads)) {
    std::this_thread::yield();
  }
  if (timed) out->before = bench::TakeIoSnapshot();
  const uint64_t start = bench::NowNs();
  go.store(true);
  for (auto& th : threads) th.join();
  out->seconds = (bench::NowNs() - start) / 1e9;
  if (timed) out->after = bench::TakeIoSnapshot();
  for (size_t t = 0; t < a.threads; ++t) {
    FLATBENCH_RETURN_IF_ERROR(status[t]);
    out->io.batches += io[t].batches;
    out->io.submissions += io[t].submissions;
    out->io.reads += io[t].reads;
    out->io.sync_reads += io[t].sync_reads;
    out->io.max_depth = std::max(out->io.max_depth, io[t].max_depth);
    out->hits += found[t];
  }
  return Status::Ok();
}

// The line of one timed pass.
void PrintPass(const Args& a, bool single, size_t rep, const PassTotals& p,
               const char* evicted_by) {
  const double n = static_cast<double>(a.keys / a.threads * a.threads);
  const double bytes =
      static_cast<double>(p.after.read_bytes - p.before.read_bytes);
  std::printf(
      "%s %s %s %s B=%zu T=%zu rep %zu: %.0f keys/s, %.2f us CPU/key, "
      "%.0f bytes and %.2f 4KiB reads/key from storage, found %llu/%.0f; "
      "batch io: %llu batches read, %llu reads, %llu pread, deepest %llu "
      "(evicted by %s)\n",
      a.backend.c_str(), a.table.c_str(), a.warm ? "warm" : "cold",
      single ? "get" : "multiget", a.batch, a.threads, rep, n / p.seconds,
      (p.after.cpu_ns - p.before.cpu_ns) / 1e3 / n, bytes / n,
      bytes / 4096.0 / n, static_cast<unsigned long long>(p.hits), n,
      static_cast<unsigned long long>(p.io.submissions),
      static_cast<unsigned long long>(p.io.reads),
      static_cast<unsigned long long>(p.io.sync_reads),
      static_cast<unsigned long long>(p.io.max_depth), evicted_by);
}

// One repetition: the files evicted (or made resident, with an untimed
// pass), the backend opened, then its timed pass or passes.
Status RunRepetition(const Args& a, const datagen::Dataset& ds, Table table,
                     const std::vector<std::string>& keys,
                     const std::vector<std::string>& files,
                     const OpenOptions& options, size_t rep) {
  bench::EvictMethod method = bench::EvictMethod::kFadvise;
  if (a.warm) {
    FLATBENCH_RETURN_IF_ERROR(bench::MakeResident(files));
  } else {
    FLATBENCH_RETURN_IF_ERROR(bench::Evict(files, &method));
  }
  FLATBENCH_ASSIGN_OR_RETURN(
      auto backend,
      backends::Open(a.backend, ds.BackendDir(a.backend), options));
  if (a.warm) {
    // The untimed pass only warms the caches; the timed passes that follow
    // check their own status.
    PassTotals untimed;
    (void)RunPass(*backend, table, a, a.single, false, keys, &untimed);
  }
  // --alternate: both ways on the same resident files, in an order that
  // swaps from one repetition to the next, so drift falls on both.
  std::vector<bool> ways = {a.single};
  if (a.alternate) ways = {rep % 2 == 1, rep % 2 == 0};
  for (const bool single : ways) {
    PassTotals p;
    FLATBENCH_RETURN_IF_ERROR(
        RunPass(*backend, table, a, single, true, keys, &p));
    PrintPass(a, single, rep, p,
              a.warm ? "none" : bench::EvictMethodName(method));
  }
  return Status::Ok();
}

Status Run(const Args& a) {
  Table table;
  if (!ParseTable(a.table, &table)) return Status::Usage("--table " + a.table);
  FLATBENCH_ASSIGN_OR_RETURN(auto ds, datagen::Dataset::Open(a.dir));
  FLATBENCH_ASSIGN_OR_RETURN(auto files,
                             bench::ListFiles(ds.BackendDir(a.backend)));
  const std::vector<std::string> keys = DrawHitKeys(ds, table, a);
  OpenOptions options;
  options.verify_checksums = true;
  options.batch_prefetch = a.prefetch;
  for (size_t rep = 0; rep < a.reps; ++rep) {
    FLATBENCH_RETURN_IF_ERROR(
        RunRepetition(a, ds, table, keys, files, options, rep));
  }
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!Parse(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: batch_bench --dir DATASET [--backend B] [--table T] "
                 "[--batch B] [--threads T] [--keys N] [--reps R] [--warm] "
                 "[--single | --alternate] [--no-prefetch]\n");
    return 64;
  }
  const Status st = Run(a);
  if (!st.ok()) {
    std::fprintf(stderr, "batch_bench: %s\n", st.message().c_str());
    return st.ExitCode();
  }
  return 0;
}
