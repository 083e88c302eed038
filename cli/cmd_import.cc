// flatbench import: build an arena file from a user's sorted hex TSV dump.
#include <signal.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>

#include "arena/format.h"
#include "arena/import.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "common/files.h"

namespace flatbench::cli {
namespace {

struct ImportArgs {
  std::string in;
  std::string out;
  uint32_t bloom_bits = 10;
  bool compress = false;
};

// An interrupted import (SIGINT, SIGTERM, SIGHUP) removes its temporary
// file on the way out; unlink is async-signal-safe. SIGKILL cannot be
// caught: the next import of the same output removes the leftover.
char g_tmp_path[PATH_MAX];

extern "C" void RemoveTmpAndDie(int sig) {
  ::unlink(g_tmp_path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

class TmpFileGuard {
 public:
  explicit TmpFileGuard(const std::string& tmp) {
    if (tmp.size() >= sizeof g_tmp_path) return;  // open fails on it anyway
    std::memcpy(g_tmp_path, tmp.c_str(), tmp.size() + 1);
    struct sigaction sa {};
    sa.sa_handler = RemoveTmpAndDie;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < kSignals; ++i) {
      installed_[i] = ::sigaction(kSignal[i], &sa, &old_[i]) == 0;
    }
  }
  ~TmpFileGuard() {
    for (int i = 0; i < kSignals; ++i) {
      if (installed_[i]) ::sigaction(kSignal[i], &old_[i], nullptr);
    }
  }
  TmpFileGuard(const TmpFileGuard&) = delete;
  TmpFileGuard& operator=(const TmpFileGuard&) = delete;

 private:
  static constexpr int kSignals = 3;
  static constexpr int kSignal[kSignals] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[kSignals] = {};
  bool installed_[kSignals] = {};
};

Status RunImport(const ImportArgs& a) {
  arena::BuilderOptions opts;
  opts.bloom_bits_per_key = a.bloom_bits;
  opts.compress = a.compress;
  arena::BuildStats stats;
  Status st;
  {
    TmpFileGuard guard(a.out + ".tmp");
    st = arena::ImportTsv(a.in, a.out, opts, &stats);
  }
  FLATBENCH_RETURN_IF_ERROR(st);
  std::printf("%s: %llu keys, %s (index %s, filter %s), built in %.2f s\n",
              a.out.c_str(), static_cast<unsigned long long>(stats.key_count),
              HumanBytes(stats.file_bytes).c_str(),
              HumanBytes(stats.index_bytes).c_str(),
              HumanBytes(stats.filter_bytes).c_str(), stats.build_micros / 1e6);
  return Status::Ok();
}

}  // namespace

Command AddImport(CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  CLI::App* sub = app.add_subcommand(
      "import",
      "Build an arena file from a hex TSV dump: one KEYHEX<TAB>VALUEHEX per "
      "line, keys of one width in strictly ascending byte order. A bad line "
      "is reported with its line number (exit 65), as is a line longer than "
      "any legal key and value (without reading it whole), and no output is "
      "left behind: the build writes OUT.tmp, removed on failure or "
      "interruption (or, after SIGKILL, by the next import of OUT). An "
      "existing output is never overwritten (exit 73).");
  sub->add_option("--in", a->in, "Input TSV dump")->required();
  sub->add_option("--out", a->out, "Output arena file")->required();
  sub->add_option("--bloom-bits", a->bloom_bits,
                  "Bloom filter bits per key (0 = no filter)")
      ->capture_default_str()
      ->check(CLI::Range(0u, arena::kMaxBloomBitsPerKey));
  sub->add_flag("--compress", a->compress, "zstd-compress data blocks");
  return {sub, [a] { return ExitCodeOf(RunImport(*a)); }};
}

}  // namespace flatbench::cli
