// Status codes, their exit codes and the early-return macros.
#include "common/status.h"

#include <catch2/catch.hpp>
#include <string>

using namespace flatbench;

namespace {

Result<int> Half(int n) {
  if (n % 2 != 0) return Status::Usage(std::to_string(n) + " is odd");
  return n / 2;
}

// Halves twice through FLATBENCH_ASSIGN_OR_RETURN; counts what ran.
Result<int> Quarter(int n, int* steps) {
  FLATBENCH_ASSIGN_OR_RETURN(int half, Half(n));
  ++*steps;
  FLATBENCH_ASSIGN_OR_RETURN(const int quarter, Half(half));
  ++*steps;
  return quarter;
}

Status CheckEven(int n, int* steps) {
  FLATBENCH_RETURN_IF_ERROR(Half(n).status());
  ++*steps;
  return Status::Ok();
}

}  // namespace

TEST_CASE("every documented exit code maps back to its code") {
  const Code codes[] = {Code::kOk,           Code::kNotFound,
                        Code::kUsage,        Code::kCorruption,
                        Code::kNotOurFormat, Code::kVersionMismatch,
                        Code::kMissingInput, Code::kRefuseOverwrite,
                        Code::kIOError,      Code::kChildFailed};
  for (Code c : codes) {
    CAPTURE(static_cast<int>(c));
    auto back = CodeForExitCode(ExitCodeFor(c));
    REQUIRE(back.has_value());
    CHECK(ExitCodeFor(*back) == ExitCodeFor(c));
    CHECK(std::string(CodeMeaning(*back)) == CodeMeaning(c));
  }
  CHECK(ExitCodeFor(Code::kUsage) == 64);
  CHECK(ExitCodeFor(Code::kCorruption) == 65);
  CHECK(CodeForExitCode(65) == Code::kCorruption);
  // Undocumented: a verdict (2), a sanitizer's report (23), a signal (137).
  for (int undocumented : {2, 23, 137, 255}) {
    CAPTURE(undocumented);
    CHECK_FALSE(CodeForExitCode(undocumented).has_value());
  }
  CHECK(ExitCodeForSignal(9) == 137);
}

TEST_CASE("FLATBENCH_ASSIGN_OR_RETURN returns the first error, else assigns") {
  int steps = 0;
  auto ok = Quarter(12, &steps);
  REQUIRE(ok.ok());
  CHECK(ok.value() == 3);
  CHECK(steps == 2);

  steps = 0;
  auto first = Quarter(7, &steps);
  CHECK(first.status().code() == Code::kUsage);
  CHECK(first.status().message() == "7 is odd");
  CHECK(steps == 0);

  steps = 0;
  auto second = Quarter(6, &steps);  // 6 -> 3, then 3 is odd.
  CHECK(second.status().message() == "3 is odd");
  CHECK(steps == 1);

  steps = 0;
  CHECK(CheckEven(5, &steps).code() == Code::kUsage);
  CHECK(steps == 0);
  CHECK(CheckEven(4, &steps).ok());
  CHECK(steps == 1);
}

TEST_CASE("a code another process reported keeps its meaning") {
  const Status s = Status::FromCode(Code::kMissingInput, "worker: no dataset");
  CHECK(s.code() == Code::kMissingInput);
  CHECK(s.ExitCode() == 66);
  CHECK(s.message() == "worker: no dataset");
  // A report of failure with the success code is an error all the same.
  const Status ok_code = Status::FromCode(Code::kOk, "child exited 0");
  CHECK_FALSE(ok_code.ok());
  CHECK(ok_code.code() == Code::kIOError);
}
