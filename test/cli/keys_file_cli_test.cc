// get --keys: a bad line of a keys file is refused naming the file and
// line, quoting at most kEchoChars characters of it with every byte that
// is not printable escaped, and is never held whole however long it is.

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "test/doc_table.h"
#include "test/run_command.h"
#include "test/temp_dir.h"

using flatbench::testing::Count;
using flatbench::testing::FlatbenchBin;
using flatbench::testing::Lines;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
using flatbench::testing::WriteAll;

namespace {

// A dataset of 200 accounts in the arena, made once per process.
const std::string& SmallDataset() {
  // Removed at the process's exit, after every case.
  static TempDir tmp;
  static const std::string dir = [] {
    const std::string d = tmp / "ds";
    REQUIRE(RunFlatbench("gen --scale custom --accounts 200 "
                         "--slots-per-account 1 --backends arena --quiet "
                         "--dir " +
                         d)
                .exit_code == 0);
    return d;
  }();
  return dir;
}

// A keys file of a good key line, then `bytes` bytes of `c` on line 2.
void WriteLongLine(const std::string& path, char c, size_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << std::string(40, 'a') << "\n";
  // Written in pieces: this process stays small (see RunMeasured).
  const std::string piece(1 << 20, c);
  for (size_t left = bytes; left > 0;) {
    const size_t n = std::min(left, piece.size());
    out.write(piece.data(), static_cast<std::streamsize>(n));
    left -= n;
  }
  out << "\n";
}

struct Measured {
  int exit_code = -1;
  std::string err;
  uint64_t max_rss = 0;  // The child's peak resident memory, bytes.
};

// Runs flatbench with `args` in a forked child and measures its peak
// memory. fork, not posix_spawn or system(): a child starts its peak from
// this process's current memory under fork, from its peak under vfork.
Measured RunMeasured(const std::vector<std::string>& args,
                     const std::string& err_path) {
  std::vector<std::string> words = {FlatbenchBin()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = open("/dev/null", O_RDWR);
    if (err < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
        dup2(err, 2) < 0) {
      _exit(127);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  Measured m;
  REQUIRE(pid > 0);
  int status = 0;
  rusage ru{};
  REQUIRE(wait4(pid, &status, 0, &ru) == pid);
  m.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  m.err = flatbench::testing::ReadAll(err_path);
  m.max_rss = static_cast<uint64_t>(ru.ru_maxrss) * 1024;
  return m;
}

}  // namespace

TEST_CASE("get --keys quotes at most 80 characters of a bad line", "[batch]") {
  TempDir tmp;
  const std::string keys = tmp / "keys.txt";
  const std::string cut = "'" + std::string(80, 'g') + "...'";
  SECTION("a line of 10 MB") {
    WriteLongLine(keys, 'g', 10'000'000);
    auto r = RunFlatbench("get --dir " + SmallDataset() + " --keys " + keys);
    CHECK(r.exit_code == 64);
    CHECK(Lines(r.err) == 1);
    CHECK(r.err.size() < 300);
    CHECK(Count(r.err, keys +
                           ":2: a line of 10000000 bytes, longer than any "
                           "key line (256 at most): " +
                           cut + " (10000000 bytes)") == 1);
  }
  SECTION("a word longer than 80 characters") {
    WriteAll(keys, "account " + std::string(100, 'g') + "\n");
    auto r = RunFlatbench("get --dir " + SmallDataset() + " --keys " + keys);
    CHECK(r.exit_code == 64);
    CHECK(Count(r.err, keys + ":1: " + cut +
                           " (100 bytes) is not even-length hex") == 1);
  }
  SECTION("a short word is quoted whole") {
    WriteAll(keys, "xyz\n");
    auto r = RunFlatbench("get --dir " + SmallDataset() + " --keys " + keys);
    CHECK(r.exit_code == 64);
    CHECK(Count(r.err, keys + ":1: 'xyz' is not even-length hex") == 1);
  }
}

// A NUL byte would end the message where it is printed, and a control
// byte would reach the terminal: what an error quotes is escaped.
TEST_CASE("get --keys escapes the bytes of a bad line it quotes", "[batch]") {
  TempDir tmp;
  const std::string keys = tmp / "keys.txt";
  struct Case {
    std::string line, quoted;
  };
  const Case c = GENERATE(Case{std::string("abc\0def", 7), "'abc\\x00def'"},
                          Case{"\x1b[2Jab\x7f\xff", "'\\x1b[2Jab\\x7f\\xff'"},
                          Case{"ab\\cd", "'ab\\\\cd'"});
  CAPTURE(c.quoted);
  WriteAll(keys, c.line + "\n");
  auto r = RunFlatbench("get --dir " + SmallDataset() + " --keys " + keys);
  CHECK(r.exit_code == 64);
  CHECK(Lines(r.err) == 1);
  CHECK(Count(r.err, keys + ":1: " + c.quoted + " is not even-length hex") ==
        1);
}

TEST_CASE("get --keys cuts an escaped quote at 80 characters", "[batch]") {
  TempDir tmp;
  const std::string keys = tmp / "keys.txt";
  WriteAll(keys, "a" + std::string(999, '\0') + "\n");
  auto r = RunFlatbench("get --dir " + SmallDataset() + " --keys " + keys);
  CHECK(r.exit_code == 64);
  std::string quoted = "'a";
  for (int i = 0; i < 19; ++i) quoted += "\\x00";  // 1 + 19 x 4 <= 80.
  CHECK(Count(r.err, keys +
                         ":1: a line of 1000 bytes, longer than any key "
                         "line (256 at most): " +
                         quoted + "...' (1000 bytes)") == 1);
}

// A long comment or blank line is skipped however long it is, and a key
// line may carry blanks up to the limit.
TEST_CASE("get --keys skips long comments and blank lines", "[batch]") {
  TempDir tmp;
  const std::string keys = tmp / "keys.txt";
  const std::string absent(40, 'f');
  WriteAll(keys, "# " + std::string(100'000, 'c') + "\n" +
                     std::string(100'000, ' ') + "\n" + std::string(100, ' ') +
                     "account " + absent + std::string(100, ' ') + "\n");
  auto r = RunFlatbench("get --dir " + SmallDataset() + " --keys " + keys);
  INFO(r.err);
  CHECK(r.exit_code == 1);  // Not found: the one key was read.
  CHECK(r.out == "account " + absent + " not-found\n");
}

// A line is read through a bounded buffer, never whole: a 128 MiB line
// costs get less than a quarter of it in memory beyond what a short bad
// line costs (the baseline: a sanitizer's own memory is in both).
TEST_CASE("get --keys never holds a long line whole", "[batch]") {
  TempDir tmp;
  const std::string shorter = tmp / "short.txt";
  WriteLongLine(shorter, 'g', 1000);
  const Measured base = RunMeasured(
      {"get", "--dir", SmallDataset(), "--keys", shorter}, tmp / "err0");
  CHECK(base.exit_code == 64);
  const std::string keys = tmp / "keys.txt";
  constexpr size_t kBytes = size_t{128} << 20;
  WriteLongLine(keys, 'g', kBytes);
  const Measured m = RunMeasured(
      {"get", "--dir", SmallDataset(), "--keys", keys}, tmp / "err");
  INFO(m.err.substr(0, 400));  // Whole, it could be the whole line.
  CHECK(m.exit_code == 64);
  CHECK(Lines(m.err) == 1);
  CHECK(m.err.size() < 300);
  CHECK(m.max_rss < base.max_rss + kBytes / 4);
}
