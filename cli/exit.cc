#include "cli/exit.h"

#include <cstdio>

namespace flatbench::cli {

int Fail(const Status& status) {
  std::fprintf(stderr, "flatbench: %s\n", status.message().c_str());
  return status.ExitCode();
}

int ExitCodeOf(const Status& status) { return status.ok() ? 0 : Fail(status); }

namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

void OnStopSignal(int signo) { g_stop_signal = signo; }

}  // namespace

const volatile std::sig_atomic_t* CatchStopSignals() {
  struct sigaction sa = {};
  sa.sa_handler = OnStopSignal;
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  return &g_stop_signal;
}

int ExitCodeOfStoppable(const Status& status, const char* who) {
  if (!status.ok() && g_stop_signal != 0) {
    std::fprintf(stderr, "flatbench: %s: stopped by signal %d\n", who,
                 static_cast<int>(g_stop_signal));
    return ExitCodeForSignal(g_stop_signal);
  }
  return ExitCodeOf(status);
}

}  // namespace flatbench::cli
