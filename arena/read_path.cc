#include "arena/read_path.h"

#include <array>
#include <cassert>

#include "arena/block_source.h"
#include "arena/cache_source.h"
#include "arena/mmap_source.h"
#include "arena/pread_source.h"

namespace flatbench::arena {
namespace {

constexpr std::array<ReadPathEntry, 4> kReadPaths = {{
    {ReadPath::kMmap, "mmap", &MmapSource::Open},
    {ReadPath::kPread, "pread", &PreadSource::Open},
    {ReadPath::kDirect, "direct", &PreadSource::OpenDirect},
    {ReadPath::kCache, "cache", &CacheSource::Open},
}};

constexpr bool InEnumOrder() {
  for (size_t i = 0; i < kReadPaths.size(); ++i) {
    if (kReadPaths[i].path != static_cast<ReadPath>(i)) return false;
  }
  return true;
}
static_assert(InEnumOrder(), "kReadPaths lists the paths in ReadPath order");

}  // namespace

std::span<const ReadPathEntry> ReadPaths() { return kReadPaths; }

const ReadPathEntry& ReadPathOf(ReadPath path) {
  const auto i = static_cast<size_t>(path);
  assert(i < kReadPaths.size());
  return kReadPaths[i];
}

const char* ReadPathName(ReadPath path) {
  const auto i = static_cast<size_t>(path);
  return i < kReadPaths.size() ? kReadPaths[i].name : "mmap";
}

}  // namespace flatbench::arena
