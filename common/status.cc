#include "common/status.h"

#include <cerrno>
#include <cstring>

#include "common/exit_codes.h"

namespace flatbench {

namespace {

const ExitRow& RowFor(Code code) {
  switch (code) {
    case Code::kOk:
      return kExitSuccess;
    case Code::kNotFound:
      return kExitNotFound;
    case Code::kUsage:
      return kExitUsage;
    case Code::kCorruption:
    case Code::kNotOurFormat:
    case Code::kVersionMismatch:
      return kExitCorrupt;
    case Code::kMissingInput:
      return kExitMissingInput;
    case Code::kRefuseOverwrite:
      return kExitRefuseOverwrite;
    case Code::kIOError:
      return kExitIOError;
    case Code::kChildFailed:
      return kExitChildFailed;
  }
  return kExitIOError;
}

}  // namespace

int ExitCodeFor(Code code) { return RowFor(code).code; }

int ExitCodeForSignal(int signo) { return 128 + signo; }

std::optional<Code> CodeForExitCode(int exit_code) {
  // The first Code of each exit code names it: kCorruption for 65.
  for (Code c : {Code::kOk, Code::kNotFound, Code::kUsage, Code::kCorruption,
                 Code::kMissingInput, Code::kRefuseOverwrite, Code::kIOError,
                 Code::kChildFailed}) {
    if (ExitCodeFor(c) == exit_code) return c;
  }
  return std::nullopt;
}

const char* CodeMeaning(Code code) {
  // The table's names are string literals: null-terminated.
  return RowFor(code).name.data();
}

Status Status::FromErrno(const std::string& what) {
  int err = errno;
  std::string msg = what + ": " + std::strerror(err);
  if (err == ENOENT) return MissingInput(std::move(msg));
  return IOError(std::move(msg));
}

}  // namespace flatbench
