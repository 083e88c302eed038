#include "bench/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/exit_codes.h"
#include "common/stop_signals.h"

extern char** environ;

namespace flatbench::bench {
namespace {

constexpr char kSelf[] = "/proc/self/exe";

void ClosePipe(int fds[2]) {
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) close(fds[i]);
    fds[i] = -1;
  }
}

}  // namespace

std::optional<Code> ChildExit::DocumentedCode(std::string_view command) const {
  if (signal != 0) return std::nullopt;
  const ExitRow* row = DocumentedExit(command, code);
  if (row == nullptr || row->verdict) return std::nullopt;
  return CodeForExitCode(code);
}

int ChildExit::ExitCode() const {
  return signal != 0 ? ExitCodeForSignal(signal) : code;
}

std::string ChildExit::Describe(std::string_view command) const {
  if (signal != 0) {
    return "killed by signal " + std::to_string(signal) + " (" +
           strsignal(signal) + ")";
  }
  std::string s = "exited " + std::to_string(code);
  if (const ExitRow* row = DocumentedExit(command, code);
      row != nullptr && code != 0) {
    s += " (" + std::string(row->name) + ")";
  }
  return s;
}

Status ChildStatus(const ChildExit& end, std::string_view command,
                   const std::string& what) {
  if (end.ok()) return Status::Ok();
  if (auto c = end.DocumentedCode(command); c.has_value()) {
    return Status::FromCode(*c, what + " " + end.Describe(command));
  }
  std::string why = what + " " + end.Describe(command);
  if (end.signal == 0 && DocumentedExit(command, end.code) == nullptr) {
    why += ", a code " + std::string(command) + " does not document";
  }
  return Status::ChildFailed(why);
}

Result<Child> Spawn(const std::vector<std::string>& argv, SpawnPipes pipes) {
  if (argv.empty()) return Status::Usage("spawn: no program");
  int in[2] = {-1, -1}, out[2] = {-1, -1};
  if ((pipes.to_stdin && pipe2(in, O_CLOEXEC) != 0) ||
      (pipes.from_stdout && pipe2(out, O_CLOEXEC) != 0)) {
    Status st = Status::FromErrno("pipe to " + argv[0]);
    ClosePipe(in);
    ClosePipe(out);
    return st;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (pipes.to_stdin) posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  if (pipes.from_stdout) posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  Child c;
  int rc;
  int stop;
  {
    // Started and registered at once: a stop signal ends it too.
    StopGuard hold;
    stop = StopSignal();
    rc = stop != 0
             ? ECANCELED
             : posix_spawn(&c.pid, args[0], &fa, nullptr, args.data(), environ);
    if (rc == 0) RegisterChild(c.pid);
  }
  posix_spawn_file_actions_destroy(&fa);
  // The child's ends.
  if (in[0] >= 0) close(in[0]);
  if (out[1] >= 0) close(out[1]);
  c.to_stdin = in[1];
  c.from_stdout = out[0];
  if (rc != 0) {
    if (c.to_stdin >= 0) close(c.to_stdin);
    if (c.from_stdout >= 0) close(c.from_stdout);
    if (stop != 0) {
      return Status::IOError(argv[0] + " not started: stopping on " +
                             DescribeSignal(stop));
    }
    errno = rc;
    return Status::FromErrno("start " + argv[0]);
  }
  return c;
}

Result<ChildExit> WaitChild(pid_t pid) {
  int wstatus = 0;
  int rc;
  while ((rc = waitpid(pid, &wstatus, 0)) < 0 && errno == EINTR) {
  }
  if (rc < 0) {
    Status st = Status::FromErrno("wait for a child process");
    UnregisterChild(pid);
    return st;
  }
  UnregisterChild(pid);
  ChildExit end;
  if (WIFEXITED(wstatus)) end.code = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) end.signal = WTERMSIG(wstatus);
  return end;
}

Result<ChildExit> SpawnSelf(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kSelf};
  argv.insert(argv.end(), args.begin(), args.end());
  FLATBENCH_ASSIGN_OR_RETURN(const Child c, Spawn(argv, {}));
  return WaitChild(c.pid);
}

Result<std::unique_ptr<LineChild>> LineChild::Start(
    const std::vector<std::string>& args) {
  std::vector<std::string> argv = {kSelf};
  argv.insert(argv.end(), args.begin(), args.end());
  FLATBENCH_ASSIGN_OR_RETURN(
      const Child c, Spawn(argv, {.to_stdin = true, .from_stdout = true}));
  std::unique_ptr<LineChild> lc(new LineChild());
  lc->command_ = args.empty() ? "" : args[0];
  lc->pid_ = c.pid;
  lc->to_ = fdopen(c.to_stdin, "w");
  lc->from_ = fdopen(c.from_stdout, "r");
  if (lc->to_ == nullptr || lc->from_ == nullptr) {
    return Status::FromErrno("fdopen a worker pipe");
  }
  return lc;
}

LineChild::~LineChild() {
  if (to_ != nullptr) std::fclose(to_);
  if (from_ != nullptr) std::fclose(from_);
  if (pid_ > 0) (void)WaitChild(pid_);
}

std::string LineChild::Reap() {
  if (pid_ <= 0) return "already ended";
  // The child may still be running with a broken pipe: end it.
  kill(pid_, SIGTERM);
  auto end = WaitChild(pid_);
  pid_ = -1;
  return end.ok() ? end->Describe(command_) : end.status().message();
}

Result<std::string> LineChild::Exchange(const std::string& line) {
  // A dead child's pipe raises SIGPIPE on write; see it as EPIPE instead.
  signal(SIGPIPE, SIG_IGN);
  if (std::fputs(line.c_str(), to_) < 0 || std::fputc('\n', to_) == EOF ||
      std::fflush(to_) != 0) {
    return Status::ChildFailed("worker process " + Reap() +
                               " (could not send it a request)");
  }
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n = getline(&buf, &cap, from_);
  std::unique_ptr<char, decltype(&std::free)> owned(buf, &std::free);
  if (n <= 0) {
    return Status::ChildFailed("worker process " + Reap() +
                               " before it answered");
  }
  std::string s(buf, static_cast<size_t>(n));
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

FILE* TakeResponseStream() {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  std::fflush(stdout);
  int fd = dup(1);
  dup2(2, 1);
  return fd >= 0 ? fdopen(fd, "w") : nullptr;
}

void DieBySignalOnFault() {
  for (int signo : {SIGBUS, SIGSEGV, SIGILL, SIGFPE}) {
    ::signal(signo, SIG_DFL);
  }
}

}  // namespace flatbench::bench
