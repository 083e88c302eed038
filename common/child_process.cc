#include "common/child_process.h"

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

#include "common/stop_signals.h"

extern char** environ;

namespace flatbench {
namespace {

constexpr char kSelf[] = "/proc/self/exe";

std::vector<char*> Argv(std::string* self,
                        const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(self->data());
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  return argv;
}

Result<ChildExit> Wait(pid_t pid) {
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return Status::FromErrno("wait for a child process");
  }
  ChildExit end;
  if (WIFEXITED(wstatus)) end.code = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) end.signal = WTERMSIG(wstatus);
  return end;
}

}  // namespace

std::optional<Code> ChildExit::DocumentedCode() const {
  if (signal != 0) return std::nullopt;
  return CodeForExitCode(code);
}

int ChildExit::ExitCode() const {
  return signal != 0 ? ExitCodeForSignal(signal) : code;
}

std::string ChildExit::Describe() const {
  if (signal != 0) {
    return "killed by signal " + std::to_string(signal) + " (" +
           strsignal(signal) + ")";
  }
  std::string s = "exited " + std::to_string(code);
  if (auto c = DocumentedCode(); c.has_value() && code != 0) {
    s += std::string(" (") + CodeMeaning(*c) + ")";
  }
  return s;
}

Result<ChildExit> SpawnSelf(const std::vector<std::string>& args) {
  std::string self = kSelf;
  std::vector<char*> argv = Argv(&self, args);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid;
  {
    // Started and registered at once: a stop signal ends it too.
    StopGuard hold;
    if (StopSignal() != 0) {
      return Status::IOError("not started: stopping on " +
                             DescribeSignal(StopSignal()));
    }
    if (int rc =
            posix_spawn(&pid, kSelf, nullptr, nullptr, argv.data(), environ);
        rc != 0) {
      errno = rc;
      return Status::FromErrno("start a child process");
    }
    RegisterChild(pid);
  }
  auto end = Wait(pid);
  UnregisterChild(pid);
  return end;
}

Result<std::unique_ptr<LineChild>> LineChild::Start(
    const std::vector<std::string>& args) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Status::FromErrno("pipe");
  if (pipe2(out, O_CLOEXEC) != 0) {
    Status st = Status::FromErrno("pipe");
    close(in[0]);
    close(in[1]);
    return st;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  std::string self = kSelf;
  std::vector<char*> argv = Argv(&self, args);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid;
  int rc;
  {
    StopGuard hold;  // Started and registered at once.
    rc = StopSignal() != 0
             ? ECANCELED
             : posix_spawn(&pid, kSelf, &fa, nullptr, argv.data(), environ);
    if (rc == 0) RegisterChild(pid);
  }
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    errno = rc;
    return Status::FromErrno("start a worker process");
  }
  std::unique_ptr<LineChild> c(new LineChild());
  c->pid_ = pid;
  c->to_ = fdopen(in[1], "w");
  c->from_ = fdopen(out[0], "r");
  if (c->to_ == nullptr || c->from_ == nullptr) {
    return Status::FromErrno("fdopen a worker pipe");
  }
  return c;
}

LineChild::~LineChild() {
  if (to_ != nullptr) std::fclose(to_);
  if (from_ != nullptr) std::fclose(from_);
  if (pid_ > 0) {
    (void)Wait(pid_);
    UnregisterChild(pid_);
  }
}

std::string LineChild::Reap() {
  if (pid_ <= 0) return "already ended";
  // The child may still be running with a broken pipe: end it.
  kill(pid_, SIGTERM);
  auto end = Wait(pid_);
  UnregisterChild(pid_);
  pid_ = -1;
  return end.ok() ? end->Describe() : end.status().message();
}

Result<std::string> LineChild::Exchange(const std::string& line) {
  // A dead child's pipe raises SIGPIPE on write; see it as EPIPE instead.
  signal(SIGPIPE, SIG_IGN);
  if (std::fputs(line.c_str(), to_) < 0 || std::fputc('\n', to_) == EOF ||
      std::fflush(to_) != 0) {
    return Status::IOError("worker process " + Reap() +
                           " (could not send it a request)");
  }
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n = getline(&buf, &cap, from_);
  std::unique_ptr<char, decltype(&std::free)> owned(buf, &std::free);
  if (n <= 0) {
    return Status::IOError("worker process " + Reap() + " before it answered");
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

}  // namespace flatbench
