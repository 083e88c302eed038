#include "common/results_schema.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <vector>

#include "common/results_ops.h"
#include "common/results_writing.h"

namespace flatbench::results {
namespace {

template <size_t N>
bool OneOf(const std::string_view (&set)[N], std::string_view s) {
  return std::find(std::begin(set), std::end(set), s) != std::end(set);
}

// "prefix<digits>" -> the number; at most 6 digits, so no overflow.
bool NumberAfter(std::string_view part, std::string_view prefix, int* out) {
  if (part.substr(0, prefix.size()) != prefix) return false;
  std::string_view digits = part.substr(prefix.size());
  if (digits.empty() || digits.size() > 6) return false;
  auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), *out);
  return ec == std::errc() && end == digits.data() + digits.size();
}

bool BackendNameOk(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '+' || c == '-';
  });
}

}  // namespace

bool IsTable(std::string_view s) { return OneOf(kTables, s); }
bool IsKind(std::string_view s) { return OneOf(kKinds, s); }
bool IsMode(std::string_view s) { return OneOf(kModes, s); }
bool IsReadKind(std::string_view kind) {
  return kind == kKindHit || IsMissKind(kind);
}
bool IsMissKind(std::string_view kind) {
  return kind == kKindMissAbsent || kind == kKindMissLive;
}
bool IsColdMode(std::string_view mode) {
  return mode == kModeCold || mode == kModeColdLazy;
}

std::string FormatCellName(const CellName& c) {
  return c.backend + "/" + c.table + "/" + c.kind + "/" + c.mode +
         "/threads:" + std::to_string(c.threads) +
         "/rep:" + std::to_string(c.rep);
}

bool CellExists(std::string_view table, std::string_view kind) {
  return IsTable(table) && IsKind(kind) &&
         (kind != kKindMissLive || table == kTableStorage) &&
         (kind != kKindStartup || table == kTableAccount);
}

std::optional<CellName> ParseCellName(std::string_view name) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t slash = name.find('/');
    parts.push_back(name.substr(0, slash));
    if (slash == std::string_view::npos) break;
    name.remove_prefix(slash + 1);
  }
  // backend/table/kind/mode, optional decorations, threads:N, rep:R.
  if (parts.size() < 6) return std::nullopt;
  CellName c;
  c.backend = parts[0];
  c.table = parts[1];
  c.kind = parts[2];
  c.mode = parts[3];
  if (!BackendNameOk(c.backend) || !IsTable(c.table) || !IsKind(c.kind) ||
      !IsMode(c.mode)) {
    return std::nullopt;
  }
  if (c.kind == kKindDevice && !IsColdMode(c.mode)) return std::nullopt;
  if (!CellExists(c.table, c.kind)) return std::nullopt;
  if (!NumberAfter(parts[parts.size() - 2], "threads:", &c.threads) ||
      !NumberAfter(parts.back(), "rep:", &c.rep) || c.threads < 1) {
    return std::nullopt;
  }
  if (c.kind == kKindStartup && c.threads != 1) return std::nullopt;
  for (size_t i = 4; i + 2 < parts.size(); ++i) {
    if (parts[i].empty() || parts[i].substr(0, 8) == "threads:" ||
        parts[i].substr(0, 4) == "rep:") {
      return std::nullopt;
    }
  }
  return c;
}

std::string_view TypeName(Type type) {
  switch (type) {
    case Type::kText:
      return "text";
    case Type::kInteger:
      return "integer";
    case Type::kNumber:
      return "number";
    case Type::kBool:
      return "bool";
    case Type::kObject:
      return "object";
    case Type::kProfile:
      return "device profile";
    case Type::kRate:
      return "rate";
    case Type::kNanos:
      return "nanoseconds";
    case Type::kSeconds:
      return "seconds";
    case Type::kCount:
      return "count";
    case Type::kFraction:
      return "fraction";
    case Type::kFlag:
      return "flag";
  }
  return "?";
}

bool CounterExpected(const Counter& counter, std::string_view kind,
                     std::string_view mode) {
  if (counter.name == kBytesReadPerRead.name ||
      counter.name == kDeviceRequestsPerRead.name ||
      counter.name == kCpuNsPerRead.name ||
      counter.name == kHostCpuNsPerRead.name ||
      counter.name == kInterruptedBeforeS.name) {
    return false;
  }
  const uint32_t w = counter.where;
  if (kind == kKindDevice) return (w & kOnDevice) != 0;
  if (kind == kKindWriting) {
    return (w & kOnWriting) != 0 && !WritingCounterOptional(counter);
  }
  if (kind == kKindStartup) {
    if (counter.name == kResidentFractionAfterEviction.name) {
      return IsColdMode(mode);
    }
    return (w & kOnStartup) != 0;
  }
  if (kind == kKindScan && (w & kOnScan)) return true;
  if (kind == kKindBatch && (w & kOnBatch)) {
    return !BatchCounterOptional(counter);
  }
  if (!IsReadKind(kind) && kind != kKindScan && kind != kKindBatch) {
    return false;
  }
  if (w & kOnRead) return true;
  if ((w & kOnCold) && IsColdMode(mode)) return true;
  if ((w & kOnWarm) && mode == kModeWarm) return true;
  // kOnColdHit counters exist only beside measured device cells: optional.
  return false;
}

bool WritingCounterOptional(const Counter& c) {
  for (const Counter* o :
       {&kMerges, &kMergeSeconds, &kMergeMbPerS, &kReadsPerSInMerge,
        &kLatP99NsInMerge, &kReadsPerSOutsideMerge, &kLatP99NsOutsideMerge,
        &kCompactions, &kCompactionBytes}) {
    if (c.name == o->name) return true;
  }
  return false;
}

bool BatchCounterOptional(const Counter& c) {
  return c.name == kCpuNsPerKey.name || c.name == kStorageReadsPerKey.name ||
         c.name == kIoDepthMax.name || c.name == kIoDepthMean.name ||
         c.name == kIoDepthSource.name ||
         c.name == kBatchDeviceReadsPerS.name ||
         c.name == kBatchIoEfficiency.name;
}

std::string BackendKey(std::string_view backend, const BackendContextKey& key) {
  std::string out(kBackendPrefix);
  out.append(backend).append(".").append(key.name);
  return out;
}

std::string LevelCounterName(int level, const BackendCounter& counter) {
  return "L" + std::to_string(level) + "." + std::string(counter.name);
}

std::optional<BackendCounterKey> ParseBackendCounterKey(std::string_view key) {
  BackendCounterKey out;
  if (key.size() > 2 && key[0] == 'L') {
    const size_t dot = key.find('.');
    if (dot == std::string_view::npos || dot < 2 || dot > 3) {
      return std::nullopt;
    }
    int level = 0;
    const char* end = key.data() + dot;
    auto [p, ec] = std::from_chars(key.data() + 1, end, level);
    if (ec != std::errc() || p != end || level < 0) return std::nullopt;
    out.level = level;
    key.remove_prefix(dot + 1);
  }
  for (const BackendCounter& c : kBackendCounters) {
    if (c.name != key) continue;
    if (out.level >= 0 && !c.per_level) return std::nullopt;
    out.counter = &c;
    return out;
  }
  return std::nullopt;
}

std::span<const Counter> AllCounters() {
  static const std::vector<Counter> all = [] {
    std::vector<Counter> v(std::begin(kCounters), std::end(kCounters));
    v.insert(v.end(), std::begin(kOpCounters), std::end(kOpCounters));
    v.insert(v.end(), std::begin(kWritingCounters), std::end(kWritingCounters));
    return v;
  }();
  return all;
}
std::optional<size_t> CounterIndex(std::string_view name) {
  static const std::unordered_map<std::string_view, size_t> index = [] {
    std::unordered_map<std::string_view, size_t> m;
    const std::span<const Counter> all = AllCounters();
    for (size_t i = 0; i < all.size(); ++i) m.emplace(all[i].name, i);
    return m;
  }();
  auto it = index.find(name);
  if (it == index.end()) return std::nullopt;
  return it->second;
}
std::span<const ContextKey> AllContextKeys() { return kContextKeys; }
std::span<const BackendContextKey> AllBackendContextKeys() {
  return kBackendContextKeys;
}

}  // namespace flatbench::results
