// The arena's command-line contract: checked reads by default, the read
// variants, kernel advice in info, and imports that leave nothing behind.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "arena/backend.h"
#include "arena/delta.h"
#include "arena/reader.h"
#include "common/hex.h"
#include "datagen/keys.h"
#include "test/arena/test_util.h"
#include "test/doc_table.h"
#include "test/run_command.h"

using flatbench::testing::Count;
using flatbench::testing::Lines;
using flatbench::testing::ReadAll;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
using flatbench::testing::WriteAll;

namespace {

// A small arena-only dataset.
std::string MakeDataset(const TempDir& tmp) {
  const std::string dir = tmp / "ds";
  auto r = RunFlatbench(
      "gen --scale custom --accounts 2000 --slots-per-account 2 --backends "
      "arena --quiet --dir " +
      dir);
  REQUIRE(r.exit_code == 0);
  return dir;
}

// The file offset of the block holding `key` in `path`.
uint64_t BlockOffsetOf(const std::string& path, const std::string& key) {
  using namespace flatbench::arena;
  auto reader = Reader::Open(path);
  REQUIRE(reader.ok());
  const int shard = static_cast<unsigned char>(key[0]);
  uint32_t block = 0;
  REQUIRE(reader.value()->SeekBlock(shard, key, nullptr, &block).ok());
  REQUIRE(block != kNoBlock);
  return reader.value()->BlockOffset(shard, block);
}

// Flips the last stored byte of the block holding `key` in `path`.
void CorruptBlockOf(const std::string& path, const std::string& key) {
  const uint64_t offset = BlockOffsetOf(path, key);
  std::string bytes = ReadAll(path);
  const uint16_t stored_len =
      flatbench::arena::LoadU16(bytes.data() + offset + 12);
  bytes[offset + stored_len - 1] ^= 0x01;
  WriteAll(path, bytes);
}

}  // namespace

TEST_CASE("a zstd block in an uncompressed arena is exit 65 everywhere") {
  using namespace flatbench::datagen;
  TempDir tmp;
  // About 60 accounts a shard: two blocks each. The rewritten block must
  // not be its shard's last, whose slot may end before 4 KiB.
  const std::string dir = tmp / "ds";
  REQUIRE(RunFlatbench("gen --scale custom --accounts 15000 "
                       "--slots-per-account 1 --backends arena --quiet --dir " +
                       dir)
              .exit_code == 0);
  const std::string file = dir + "/arena/account.arena";
  std::string key;
  uint64_t offset = 0;
  {
    using flatbench::arena::Reader;
    auto reader = Reader::Open(file);
    REQUIRE(reader.ok());
    for (uint64_t counter = 0; key.empty(); ++counter) {
      REQUIRE(counter < 1000);
      const auto k = MakeAccountKey(counter);
      const std::string raw(View(k));
      const int shard = static_cast<unsigned char>(raw[0]);
      uint32_t block = 0;
      REQUIRE(reader.value()->SeekBlock(shard, raw, nullptr, &block).ok());
      if (block + 1 >= reader.value()->BlockCount(shard)) continue;
      key = flatbench::ToHex(raw);
      offset = reader.value()->BlockOffset(shard, block);
    }
  }
  std::string bytes = ReadAll(file);
  flatbench::arena::testing::RewriteAsZstdBlock(&bytes, offset);
  WriteAll(file, bytes);
  const std::string why =
      "compressed block in a file whose flags do not allow compression at "
      "offset " +
      std::to_string(offset);

  for (const char* backend :
       {"arena", "arena+pread", "arena+direct", "arena+cache"}) {
    for (const char* verify : {"", "--no-verify "}) {
      CAPTURE(backend, verify);
      auto r = RunFlatbench("get " + std::string(verify) + "--dir " + dir +
                            " --backend " + backend + " --key " + key);
      CHECK(r.exit_code == 65);
      CHECK(r.out.empty());
      CHECK(Lines(r.err) == 1);
      CHECK(Count(r.err, file) == 1);
      CHECK(r.err.find(why) != std::string::npos);
    }
  }
  auto r = RunFlatbench("get --file " + file + " --key " + key);
  CHECK(r.exit_code == 65);
  CHECK(r.out.empty());
  CHECK(Lines(r.err) == 1);
  CHECK(r.err.find(why) != std::string::npos);
  r = RunFlatbench("verify --file " + file);
  CHECK(r.exit_code == 65);
  CHECK(Lines(r.err) == 1);
  CHECK(Count(r.err, file) == 1);
  CHECK(r.err.find(why) != std::string::npos);
  r = RunFlatbench("verify --quiet --dir " + dir);
  CHECK(r.exit_code == 65);
  CHECK(Lines(r.err) == 1);
  CHECK(r.err.find(why) != std::string::npos);
}

TEST_CASE("get checks the block checksum unless --no-verify") {
  using namespace flatbench::datagen;
  TempDir tmp;
  const std::string dir = MakeDataset(tmp);
  const std::string file = dir + "/arena/account.arena";
  const std::string key = flatbench::ToHex(View(MakeAccountKey(17)));
  std::string raw_key;
  REQUIRE(flatbench::FromHex(key, &raw_key));
  CorruptBlockOf(file, raw_key);

  for (const char* backend :
       {"arena", "arena+pread", "arena+direct", "arena+cache"}) {
    CAPTURE(backend);
    auto r = RunFlatbench("get --dir " + dir + " --backend " + backend +
                          " --key " + key);
    CHECK(r.exit_code == 65);
    CHECK(Lines(r.err) == 1);
    CHECK(Count(r.err, file) == 1);
    CHECK(r.err.find("account") != std::string::npos);
    CHECK(r.err.find(key) != std::string::npos);
    CHECK(r.err.find("block checksum mismatch") != std::string::npos);
    r = RunFlatbench("get --no-verify --dir " + dir + " --backend " + backend +
                     " --key " + key);
    CHECK(r.exit_code == 0);
  }
  auto r = RunFlatbench("get --file " + file + " --key " + key);
  CHECK(r.exit_code == 65);
  CHECK(Lines(r.err) == 1);
  CHECK(Count(r.err, file) == 1);
  CHECK(r.err.find(key) != std::string::npos);
  CHECK(RunFlatbench("get --no-verify --file " + file + " --key " + key)
            .exit_code == 0);
  CHECK(RunFlatbench("get --help").out.find("--no-verify") !=
        std::string::npos);
}

TEST_CASE("the read variants open the arena's files and agree") {
  using namespace flatbench::datagen;
  TempDir tmp;
  const std::string dir = MakeDataset(tmp);
  for (uint64_t counter : {0u, 17u, 1999u}) {
    const std::string key = flatbench::ToHex(View(MakeAccountKey(counter)));
    const std::string value = flatbench::ToHex(
        MakeAccountValue(flatbench::dataset::kDefaultSeed, counter).view());
    for (const char* backend :
         {"arena", "arena+pread", "arena+direct", "arena+cache"}) {
      CAPTURE(counter, backend);
      auto r = RunFlatbench("get --dir " + dir + " --backend " + backend +
                            " --key " + key);
      CHECK(r.exit_code == 0);
      CHECK(r.out == value + "\n");
    }
  }
  // A variant has no files of its own to build.
  auto r = RunFlatbench(
      "gen --scale custom --accounts 2000 "
      "--slots-per-account 2 --backends arena+pread "
      "--quiet --dir " +
      (tmp / "other"));
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("arena+pread") != std::string::npos);
}

TEST_CASE("info reports the kernel advice; old versions are refused") {
  TempDir tmp;
  const std::string dir = MakeDataset(tmp);
  const std::string file = dir + "/arena/storage.arena";
  auto r = RunFlatbench("info --file " + file);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("kernel advice  ok") != std::string::npos);
  r = RunFlatbench("info --dir " + dir);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("advice_warnings") != std::string::npos);

  std::string bytes = ReadAll(file);
  bytes[8] = 1;  // version 1, rejected before the header checksum
  WriteAll(file, bytes);
  r = RunFlatbench("info --file " + file);
  CHECK(r.exit_code == 65);
  CHECK(Lines(r.err) == 1);
  CHECK(Count(r.err, file) == 1);
  CHECK(r.err.find("unsupported version 1") != std::string::npos);
}

namespace {

// Starts `flatbench import --in FIFO --out OUT`, feeds it one valid line
// and waits until its temporary file exists. Returns the child's pid.
pid_t StartImportOnPipe(const std::string& fifo, const std::string& out,
                        int* write_fd) {
  const pid_t pid = flatbench::testing::SpawnFlatbench(
      {"import", "--in", fifo, "--out", out});
  REQUIRE(pid > 0);
  *write_fd = ::open(fifo.c_str(), O_WRONLY);
  REQUIRE(*write_fd >= 0);
  const std::string line =
      "0102030405060708090a0b0c0d0e0f1011121314\tdeadbeef\n";
  REQUIRE(::write(*write_fd, line.data(), line.size()) ==
          static_cast<ssize_t>(line.size()));
  for (int i = 0; i < 1000 && !std::filesystem::exists(out + ".tmp"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(std::filesystem::exists(out + ".tmp"));
  return pid;
}

}  // namespace

TEST_CASE("an interrupted import leaves no temporary file") {
  TempDir tmp;
  const std::string fifo = tmp / "fifo";
  const std::string out = tmp / "out.arena";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  int fd = -1;
  SECTION("SIGTERM: removed on the way out") {
    const pid_t pid = StartImportOnPipe(fifo, out, &fd);
    REQUIRE(::kill(pid, SIGTERM) == 0);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    ::close(fd);
    CHECK(WIFSIGNALED(status));
    CHECK_FALSE(std::filesystem::exists(out + ".tmp"));
    CHECK_FALSE(std::filesystem::exists(out));
  }
  SECTION("SIGKILL: removed by the next import") {
    const pid_t pid = StartImportOnPipe(fifo, out, &fd);
    REQUIRE(::kill(pid, SIGKILL) == 0);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    ::close(fd);
    REQUIRE(std::filesystem::exists(out + ".tmp"));
    WriteAll(tmp / "bad.tsv", "no tab here\n");
    auto r = RunFlatbench("import --in " + (tmp / "bad.tsv") + " --out " + out);
    CHECK(r.exit_code == 65);
    CHECK(Lines(r.err) == 1);
    CHECK_FALSE(std::filesystem::exists(out + ".tmp"));
  }
}

TEST_CASE("merge: a delta into a bare store; a dataset's store, bad inputs") {
  TempDir tmp;
  const std::string ds = MakeDataset(tmp);
  // A bare store: the dataset's arena folder, copied out of the dataset.
  const std::string store = tmp / "store";
  std::filesystem::copy(ds + "/arena", store);
  flatbench::arena::Delta delta;
  std::string key(20, 'k');
  delta.ops[0].push_back({key, false, "value"});
  const std::string path = tmp / "d.delta";
  REQUIRE(flatbench::arena::WriteDelta(delta, path).ok());

  auto r = RunFlatbench("merge --jobs 2 --store " + store + " --delta " + path);
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("6000 pairs -> 6001 (0 replaced, 1 added") !=
        std::string::npos);
  auto got = RunFlatbench("get --file " + store + "/account.arena --key " +
                          flatbench::ToHex(key));
  CHECK(got.exit_code == 0);
  CHECK(got.out.find(flatbench::ToHex("value")) != std::string::npos);

  // A dataset's own arena is age's to merge: its identity moves with it.
  auto own = RunFlatbench("merge --store " + ds + "/arena --delta " + path);
  CHECK(own.exit_code == 64);
  CHECK(own.err.find("is a dataset's store") != std::string::npos);
  // Not a delta: a missing file, a device, a damaged file.
  CHECK(RunFlatbench("merge --store " + store + " --delta " + (tmp / "none"))
            .exit_code == 66);
  auto dev = RunFlatbench("merge --store " + store + " --delta /dev/null");
  CHECK(dev.exit_code == 65);
  CHECK(dev.err.find("/dev/null") != std::string::npos);
  std::string bytes = ReadAll(path);
  bytes[bytes.size() / 2] ^= 0x10;
  WriteAll(path, bytes);
  const std::string before = ReadAll(store + "/account.arena");
  auto damaged = RunFlatbench("merge --store " + store + " --delta " + path);
  CHECK(damaged.exit_code == 65);
  CHECK(damaged.err.find(path) != std::string::npos);
  CHECK(ReadAll(store + "/account.arena") == before);
}
