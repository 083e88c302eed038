#pragma once
// A temporary directory removed with everything in it at scope exit, and
// whole-file reads and writes for the files a test puts there.

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace flatbench::testing {

class TempDir {
 public:
  // Where: under $TMPDIR (or /tmp), or in memory (/dev/shm when there is
  // one). The file store makes its files durable with one syncfs, which
  // writes back every dirty page of the filesystem, other processes'
  // included, so beside a build on the same disk its tests waited on the
  // build's writes (RESEARCH.md section 12). They check content, not
  // durability, and keep their stores in memory, where syncfs has nothing
  // to write. So does every test that reads nothing cold (no eviction, no
  // O_DIRECT, no device cell): on disk, each store's fsyncs (initdb's,
  // LMDB's, SQLite's, RocksDB's) and removing its files at the end waited
  // on the other writers of the disk for longer than the test's own work.
  enum class Where { kDisk, kMemory };

  explicit TempDir(Where where = Where::kDisk) {
    const char* env = std::getenv("TMPDIR");
    std::string base = env != nullptr ? env : "/tmp";
    std::error_code ec;
    if (where == Where::kMemory &&
        std::filesystem::is_directory("/dev/shm", ec) &&
        ::access("/dev/shm", W_OK) == 0) {
      base = "/dev/shm";
    }
    std::string tmpl = base + "/flatbench-test-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed for " + tmpl);
    }
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const {
    return path_ + "/" + name;
  }
  std::string File(const std::string& name) const { return *this / name; }

 private:
  std::string path_;
};

// The bytes of `path`; empty when it cannot be read. Read in blocks, not
// through a character iterator: at -O0 under ThreadSanitizer that cost
// most of a test that compares whole files (builder_jobs_test.cc).
inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string out;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out.append(buf, static_cast<size_t>(in.gcount()));
  }
  return out;
}

// Replaces the contents of `path` with `data`.
inline void WriteAll(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace flatbench::testing
