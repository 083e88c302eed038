#pragma once
// Status and Result<T>: errors cross module boundaries as values.
//
// Each Code maps to one sysexits-style process exit code (ExitCode), a row
// of the exit contract (common/exit_codes.h), so a command-line front end
// can turn any error into the documented exit status.

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace flatbench {

enum class Code {
  kOk = 0,           // Success.
  kNotFound,         // A lookup found no key (exit 1).
  kUsage,            // A wrong flag, argument or caller-supplied value (64).
  kCorruption,       // Bad or corrupt data: checksums, ordering, format (65).
  kNotOurFormat,     // A file is not of the expected format: bad magic (65).
  kVersionMismatch,  // A file of our format, in a version not readable (65).
  kMissingInput,     // A file or directory that must exist does not (66).
  kRefuseOverwrite,  // Existing data does not match and was left alone (73).
  kIOError,          // The operating system refused a read or write (74).
  kChildFailed,      // A child process crashed, or ended with an exit code
                     // its command does not document (70).
};
// The last Code: a code read from another process is checked against the
// range up to it.
inline constexpr Code kLastCode = Code::kChildFailed;

// Process exit code for a Code: its row's in common/exit_codes.h.
int ExitCodeFor(Code code);
// The exit code of a process ended by signal `signo`, as the shell reports
// it: 128 + signo.
int ExitCodeForSignal(int signo);
// The Code a process of this binary meant by exiting with `exit_code` (for
// 65, kCorruption), or nothing for a code no Code maps to (a verdict's 2, a
// sanitizer's 23). The inverse of ExitCodeFor. Whether a given command
// documents the code is exit_codes.h's DocumentedExit.
std::optional<Code> CodeForExitCode(int exit_code);
// What a Code means, in a few words: its exit row's name, "bad or corrupt
// data".
const char* CodeMeaning(Code code);

// One pointer, null when OK (as LevelDB's Status): returning and testing a
// success costs no allocation and no string; only errors carry a message.
class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(const Status& other)
      : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) {
      rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
    }
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return Status(); }
  static Status NotFound(std::string msg) {
    return Status(Code::kNotFound, std::move(msg));
  }
  static Status Usage(std::string msg) {
    return Status(Code::kUsage, std::move(msg));
  }
  static Status Corruption(std::string msg) {
    return Status(Code::kCorruption, std::move(msg));
  }
  static Status MissingInput(std::string msg) {
    return Status(Code::kMissingInput, std::move(msg));
  }
  static Status RefuseOverwrite(std::string msg) {
    return Status(Code::kRefuseOverwrite, std::move(msg));
  }
  static Status IOError(std::string msg) {
    return Status(Code::kIOError, std::move(msg));
  }
  static Status ChildFailed(std::string msg) {
    return Status(Code::kChildFailed, std::move(msg));
  }
  static Status NotOurFormat(std::string msg) {
    return Status(Code::kNotOurFormat, std::move(msg));
  }
  static Status VersionMismatch(std::string msg) {
    return Status(Code::kVersionMismatch, std::move(msg));
  }
  // An I/O error naming `what` and the current errno's description.
  static Status FromErrno(const std::string& what);
  // An error of `code` as another process reported it (a worker's response,
  // a child's exit code). kOk, which names no error, becomes kIOError.
  static Status FromCode(Code code, std::string msg) {
    return Status(code == Code::kOk ? Code::kIOError : code, std::move(msg));
  }

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  // Empty when ok().
  const std::string& message() const {
    static const std::string kEmpty;
    return rep_ ? rep_->msg : kEmpty;
  }
  int ExitCode() const { return ExitCodeFor(code()); }

  // Returns a copy whose message is "prefix: message".
  Status WithContext(const std::string& prefix) const {
    if (ok()) return Status();
    return Status(rep_->code, prefix + ": " + rep_->msg);
  }

 private:
  struct Rep {
    Code code;
    std::string msg;
  };
  Status(Code code, std::string msg)
      : rep_(std::make_unique<Rep>(Rep{code, std::move(msg)})) {}
  std::unique_ptr<Rep> rep_;
};
static_assert(sizeof(Status) == sizeof(void*));

// A value or the error that prevented it (g++ 12 has no std::expected).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok());
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  // REQUIRES: ok().
  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace flatbench

// Returns early from the enclosing function when `expr` is an error status.
#define FLATBENCH_RETURN_IF_ERROR(expr) \
  do {                                  \
    ::flatbench::Status _st = (expr);   \
    if (!_st.ok()) return _st;          \
  } while (0)

// Evaluates `expr`, a Result<T>; returns its status from the enclosing
// function when it is an error, else moves its value into `lhs`, which may
// declare a variable: FLATBENCH_ASSIGN_OR_RETURN(auto reader, Open(path));
#define FLATBENCH_ASSIGN_OR_RETURN(lhs, expr)                                  \
  FLATBENCH_ASSIGN_OR_RETURN_IMPL(FLATBENCH_STATUS_CONCAT(_result_, __LINE__), \
                                  lhs, expr)
#define FLATBENCH_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()
#define FLATBENCH_STATUS_CONCAT(a, b) FLATBENCH_STATUS_CONCAT_INNER(a, b)
#define FLATBENCH_STATUS_CONCAT_INNER(a, b) a##b
