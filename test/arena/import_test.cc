// ImportTsv: good dumps round-trip; bad lines are named by number and leave
// no output behind.

#include "arena/import.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "arena/reader.h"
#include "arena/verify.h"
#include "common/hex.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

const std::string kK1 = "0102030405060708090a0b0c0d0e0f1011121314";
const std::string kK2 = "0102030405060708090a0b0c0d0e0f1011121315";
const std::string kK3 = "ff02030405060708090a0b0c0d0e0f1011121314";

TEST_CASE("import builds an arena from a hex dump", "[arena][import]") {
  testing::TempDir dir;
  const std::string in = dir.File("dump.tsv");
  const std::string out = dir.File("out.arena");
  testing::WriteAll(in, kK1 + "\tdeadbeef\n" + kK2 + "\t\r\n" + kK3 + "\t00\n");
  BuildStats stats;
  Status st = ImportTsv(in, out, BuilderOptions{}, &stats);
  INFO(st.message());
  REQUIRE(st.ok());
  REQUIRE(stats.key_count == 3);
  auto reader = Reader::Open(out);
  REQUIRE(reader.ok());
  REQUIRE(reader.value()->key_width() == 20);
  std::string key;
  REQUIRE(FromHex(kK1, &key));
  bool found = false;
  std::string_view value;
  REQUIRE(reader.value()->Get(key, &found, &value).ok());
  REQUIRE(found);
  REQUIRE(value == "\xde\xad\xbe\xef");
  REQUIRE(FromHex(kK2, &key));
  REQUIRE(reader.value()->Get(key, &found, &value).ok());
  REQUIRE(found);
  REQUIRE(value.empty());
  VerifyReport report;
  REQUIRE(Verify(*reader.value(), &report).ok());
}

TEST_CASE("import rejects bad lines by number", "[arena][import]") {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string ok1 = kK1 + "\t01\n";
  const auto c = GENERATE_REF(values<Case>({
      {ok1 + kK2 + "\t02\n" + kK1 + "\t03\n", ":3: key not ascending"},
      {ok1 + kK1 + "\t02\n", ":2: duplicate key"},
      {ok1 + "0102\t02\n", ":2: key width 2, expected 20"},
      {ok1 + kK2 + "\t0\n", ":2: value is not even-length hex"},
      {ok1 + kK2 + "1\t00\n", ":2: key is not even-length hex"},
      {ok1 + kK2 + "\tzz\n", ":2: value is not even-length hex"},
      {ok1 + "\n" + kK2 + "\t00\n", ":2: empty line"},
      {ok1 + kK2 + " 00\n", ":2: no tab between key and value"},
      {ok1 + kK2 + "\t" + std::string(2 * 4059, 'a') + "\n",
       ":2: value of 4059 bytes exceeds maximum 4058"},
      {"", ":1: no key/value lines"},
  }));
  CAPTURE(c.text.substr(0, 100));
  testing::TempDir dir;
  const std::string in = dir.File("dump.tsv");
  const std::string out = dir.File("out.arena");
  testing::WriteAll(in, c.text);
  Status st = ImportTsv(in, out, BuilderOptions{});
  REQUIRE(st.code() == Code::kCorruption);
  REQUIRE(st.message() == in + c.message);
  REQUIRE_FALSE(testing::Exists(out));
  REQUIRE_FALSE(testing::Exists(out + ".tmp"));
}

TEST_CASE("import refuses to overwrite and needs its input",
          "[arena][import]") {
  testing::TempDir dir;
  const std::string in = dir.File("dump.tsv");
  const std::string out = dir.File("out.arena");
  REQUIRE(ImportTsv(in, out, BuilderOptions{}).code() == Code::kMissingInput);
  REQUIRE_FALSE(testing::Exists(out));
  testing::WriteAll(in, kK1 + "\t01\n");
  testing::WriteAll(out, "precious");
  REQUIRE(ImportTsv(in, out, BuilderOptions{}).code() ==
          Code::kRefuseOverwrite);
  REQUIRE(testing::ReadAll(out) == "precious");
}

TEST_CASE("import removes a temporary file left by a killed run",
          "[arena][import]") {
  testing::TempDir dir;
  const std::string in = dir.File("dump.tsv");
  const std::string out = dir.File("out.arena");
  SECTION("the next run fails") {
    testing::WriteAll(out + ".tmp", "half a file");
    testing::WriteAll(in, "nonsense\n");
    REQUIRE(ImportTsv(in, out, BuilderOptions{}).code() == Code::kCorruption);
  }
  SECTION("the next run succeeds") {
    testing::WriteAll(out + ".tmp", "half a file");
    testing::WriteAll(in, kK1 + "\t01\n");
    REQUIRE(ImportTsv(in, out, BuilderOptions{}).ok());
    REQUIRE(testing::Exists(out));
  }
  REQUIRE_FALSE(testing::Exists(out + ".tmp"));
}

TEST_CASE("import rejects an over-long line without reading it whole",
          "[arena][import]") {
  SECTION("from a file") {
    testing::TempDir dir;
    const std::string in = dir.File("dump.tsv");
    const std::string out = dir.File("out.arena");
    testing::WriteAll(in, kK1 + "\t01\n" + kK2 + "\t" +
                              std::string(kMaxTsvLineBytes, 'a') + "\n");
    Status st = ImportTsv(in, out, BuilderOptions{});
    REQUIRE(st.code() == Code::kCorruption);
    REQUIRE(st.message().rfind(in + ":2: line longer than", 0) == 0);
    REQUIRE_FALSE(testing::Exists(out));
    REQUIRE_FALSE(testing::Exists(out + ".tmp"));
  }
  SECTION("from a pipe that never ends the line") {
    // The writer sends one byte past the limit and then holds the pipe open
    // until the import returns (or 20 s pass): an import that waited for
    // the end of the line would return only after the writer closed it.
    testing::TempDir dir;
    const std::string fifo = dir.File("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::atomic<bool> done{false}, closed{false};
    std::thread writer([&] {
      const int fd = ::open(fifo.c_str(), O_WRONLY);
      if (fd < 0) return;
      const std::string chunk(kMaxTsvLineBytes + 1, 'a');
      size_t off = 0;
      while (off < chunk.size()) {
        const ssize_t w = ::write(fd, chunk.data() + off, chunk.size() - off);
        if (w <= 0) break;
        off += static_cast<size_t>(w);
      }
      for (int i = 0; i < 2000 && !done; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      closed = true;
      ::close(fd);
    });
    Status st = ImportTsv(fifo, dir.File("out.arena"), BuilderOptions{});
    const bool returned_before_close = !closed;
    done = true;
    writer.join();
    CAPTURE(st.message());
    REQUIRE(st.code() == Code::kCorruption);
    REQUIRE(st.message().find(":1: line longer than") != std::string::npos);
    REQUIRE(returned_before_close);
  }
}

// Root bypasses permission bits, so as root the import runs in a child that
// has dropped to nobody (uid and gid 65534) first; the Status comes back
// through a pipe.
struct Outcome {
  Code code;
  std::string message;
};
Outcome ImportAsUser(const std::string& in, const std::string& out) {
  if (::geteuid() != 0) {
    const Status st = ImportTsv(in, out, BuilderOptions{});
    return {st.code(), st.message()};
  }
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 ||
        ::setuid(65534) != 0) {
      ::_exit(3);
    }
    const Status st = ImportTsv(in, out, BuilderOptions{});
    const std::string msg =
        std::to_string(static_cast<int>(st.code())) + "\n" + st.message();
    const bool sent = ::write(fds[1], msg.data(), msg.size()) ==
                      static_cast<ssize_t>(msg.size());
    ::_exit(sent ? 0 : 4);
  }
  ::close(fds[1]);
  std::string msg;
  char chunk[512];
  for (ssize_t n; (n = ::read(fds[0], chunk, sizeof chunk)) > 0;) {
    msg.append(chunk, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  const size_t nl = msg.find('\n');
  REQUIRE(nl != std::string::npos);
  return {static_cast<Code>(std::stoi(msg.substr(0, nl))), msg.substr(nl + 1)};
}

TEST_CASE("import says permission denied", "[arena][import]") {
  testing::TempDir dir;
  // Traversable by the unprivileged child (mkdtemp makes it 0700).
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
  const std::string in = dir.File("dump.tsv");
  testing::WriteAll(in, kK1 + "\t01\n");
  SECTION("unreadable input") {
    REQUIRE(::chmod(in.c_str(), 0) == 0);
    const Outcome st = ImportAsUser(in, dir.File("out.arena"));
    REQUIRE(st.code == Code::kIOError);
    REQUIRE(st.message == "open " + in + ": Permission denied");
  }
  SECTION("unwritable output directory") {
    const std::string sub = dir.File("ro");
    REQUIRE(::mkdir(sub.c_str(), 0555) == 0);
    const Outcome st = ImportAsUser(in, sub + "/out.arena");
    REQUIRE(st.code == Code::kIOError);
    REQUIRE(st.message ==
            "create " + sub + "/out.arena.tmp: Permission denied");
    REQUIRE(::chmod(sub.c_str(), 0700) == 0);
  }
}

}  // namespace
}  // namespace flatbench::arena
