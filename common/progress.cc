#include "common/progress.h"

#include <unistd.h>

#include <cstdio>

namespace flatbench {

Progress::Progress(std::string what, std::string unit, bool enabled)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      enabled_(enabled),
      start_(Clock::now()),
      last_(start_) {}

void Progress::Update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = Clock::now();
  if (now - last_ < std::chrono::seconds(1)) return;
  last_ = now;
  double secs = std::chrono::duration<double>(now - start_).count();
  double rate = secs > 0 ? done / secs : 0;
  double eta = rate > 0 && total > done ? (total - done) / rate : 0;
  double pct = total ? 100.0 * done / total : 0;
  std::fprintf(stderr, "%s: %5.1f%% %llu/%llu %s, %.0f %s/s, ETA %.0fs\n",
               what_.c_str(), pct, static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total), unit_.c_str(), rate,
               unit_.c_str(), eta);
}

double Progress::Finish(uint64_t done) {
  double secs = std::chrono::duration<double>(Clock::now() - start_).count();
  if (enabled_) {
    std::fprintf(stderr, "%s: done, %llu %s in %.1fs (%.0f %s/s)\n",
                 what_.c_str(), static_cast<unsigned long long>(done),
                 unit_.c_str(), secs, secs > 0 ? done / secs : 0.0,
                 unit_.c_str());
  }
  return secs;
}

}  // namespace flatbench
