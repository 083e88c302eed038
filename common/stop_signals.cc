#include "common/stop_signals.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace flatbench {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int> g_signal{0};
std::atomic<bool> g_parent{false};
int g_wake[2] = {-1, -1};

// Never destroyed: the watcher may still hold it while the main thread
// runs the process's exit.
struct Registry {
  std::recursive_mutex mu;
  std::vector<pid_t> children;
  std::map<uint64_t, std::function<void()>> actions;
  uint64_t next_id = 1;
  std::string who;
  bool installed = false;
};

Registry& Reg() {
  static Registry* r = new Registry;
  return *r;
}

void OnSignal(int signo) {
  const int saved = errno;
  int none = 0;
  g_signal.compare_exchange_strong(none, signo);
  const char byte = 1;
  if (write(g_wake[1], &byte, 1) < 0) {
    // Nothing to do in a handler; the pipe is only full after 64 KiB of
    // repeated signals, and one byte already woke the watcher.
  }
  errno = saved;
}

// Whether `pid` has ended: a zombie waiting for its reaper, or reaped
// already by the thread that waits for it.
bool Ended(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  if (waitid(P_PID, static_cast<id_t>(pid), &info,
             WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid == pid;
}

// Waits until every pid of `pids` has ended or `deadline`; returns those
// still running.
std::vector<pid_t> WaitEnded(std::vector<pid_t> pids, Clock::time_point end) {
  for (;;) {
    std::vector<pid_t> running;
    for (pid_t p : pids) {
      if (!Ended(p)) running.push_back(p);
    }
    if (running.empty() || Clock::now() >= end) return running;
    pids = std::move(running);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void EndChildren(const std::vector<pid_t>& children) {
  for (pid_t p : children) kill(p, SIGTERM);
  auto left = WaitEnded(
      children, Clock::now() + std::chrono::seconds(kChildGraceSeconds));
  for (pid_t p : left) {
    std::fprintf(stderr,
                 "flatbench: child process %d did not stop within %d s of "
                 "SIGTERM; killing it\n",
                 static_cast<int>(p), kChildGraceSeconds);
    kill(p, SIGKILL);
  }
  WaitEnded(left, Clock::now() + std::chrono::seconds(5));
}

void Watch() {
  char byte;
  while (read(g_wake[0], &byte, 1) < 0 && errno == EINTR) {
  }
  const int signo = g_signal.load();
  Registry& r = Reg();
  {
    std::lock_guard<std::recursive_mutex> lock(r.mu);
    EndChildren(r.children);
    // Newest first; an action may remove itself (RemoveStopAction) as it
    // runs, so run a copy.
    auto actions = r.actions;
    for (auto it = actions.rbegin(); it != actions.rend(); ++it) it->second();
    r.actions.clear();
    if (!g_parent.load()) {
      std::fprintf(stderr, "flatbench: %s: stopped by %s\n", r.who.c_str(),
                   DescribeSignal(signo).c_str());
      std::fflush(stderr);
      _exit(128 + signo);
    }
  }
  // A parent's main thread now sees StopSignal() and returns.
  std::this_thread::sleep_for(std::chrono::seconds(kParentGraceSeconds));
  std::fprintf(stderr,
               "flatbench: %s: stopped by %s (its children are stopped; it "
               "did not finish within %d s)\n",
               r.who.c_str(), DescribeSignal(signo).c_str(),
               kParentGraceSeconds);
  std::fflush(stderr);
  _exit(128 + signo);
}

}  // namespace

void InstallStopHandler(const std::string& who, StopRole role) {
  g_parent.store(role == StopRole::kParent);
  Registry& r = Reg();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  r.who = who;
  if (r.installed) return;
  if (pipe2(g_wake, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "flatbench: %s: cannot catch signals: %s\n",
                 who.c_str(), std::strerror(errno));
    return;
  }
  std::thread(Watch).detach();
  struct sigaction sa = {};
  sa.sa_handler = OnSignal;
  sa.sa_flags = SA_RESTART;
  sigfillset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  r.installed = true;
}

int StopSignal() { return g_signal.load(); }

std::string DescribeSignal(int signo) {
  const char* name = strsignal(signo);
  return "signal " + std::to_string(signo) + " (" +
         (name != nullptr ? name : "?") + ")";
}

StopGuard::StopGuard() { Reg().mu.lock(); }
StopGuard::~StopGuard() { Reg().mu.unlock(); }

void RegisterChild(pid_t pid) {
  std::lock_guard<std::recursive_mutex> lock(Reg().mu);
  Reg().children.push_back(pid);
}

void UnregisterChild(pid_t pid) {
  std::lock_guard<std::recursive_mutex> lock(Reg().mu);
  auto& c = Reg().children;
  for (auto it = c.begin(); it != c.end(); ++it) {
    if (*it == pid) {
      c.erase(it);
      return;
    }
  }
}

uint64_t AddStopAction(std::function<void()> action) {
  std::lock_guard<std::recursive_mutex> lock(Reg().mu);
  const uint64_t id = Reg().next_id++;
  Reg().actions[id] = std::move(action);
  return id;
}

void RemoveStopAction(uint64_t id) {
  if (id == 0) return;
  std::lock_guard<std::recursive_mutex> lock(Reg().mu);
  Reg().actions.erase(id);
}

}  // namespace flatbench
