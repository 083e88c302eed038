#include "bench/writing_pass.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "bench/histogram.h"
#include "bench/pass.h"
#include "bench/writing_checks.h"
#include "bench/writing_figures.h"
#include "datagen/blocks.h"

namespace flatbench::bench {
namespace {

// What one reader thread keeps; written only by its thread until the pass
// ends.
struct ReaderTally {
  Histogram hist;
  uint64_t reads = 0, found = 0;
  uint64_t start_ns = 0, end_ns = 0;
  std::vector<TimedRead> samples;
  std::vector<WritingAnswer> answers;
  Status error;
};

struct WritingShared {
  explicit WritingShared(int threads)
      : start(threads + 1), tallies(static_cast<size_t>(threads)) {}
  std::barrier<> start;
  std::atomic<bool> stop{false};
  std::atomic<uint32_t> begun{0}, done{0};
  std::atomic<int> readers_at_quota{0};
  std::atomic<bool> reader_failed{false};
  std::vector<ReaderTally> tallies;
  uint64_t origin_ns = 0;  // Set before the barrier.
};

void ReadLoop(const WritingSpec& spec, WritingShared* sh, int t) {
  ReaderTally& tally = sh->tallies[static_cast<size_t>(t)];
  auto made = spec.store->backend().NewSession();
  tally.samples.reserve(std::min<uint64_t>(kWritingSamplesPerThread,
                                           spec.reads_per_thread / 4 + 1024));
  tally.answers.reserve(kWritingChecksPerThread);
  sh->start.arrive_and_wait();
  if (!made.ok()) {
    tally.error = made.status();
    sh->reader_failed = true;
    return;
  }
  ReadSession& session = *made.value();
  const uint64_t n = spec.reads_per_thread;
  // Past its share of the plan a thread reads keys never read in this pass
  // (the sampler's draws after every thread's share, interleaved between
  // the threads), drawn in the loop: re-reading the plan would turn a cold
  // pass warm. Only the plan's keys are checked (their versions are the
  // ones the writer keeps).
  const uint64_t beyond =
      spec.first_index + static_cast<uint64_t>(spec.threads) * n;
  std::string drawn(spec.plan->key_size(), '\0');
  tally.start_ns = NowNs();
  for (uint64_t i = 0; !sh->stop.load(std::memory_order_relaxed); ++i) {
    const uint64_t index = i % n;
    std::string_view key;
    if (i < n) {
      key = spec.plan->Key(t, index);
    } else {
      spec.sampler->DrawKey(beyond +
                                (i - n) * static_cast<uint64_t>(spec.threads) +
                                static_cast<uint64_t>(t),
                            reinterpret_cast<uint8_t*>(drawn.data()));
      key = drawn;
    }
    bool found = false;
    std::string_view value;
    Status st;
    if (i % kLatencySampleEvery == 0) {
      const uint32_t lo = sh->done.load(std::memory_order_acquire);
      const uint64_t t0 = NowNs();
      st = session.Get(spec.table, key, &found, &value);
      const uint64_t t1 = NowNs();
      const uint32_t hi = sh->begun.load(std::memory_order_acquire);
      tally.hist.Record(t1 - t0);
      if (tally.samples.size() < kWritingSamplesPerThread) {
        tally.samples.push_back({t1 - sh->origin_ns, t1 - t0});
      }
      if (st.ok() && i < n && tally.answers.size() < kWritingChecksPerThread) {
        WritingAnswer a;
        a.index = static_cast<uint32_t>(index);
        a.lo = lo;
        a.hi = hi;
        a.found = found;
        a.full_size = found ? static_cast<uint32_t>(value.size()) : 0;
        a.size = static_cast<uint8_t>(
            std::min<size_t>(a.full_size, sizeof(a.value)));
        std::copy_n(value.data(), a.size, a.value);
        tally.answers.push_back(a);
      }
    } else {
      st = session.Get(spec.table, key, &found, &value);
    }
    if (!st.ok()) [[unlikely]] {
      tally.error = st;
      sh->reader_failed = true;
      break;
    }
    tally.found += found ? 1 : 0;
    if (++tally.reads == n) sh->readers_at_quota.fetch_add(1);
  }
  tally.end_ns = NowNs();
}

// The changes of `block` as bytes, and views of them.
struct BlockChanges {
  std::vector<std::string> keys, values;
  std::vector<KeyChange> changes;
  void Make(const dataset::Spec& spec, const datagen::Block& block) {
    const size_t n = block.changes.size();
    keys.resize(n);
    values.resize(n);
    changes.resize(n);
    const datagen::Touch touch{static_cast<uint32_t>(block.number), false};
    for (size_t i = 0; i < n; ++i) {
      const datagen::Change& c = block.changes[i];
      keys[i] = datagen::KeyBytes(c.id);
      values[i] =
          c.erase ? std::string() : datagen::ValueBytes(spec, c.id, &touch);
      changes[i] = {c.id.table, keys[i], c.erase, values[i]};
    }
  }
};

// Whether the pass may end: every reader made its reads, blocks were
// applied for kWritingMinSeconds, and a store that merges ended a merge.
bool Enough(const WritingSpec& spec, const WritingShared& sh, double seconds) {
  return sh.readers_at_quota.load() >= spec.threads && sh.done.load() > 0 &&
         seconds >= kWritingMinSeconds &&
         (!spec.store->Merges() || !spec.store->MergeWindows().empty());
}

struct WriterTally {
  std::vector<uint64_t> block_ns;
  uint64_t start_ns = 0, end_ns = 0;
  bool cap_hit = false;
  Status error;
};

void WriteLoop(const WritingSpec& spec, WritingShared* sh,
               WritingVersions* versions, WriterTally* w) {
  datagen::BlockStream stream(spec.spec);
  stream.SkipTo(spec.spec.stream.blocks);
  datagen::Block block;
  BlockChanges bytes;
  StoreWriter& writer = spec.store->writer();
  sh->start.arrive_and_wait();
  w->start_ns = NowNs();
  uint64_t last_checkpoint = w->start_ns;
  const auto seconds = [&] {
    return static_cast<double>(NowNs() - w->start_ns) / 1e9;
  };
  while (!sh->reader_failed.load()) {
    if (seconds() >= spec.cap_seconds) {
      w->cap_hit = true;
      break;
    }
    if (Enough(spec, *sh, seconds())) break;
    const uint32_t n = sh->done.load();
    if (spec.block_rate > 0 &&
        seconds() < static_cast<double>(n) / spec.block_rate) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    stream.Next(&block);
    bytes.Make(spec.spec, block);
    sh->begun.store(n + 1, std::memory_order_release);
    const uint64_t t0 = NowNs();
    w->error = writer.ApplyBlock(bytes.changes);
    const uint64_t t1 = NowNs();
    if (!w->error.ok()) break;
    w->block_ns.push_back(t1 - t0);
    for (const KeyChange& c : bytes.changes) versions->Record(c, n + 1);
    sh->done.store(n + 1, std::memory_order_release);
    // Durable once a second, as age checkpoints.
    if (t1 - last_checkpoint >= 1'000'000'000ULL) {
      auto durable = writer.Checkpoint();
      if (!durable.ok()) {
        w->error = durable.status();
        break;
      }
      last_checkpoint = t1;
    }
  }
  w->end_ns = NowNs();
  sh->stop = true;
}

}  // namespace

Result<nlohmann::json> RunWritingPass(const WritingSpec& spec) {
  WritingShared sh(spec.threads);
  WritingVersions versions(*spec.plan, spec.threads, spec.reads_per_thread);
  const BackgroundWork before = spec.store->Background();
  WriterTally w;
  sh.origin_ns = NowNs();
  std::vector<std::thread> readers;
  for (int t = 0; t < spec.threads; ++t) {
    readers.emplace_back(ReadLoop, std::cref(spec), &sh, t);
  }
  std::thread writer(WriteLoop, std::cref(spec), &sh, &versions, &w);
  writer.join();
  for (auto& r : readers) r.join();
  for (const ReaderTally& t : sh.tallies) {
    if (!t.error.ok()) return t.error.WithContext("writing pass read");
  }
  if (!w.error.ok()) return w.error.WithContext("writing pass block");

  WritingFigures f;
  f.cap_hit = w.cap_hit;
  f.block_ns = std::move(w.block_ns);
  f.writing_seconds = static_cast<double>(w.end_ns - w.start_ns) / 1e9;
  uint64_t first = UINT64_MAX, last = 0;
  for (int t = 0; t < spec.threads; ++t) {
    const ReaderTally& tally = sh.tallies[static_cast<size_t>(t)];
    f.hist.Merge(tally.hist);
    f.reads += tally.reads;
    f.found += tally.found;
    first = std::min(first, tally.start_ns);
    last = std::max(last, tally.end_ns);
    f.samples.insert(f.samples.end(), tally.samples.begin(),
                     tally.samples.end());
    versions.Check(t, tally.answers, *spec.sampler, spec.first_index,
                   spec.corrupt_expected, &f.checks, &f.wrong, &f.first_wrong);
  }
  f.wall_seconds = last > first ? static_cast<double>(last - first) / 1e9 : 0;
  f.first_read_s = static_cast<double>(first - sh.origin_ns) / 1e9;
  const double offset =
      static_cast<double>(sh.origin_ns - spec.store_open_ns) / 1e9;
  for (MergeWindow m : spec.store->MergeWindows()) {
    m.start_s -= offset;
    m.end_s -= offset;
    f.windows.push_back(m);
  }
  const BackgroundWork after = spec.store->Background();
  if (after.known) {
    f.background = true;
    f.compactions = after.compactions - before.compactions;
    f.compaction_bytes =
        after.compaction_bytes_written - before.compaction_bytes_written;
  }
  f.merges = spec.store->Merges();
  for (const auto& [k, v] : spec.store->writer().Upkeep()) {
    if (k == "merge_mb_per_s")
      f.merge_mb_per_s = std::strtod(v.c_str(), nullptr);
  }
  f.block_rate = spec.block_rate;
  if (f.wrong > 0) {
    return Status::Corruption(
        "writing pass: " + std::to_string(f.wrong) + " of " +
        std::to_string(f.checks) +
        " sampled reads were wrong; the first: " + f.first_wrong);
  }
  return WritingEntry(f);
}

}  // namespace flatbench::bench
