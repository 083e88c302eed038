// How a child process of this binary ended, read against the exit contract
// (common/exit_codes.h): an exit its command documents keeps its meaning; a
// signal, an exit its command does not document, or a verdict is a failed
// child (70), never an answer; a line child that dies says how.
//
// SpawnSelf and LineChild start /proc/self/exe, which here is this test
// binary: given "exit-with N" or "die-by SIGNAL" as its arguments it does
// that instead of running the tests (its own main, below).
#include "bench/child_process.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "common/exit_codes.h"
#include "test/catch_session.h"

using flatbench::Code;
using flatbench::Status;
using flatbench::bench::ChildExit;
using flatbench::bench::ChildStatus;
using flatbench::bench::LineChild;
using flatbench::bench::SpawnSelf;

TEST_CASE("a documented exit keeps its meaning") {
  auto end = SpawnSelf({"exit-with", "65"});
  REQUIRE(end.ok());
  CHECK(end->signal == 0);
  CHECK(end->code == 65);
  CHECK(end->DocumentedCode("verify") == Code::kCorruption);
  CHECK(end->ExitCode() == 65);
  CHECK(end->Describe("verify") == "exited 65 (bad or corrupt data)");
  CHECK_FALSE(end->ok());
  Status st = ChildStatus(end.value(), "bench", "the bench phase");
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message() == "the bench phase exited 65 (bad or corrupt data)");

  auto ok = SpawnSelf({"exit-with", "0"});
  REQUIRE(ok.ok());
  CHECK(ok->ok());
  CHECK(ok->Describe("gen") == "exited 0");
  CHECK(ChildStatus(ok.value(), "gen", "gen").ok());
}

TEST_CASE("an undocumented exit status is not taken for an answer") {
  auto end = SpawnSelf({"exit-with", "23"});  // A sanitizer's exit code.
  REQUIRE(end.ok());
  CHECK_FALSE(end->DocumentedCode("get").has_value());
  CHECK(end->ExitCode() == 23);
  CHECK(end->Describe("get") == "exited 23");
  Status st = ChildStatus(end.value(), "get", "get");
  CHECK(st.code() == Code::kChildFailed);
  CHECK(st.ExitCode() == 70);
}

// A sanitizer's report exits 1 by default: the code of NO-GO and of get's
// "not found". Only get documents 1, so only a get child's 1 is an answer.
TEST_CASE("a child's exit 1 is 'not found' from get only, never NO-GO") {
  auto end = SpawnSelf({"exit-with", "1"});
  REQUIRE(end.ok());
  CHECK(end->DocumentedCode("get") == Code::kNotFound);
  CHECK(ChildStatus(end.value(), "get", "get").code() == Code::kNotFound);
  for (const char* command : {"gen", "verify", "bench", "device", "sweep"}) {
    CAPTURE(command);
    CHECK_FALSE(end->DocumentedCode(command).has_value());
    Status st = ChildStatus(end.value(), command, command);
    CHECK(st.code() == Code::kChildFailed);
    CHECK(st.ExitCode() == 70);
    CHECK(st.ExitCode() != flatbench::kExitNoGo.code);
    CHECK(st.message() == std::string(command) + " exited 1, a code " +
                              command + " does not document");
  }
  // report documents 1 as NO-GO, a verdict: no reader takes a verdict
  // from a child, so even there it is a failed child.
  CHECK_FALSE(end->DocumentedCode("report").has_value());
  CHECK(ChildStatus(end.value(), "report", "report").code() ==
        Code::kChildFailed);
  CHECK(end->Describe("report") == "exited 1 (NO-GO)");
}

TEST_CASE("a crashed child is named by its signal, a failed child") {
  // Not SIGSEGV: under ASan the sanitizer takes it and exits 1 instead.
  for (int sig : {SIGKILL, SIGABRT, SIGTERM}) {
    CAPTURE(sig);
    auto end = SpawnSelf({"die-by", std::to_string(sig)});
    REQUIRE(end.ok());
    CHECK(end->signal == sig);
    CHECK_FALSE(end->DocumentedCode("gen").has_value());
    CHECK(end->ExitCode() == 128 + sig);
    CHECK(end->Describe("gen").find("killed by signal " +
                                    std::to_string(sig)) == 0);
    CHECK_FALSE(end->ok());
    CHECK(ChildStatus(end.value(), "gen", "gen").code() == Code::kChildFailed);
  }
}

TEST_CASE("a line child that dies before answering says how it ended") {
  auto child = LineChild::Start({"die-by", std::to_string(SIGKILL)});
  REQUIRE(child.ok());
  auto line = child.value()->Exchange("{}");
  REQUIRE_FALSE(line.ok());
  CHECK(line.status().code() == Code::kChildFailed);
  CHECK(line.status().message().find("killed by signal " +
                                     std::to_string(SIGKILL)) !=
        std::string::npos);
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "exit-with") {
    std::_Exit(std::atoi(argv[2]));
  }
  if (argc == 3 && std::string(argv[1]) == "die-by") {
    const int sig = std::atoi(argv[2]);
    const rlimit no_core = {0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);  // SIGABRT dumps core by default.
    ::signal(sig, SIG_DFL);  // Catch2 installs handlers for some signals.
    ::raise(sig);
    std::_Exit(1);  // Not reached: the default action ends the process.
  }
  return flatbench::testing::RunTests(argc, argv);
}
