#include "datagen/buckets.h"

#include <algorithm>
#include <functional>
#include <thread>

#include "datagen/keys.h"

namespace flatbench::datagen {
namespace {

void BucketRange(uint64_t begin, uint64_t end, Buckets* out,
                 const std::function<void(uint64_t)>& tick) {
  out->assign(kBuckets, {});
  const uint64_t n = end - begin;
  for (auto& b : *out) b.reserve(n / kBuckets + n / 2048 + 16);
  for (uint64_t c = begin; c < end; ++c) {
    (*out)[MakeAccountKey(c)[0]].push_back(static_cast<uint32_t>(c));
    if (tick && (c & 0xffff) == 0) tick(c - begin);
  }
}

}  // namespace

Buckets BucketCounters(uint64_t accounts, unsigned jobs,
                       const ProgressFn& progress, uint64_t total) {
  const uint64_t chunks = std::clamp<uint64_t>(jobs, 1, 1 + accounts / 65536);
  std::vector<Buckets> parts(chunks);
  auto tick = [&](uint64_t done) {
    if (progress) progress(done * chunks, total);
  };
  {
    std::vector<std::jthread> threads;
    for (uint64_t i = 1; i < chunks; ++i) {
      threads.emplace_back([&, i] {
        BucketRange(accounts * i / chunks, accounts * (i + 1) / chunks,
                    &parts[i], nullptr);
      });
    }
    BucketRange(0, accounts / chunks, &parts[0], tick);
  }
  if (chunks == 1) return std::move(parts[0]);
  Buckets buckets(kBuckets);
  for (int b = 0; b < kBuckets; ++b) {
    size_t n = 0;
    for (const Buckets& p : parts) n += p[b].size();
    buckets[b].reserve(n);
    for (Buckets& p : parts) {
      buckets[b].insert(buckets[b].end(), p[b].begin(), p[b].end());
      std::vector<uint32_t>().swap(p[b]);
    }
  }
  return buckets;
}

}  // namespace flatbench::datagen
