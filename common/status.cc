#include "common/status.h"

#include <cerrno>
#include <cstring>

namespace flatbench {

int ExitCodeFor(Code code) {
  switch (code) {
    case Code::kOk:
      return 0;
    case Code::kNotFound:
      return 1;
    case Code::kUsage:
      return 64;
    case Code::kCorruption:
    case Code::kNotOurFormat:
    case Code::kVersionMismatch:
      return 65;
    case Code::kMissingInput:
      return 66;
    case Code::kRefuseOverwrite:
      return 73;
    case Code::kIOError:
      return 74;
  }
  return 74;
}

int ExitCodeForSignal(int signo) { return 128 + signo; }

std::optional<Code> CodeForExitCode(int exit_code) {
  // The first Code of each exit code names it: kCorruption for 65.
  for (Code c : {Code::kOk, Code::kNotFound, Code::kUsage, Code::kCorruption,
                 Code::kMissingInput, Code::kRefuseOverwrite, Code::kIOError}) {
    if (ExitCodeFor(c) == exit_code) return c;
  }
  return std::nullopt;
}

const char* CodeMeaning(Code code) {
  switch (code) {
    case Code::kOk:
      return "success";
    case Code::kNotFound:
      return "not found";
    case Code::kUsage:
      return "usage error";
    case Code::kCorruption:
    case Code::kNotOurFormat:
    case Code::kVersionMismatch:
      return "bad or corrupt data";
    case Code::kMissingInput:
      return "missing input";
    case Code::kRefuseOverwrite:
      return "refusing to overwrite";
    case Code::kIOError:
      return "I/O error";
  }
  return "I/O error";
}

Status Status::FromErrno(const std::string& what) {
  int err = errno;
  std::string msg = what + ": " + std::strerror(err);
  if (err == ENOENT) return MissingInput(std::move(msg));
  return IOError(std::move(msg));
}

}  // namespace flatbench
