#pragma once
// What the batch tests share: a model whose keys fill a few shards, one of
// them with tied prefixes, and dropping a file from the page cache.

#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "test/arena/test_util.h"

namespace flatbench::arena::testing {

// Keys in four shards; shard 90's keys all share their first 8 bytes, so
// its blocks start with one prefix and a lookup there searches them (Get's
// tied-prefix path, which a batch leaves to Get).
inline Model BatchModel() {
  Rng rng(11);
  Model m;
  for (int shard : {0, 17, 200}) {
    for (int i = 0; i < 400; ++i) {
      std::string k = rng.Bytes(20);
      k[0] = static_cast<char>(shard);
      m[k] = rng.Bytes(rng.Below(90));
    }
  }
  const std::string tied = std::string(1, '\x5a') + rng.Bytes(7);
  for (int i = 0; i < 300; ++i) m[tied + rng.Bytes(12)] = rng.Bytes(40);
  return m;
}

// Drops the file's pages from the page cache where the file system allows
// (not tmpfs), so batches read blocks rather than find them resident.
inline void Evict(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

}  // namespace flatbench::arena::testing
