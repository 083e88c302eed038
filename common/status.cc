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

Status Status::FromErrno(const std::string& what) {
  int err = errno;
  std::string msg = what + ": " + std::strerror(err);
  if (err == ENOENT) return MissingInput(std::move(msg));
  return IOError(std::move(msg));
}

}  // namespace flatbench
