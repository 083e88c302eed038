// How a child process of this binary ended, named through the exit-code
// map: a documented exit keeps its meaning, a signal or an undocumented
// status is told apart, and a line child that dies says how.
//
// SpawnSelf and LineChild start /proc/self/exe, which here is this test
// binary: given "exit-with N" or "die-by SIGNAL" as its arguments it does
// that instead of running the tests (its own main, below).
#define CATCH_CONFIG_RUNNER
#include "common/child_process.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

using flatbench::ChildExit;
using flatbench::Code;
using flatbench::LineChild;
using flatbench::SpawnSelf;

TEST_CASE("a documented exit keeps its meaning") {
  auto end = SpawnSelf({"exit-with", "65"});
  REQUIRE(end.ok());
  CHECK(end->signal == 0);
  CHECK(end->code == 65);
  CHECK(end->DocumentedCode() == Code::kCorruption);
  CHECK(end->ExitCode() == 65);
  CHECK(end->Describe() == "exited 65 (bad or corrupt data)");
  CHECK_FALSE(end->ok());

  auto ok = SpawnSelf({"exit-with", "0"});
  REQUIRE(ok.ok());
  CHECK(ok->ok());
  CHECK(ok->Describe() == "exited 0");
}

TEST_CASE("an undocumented exit status is not taken for a verdict") {
  auto end = SpawnSelf({"exit-with", "23"});  // A sanitizer's exit code.
  REQUIRE(end.ok());
  CHECK_FALSE(end->DocumentedCode().has_value());
  CHECK(end->ExitCode() == 23);
  CHECK(end->Describe() == "exited 23");
}

TEST_CASE("a crashed child is named by its signal and passed on as 128+N") {
  // Not SIGSEGV: under ASan the sanitizer takes it and exits 1 instead.
  for (int sig : {SIGKILL, SIGABRT, SIGTERM}) {
    CAPTURE(sig);
    auto end = SpawnSelf({"die-by", std::to_string(sig)});
    REQUIRE(end.ok());
    CHECK(end->signal == sig);
    CHECK_FALSE(end->DocumentedCode().has_value());
    CHECK(end->ExitCode() == 128 + sig);
    CHECK(end->Describe().find("killed by signal " + std::to_string(sig)) == 0);
    CHECK_FALSE(end->ok());
  }
}

TEST_CASE("a line child that dies before answering says how it ended") {
  auto child = LineChild::Start({"die-by", std::to_string(SIGKILL)});
  REQUIRE(child.ok());
  auto line = child.value()->Exchange("{}");
  REQUIRE_FALSE(line.ok());
  CHECK(line.status().code() == Code::kIOError);
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
  return Catch::Session().run(argc, argv);
}
