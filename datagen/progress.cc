#include "datagen/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace flatbench::datagen {

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

GroupProgress::GroupProgress(std::string what, std::string unit, uint64_t total,
                             bool enabled)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      total_(total),
      enabled_(enabled),
      start_(Clock::now()),
      last_(start_) {}

void GroupProgress::Update(const std::string& task, uint64_t done,
                           uint64_t total) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  auto it = std::find_if(tasks_.begin(), tasks_.end(),
                         [&](const Task& t) { return t.name == task; });
  if (it == tasks_.end()) it = tasks_.insert(tasks_.end(), Task{task});
  it->done = done;
  it->total = total;
  const auto now = Clock::now();
  if (now - last_ < std::chrono::seconds(1)) return;
  last_ = now;
  PrintLocked(now);
}

void GroupProgress::Finish(const std::string& task, uint64_t done) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  std::erase_if(tasks_, [&](const Task& t) { return t.name == task; });
  finished_ += done;
}

void GroupProgress::PrintLocked(Clock::time_point now) {
  uint64_t done = finished_;
  std::string each;
  for (const Task& t : tasks_) {
    done += t.done;
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.1f%%", each.empty() ? "" : ", ",
                  t.name.c_str(), t.total ? 100.0 * t.done / t.total : 0.0);
    each += buf;
  }
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? done / secs : 0;
  const double eta = rate > 0 && total_ > done ? (total_ - done) / rate : 0;
  std::fprintf(stderr, "%s: %5.1f%% %llu/%llu %s [%s], %.0f %s/s, ETA %.0fs\n",
               what_.c_str(), total_ ? 100.0 * done / total_ : 0.0,
               static_cast<unsigned long long>(done),
               static_cast<unsigned long long>(total_), unit_.c_str(),
               each.c_str(), rate, unit_.c_str(), eta);
}

}  // namespace flatbench::datagen
