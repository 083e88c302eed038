// verify --dir as a full check, LMDB truncation, and gen's clean failures,
// through the flatbench binary.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "common/hex.h"
#include "datagen/keys.h"
#include "test/doc_table.h"
#include "test/run_command.h"

using flatbench::testing::Count;
using flatbench::testing::ReadAll;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
namespace fs = std::filesystem;
namespace dg = flatbench::datagen;

using flatbench::testing::Built;

namespace {

constexpr uint64_t kAccounts = 3000;
constexpr uint32_t kSlots = 3;

std::string GenSmall(const std::string& dir, const std::string& backends) {
  auto r = RunFlatbench("gen --scale custom --accounts " +
                        std::to_string(kAccounts) + " --slots-per-account " +
                        std::to_string(kSlots) + " --quiet --backends " +
                        backends + " --dir " + dir);
  REQUIRE(r.exit_code == 0);
  return dir;
}

// Flips the middle byte of the single occurrence of `needle` among the
// files of `dir` with extension `ext`; returns the file it changed.
std::string FlipInside(const std::string& dir, const std::string& ext,
                       std::string_view needle) {
  std::string hit;
  size_t offset = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ext) continue;
    std::string bytes = ReadAll(e.path().string());
    size_t p = bytes.find(needle);
    if (p == std::string::npos) continue;
    REQUIRE(hit.empty());
    REQUIRE(bytes.find(needle, p + 1) == std::string::npos);
    hit = e.path().string();
    offset = p + needle.size() / 2;
  }
  REQUIRE_FALSE(hit.empty());
  std::fstream f(hit, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x20));
  REQUIRE(f);
  return hit;
}

// Starts flatbench with `args` (no shell), output to files in `tmp`.
pid_t Spawn(const TempDir& tmp, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {flatbench::testing::FlatbenchBin()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::string out = tmp / "spawn.out", err = tmp / "spawn.err";
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  int rc =
      posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  return pid;
}

// Waits (up to 60 s) for `path` to appear; false if the child exits first.
bool WaitFor(const std::string& path, pid_t pid) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(path)) return true;
    int status;
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

int Reap(pid_t pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("verify --dir walks every pair of every backend; --quick samples") {
  TempDir tmp(TempDir::Where::kMemory);
  // Every backend of this build (an arena-only build has one).
  std::vector<std::string> names;
  std::string csv;
  for (std::string name : {"arena", "rocksdb", "lmdb"}) {
    if (!Built(name)) continue;
    names.push_back(name);
    csv += (csv.empty() ? "" : ",") + name;
  }
  std::string dir = GenSmall(tmp / "ds", csv);
  auto r = RunFlatbench("verify --quiet --dir " + dir);
  CHECK(r.exit_code == 0);
  for (const std::string& name : names) {
    CAPTURE(name);
    CHECK(r.out.find(name + " ") != std::string::npos);
  }
  CHECK(Count(r.out,
              "3000 account + 9000 storage pairs equal the "
              "generator's stream in order and by lookup") == names.size());
  CHECK((r.out.find("VerifyChecksum ok") != std::string::npos) ==
        Built("rocksdb"));
  CHECK(r.err.empty());

  r = RunFlatbench("verify --quick --samples 100 --dir " + dir);
  CHECK(r.exit_code == 0);
  CHECK(Count(r.out, "ok (quick)") == names.size());
  CHECK(r.out.find("in order") == std::string::npos);

  if (!Built("lmdb")) return;
  r = RunFlatbench("verify --dir " + dir + " --backends lmdb");
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("verify lmdb: done") != std::string::npos);  // Progress.
}

TEST_CASE("verify --dir catches a flipped byte in a RocksDB data block",
          "[rocksdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  std::string dir = GenSmall(tmp / "ds", "rocksdb");
  // Account blocks are stored uncompressed: a value's bytes are in the file
  // as they are, inside a data block.
  auto value =
      dg::MakeAccountValue(flatbench::dataset::kDefaultSeed, kAccounts / 2);
  FlipInside(dir + "/rocksdb", ".sst", value.view());
  auto r = RunFlatbench("verify --quiet --dir " + dir);
  CHECK(r.exit_code == 65);
  CHECK(r.err.find("verify rocksdb") != std::string::npos);
  CHECK(r.err.find("checksum mismatch") != std::string::npos);
  CHECK(Count(r.err, "\n") == 1);
}

TEST_CASE("verify --dir catches a flipped byte in an LMDB leaf value",
          "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  std::string dir = GenSmall(tmp / "ds", "lmdb");
  auto value =
      dg::MakeSlotValue(flatbench::dataset::kDefaultSeed, kAccounts / 3, 1);
  std::string expected = flatbench::ToHex(dg::View(value));
  FlipInside(dir + "/lmdb", ".mdb", dg::View(value));
  auto r = RunFlatbench("verify --quiet --dir " + dir);
  CHECK(r.exit_code == 65);
  INFO(r.err);
  CHECK(r.err.find("verify lmdb: lmdb storage key ") != std::string::npos);
  CHECK(r.err.find(", expected " + expected) != std::string::npos);
  CHECK(Count(r.err, "\n") == 1);
}

TEST_CASE("a damaged LMDB page is exit 0 or 65 from verify, never a signal",
          "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  std::string dir = GenSmall(tmp / "ds", "lmdb");
  const std::string mdb = dir + "/lmdb/data.mdb";
  const std::string original = ReadAll(mdb);
  const uint64_t pages = original.size() / 4096;
  // Page header fields (flags, bounds) and the node offsets after them,
  // in pages across the file: LMDB trusts all of them.
  const uint64_t page = GENERATE_COPY(
      values<uint64_t>({2, 3, pages / 4, pages / 2, pages - 2, pages - 1}));
  const uint64_t at = GENERATE(10, 12, 14, 17, 19);
  CAPTURE(page, at);
  std::string damaged = original;
  damaged[page * 4096 + at] ^= 0x40;
  { std::ofstream(mdb, std::ios::binary) << damaged; }
  auto r = RunFlatbench("verify --quiet --dir " + dir);
  INFO(r.err);
  CHECK((r.exit_code == 0 || r.exit_code == 65));
  if (r.exit_code == 65) CHECK(r.err.find("verify lmdb") != std::string::npos);
}

TEST_CASE("a truncated data.mdb makes verify and get exit 65, never a signal",
          "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  std::string dir = GenSmall(tmp / "ds", "lmdb");
  const std::string mdb = dir + "/lmdb/data.mdb";
  const std::string original = ReadAll(mdb);
  const uint64_t size = original.size();
  const uint64_t cut = GENERATE_COPY(values<uint64_t>(
      {0, 100, 4096, 4096 + 100, 8192, size / 2, size - 4096, size - 1}));
  CAPTURE(cut);
  { std::ofstream(mdb, std::ios::binary) << original.substr(0, cut); }
  std::string key = flatbench::ToHex(dg::View(dg::MakeAccountKey(17)));

  auto r = RunFlatbench("verify --quiet --dir " + dir);
  CHECK(r.exit_code == 65);
  CHECK(r.err.find(mdb + ": " + std::to_string(cut) + " bytes") !=
        std::string::npos);
  CHECK(Count(r.err, dir) == 1);  // The path once, not doubled.
  r = RunFlatbench("get --dir " + dir + " --backend lmdb --key " + key);
  CHECK(r.exit_code == 65);
  CHECK(r.err.find("expected at least") != std::string::npos);
}

TEST_CASE("an interrupted gen removes its partial backend", "[lmdb]") {
  TempDir tmp;
  const std::string dir = tmp / "ds";
  // Smoke-sized, so that the build is still running when the signal lands.
  const std::vector<std::string> args = {
      "gen",        "--scale",   "custom",
      "--accounts", "100000",    "--slots-per-account",
      "5",          "--quiet",   "--dir",
      dir,          "--backends"};
  std::vector<std::string> arena_only = args;
  arena_only.push_back("arena");
  REQUIRE(Reap(Spawn(tmp, arena_only)) == 0);
  std::vector<std::string> lmdb = args;
  lmdb.push_back("lmdb");

  SECTION("SIGINT: removed on the way out, exit 130") {
    pid_t pid = Spawn(tmp, lmdb);
    REQUIRE(WaitFor(dir + "/lmdb/data.mdb", pid));
    kill(pid, SIGINT);
    CHECK(Reap(pid) == 130);
    CHECK(ReadAll(tmp / "spawn.err").find("removed the partial") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(dir + "/lmdb"));
  }
  SECTION("SIGKILL: removed by the next gen, the complete backend kept") {
    pid_t pid = Spawn(tmp, lmdb);
    REQUIRE(WaitFor(dir + "/lmdb/data.mdb", pid));
    kill(pid, SIGKILL);
    CHECK(Reap(pid) == 128 + SIGKILL);
    CHECK(fs::exists(dir + "/lmdb"));
    CHECK(Reap(Spawn(tmp, arena_only)) == 0);
    std::string err = ReadAll(tmp / "spawn.err");
    CHECK(err.find("left by an interrupted build") != std::string::npos);
    CHECK(err.find("gen arena: already complete") != std::string::npos);
    CHECK_FALSE(fs::exists(dir + "/lmdb"));
  }
  CHECK_FALSE(fs::exists(dir + "/lmdb.complete"));
  CHECK(fs::exists(dir + "/arena.complete"));
  CHECK(RunFlatbench("verify --quick --dir " + dir).exit_code == 0);
}

TEST_CASE("an unreadable dataset directory is reported as permission denied") {
  TempDir tmp;
  std::string dir = GenSmall(tmp / "ds", "arena");
  std::string as_other;
  if (geteuid() == 0) {
    // Root reads anything: run as nobody, who may not enter the 0700
    // temporary directory.
    as_other = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  } else {
    fs::permissions(dir, fs::perms::none);
  }
  std::string cmd =
      as_other + flatbench::testing::FlatbenchBin() + " verify --dir " + dir;
  TempDir out;
  int status = std::system((cmd + " 2>" + (out / "err")).c_str());
  std::string err = ReadAll(out / "err");
  fs::permissions(dir, fs::perms::owner_all);
  CHECK(WEXITSTATUS(status) == 74);
  CHECK(err.find(dir + ": permission denied") != std::string::npos);
  CHECK(err.find("no such") == std::string::npos);
  CHECK(Count(err, dir) == 1);
}
