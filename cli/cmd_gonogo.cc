// flatbench gonogo: the whole procedure in one command. gen, verify and
// bench (every backend interleaved) run as child processes of this binary,
// the report in this process; finished phases are recorded in
// OUT/gonogo.json so an interrupted run resumes where it stopped.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "backends/table.h"
#include "bench/plan.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "cli/gonogo_plan.h"
#include "cli/report_summary.h"
#include "common/child_process.h"
#include "common/device_profile.h"
#include "common/files.h"
#include "common/stop_signals.h"
#include "common/text.h"
#include "datagen/dataset.h"
#include "datagen/needs.h"
#include "dataset/estimate.h"
#include "dataset/names.h"
#include "report/document/report.h"
#include "report/thresholds.h"
#include "report/verdict/verdict.h"

namespace flatbench::cli {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kStateFile[] = "gonogo.json";

struct GonogoArgs {
  std::string scale = "smoke";
  uint64_t accounts = 0;
  uint32_t slots = 4;
  std::string dir;
  std::string out;
  std::string results_root = kDefaultResultsRoot;
  std::string calibration;  // bench --calibration; empty: its default.
  std::vector<std::string> backends;  // Empty: every one in this build.
  std::vector<int> threads;           // Empty: bench's default.
  std::string evict;
  std::string thresholds;
  uint64_t reads = 0;
  int repetitions = 0;
  bool fresh = false;
  bool full_verify = false;
  bool plan_only = false;
  bool full_reference = false;
  unsigned jobs = 0;  // gen --jobs; 0: the host's hardware threads.
  // "fresh": the bulk-loaded stores; "aged": then aged by `blocks` blocks
  // of the default stream (0: TenPercentBlocks).
  std::string shape = "fresh";
  uint64_t blocks = 0;
  std::string device_profile;  // bench --device-profile; --plan: that host.
};

// The command line that started this process, to tell the user how to
// resume.
std::string CommandLine() {
  auto text = ReadSmallFile("/proc/self/cmdline");
  if (!text.ok()) return "the same command";
  std::string out;
  size_t start = 0;
  const std::string& t = text.value();
  while (start < t.size()) {
    size_t end = t.find('\0', start);
    if (end == std::string::npos) end = t.size();
    std::string word = t.substr(start, end - start);
    if (word.find_first_of(" '\"\\$") != std::string::npos) {
      word = "'" + word + "'";
    }
    out += (out.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out;
}

// Refuses (73) when the disk or RAM this run will need is not there.
Status CheckResources(const dataset::Spec& spec, const std::string& dir,
                      const std::vector<std::string>& backends) {
  datagen::RunNeeds n = datagen::EstimateRunNeeds(spec, dir, backends);
  std::fprintf(stderr,
               "gonogo: needs %s more disk (%s free at %s) and %s RAM (%s "
               "available)\n",
               HumanBytes(n.disk).c_str(), HumanBytes(n.free_disk).c_str(),
               dir.c_str(), HumanBytes(n.ram).c_str(),
               HumanBytes(n.free_ram).c_str());
  return datagen::CheckRunNeeds(n, spec, dir);
}

// How a phase's child process ended, as gonogo's exit code: 0; the error
// code its command documents (the child printed the message); or, for a
// signal or a code its command does not document (a sanitizer's 1 is
// neither NO-GO nor anything else), kChildFailed, printed here. A verdict
// never comes from a child: the report runs in this process.
int PhaseExit(const ChildExit& end, const std::string& command,
              const std::string& phase) {
  Status st = ChildStatus(end, command, phase);
  if (st.ok()) return 0;
  return st.code() == Code::kChildFailed ? Fail(st) : st.ExitCode();
}

// The newest unfinished run of the same scale and dataset under `root`.
std::string FindUnfinished(const std::string& root, const json& identity) {
  std::error_code ec;
  std::string best;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    auto text = ReadSmallFile((e.path() / kStateFile).string());
    if (!text.ok()) continue;
    json s = json::parse(text.value(), nullptr, false);
    if (s.is_discarded() || s.value("finished", true)) continue;
    if (s.value("identity", json()) != identity) continue;
    if (e.path().string() > best) best = e.path().string();
  }
  return best;
}

class State {
 public:
  State(std::string out, json identity) : path_(out + "/" + kStateFile) {
    auto text = ReadSmallFile(path_);
    if (text.ok()) doc_ = json::parse(text.value(), nullptr, false);
    if (doc_.is_discarded() || !doc_.is_object()) doc_ = json::object();
    doc_["identity"] = std::move(identity);
    if (!doc_.contains("done")) doc_["done"] = json::array();
    doc_["finished"] = false;
  }
  bool Done(const std::string& phase) const {
    for (const auto& p : doc_["done"]) {
      if (p == phase) return true;
    }
    return false;
  }
  Status Mark(const std::string& phase) {
    doc_["done"].push_back(phase);
    return Save();
  }
  Status Finish(report::Outcome outcome) {
    doc_["finished"] = true;
    doc_["verdict"] = report::OutcomeName(outcome);
    doc_["report_exit_code"] = report::OutcomeExitCode(outcome);
    return Save();
  }
  Status Save() { return WriteFileAtomic(path_, doc_.dump(2) + "\n"); }

 private:
  std::string path_;
  json doc_;
};

// The bench phase's arguments, as bench parses them (gonogo --plan plans
// with them in this process), and as its command line (BenchArgv).
cli::BenchArgs BenchOf(const GonogoArgs& a, const std::string& out) {
  cli::BenchArgs b;
  b.dir = a.dir;
  b.out = out;
  b.backends = a.backends;
  b.force = true;
  // Every kind: the point reads the verdict reads, and the scans and
  // startups the report shows beside them (never gated). Every mode: the
  // plan leaves out the warm passes of backends the host cannot hold.
  b.modes = {"warm", "cold", "cold-lazy"};
  b.kinds = {"hit", "miss-absent", "miss-live", "scan", "startup"};
  if (!a.threads.empty()) b.threads = a.threads;
  // Below the gate's scale, eviction per file (fadvise, verified with
  // mincore as always) rather than drop_caches, which also empties the
  // page cache of everything else on the host, every pass.
  b.evict = a.evict;
  if (b.evict.empty()) {
    auto t = a.thresholds.empty() ? report::BuiltInThresholds()
                                  : report::LoadThresholdsFile(a.thresholds);
    b.evict = t.ok() && t->gate_scale != a.scale ? "fadvise" : "auto";
  }
  b.reads = a.reads;
  b.repetitions = a.repetitions;
  b.thresholds = a.thresholds;
  b.full_reference = a.full_reference;
  b.device_profile = a.device_profile;
  b.calibration = a.calibration;
  b.results_root = a.results_root;
  return b;
}

std::vector<std::string> BenchArgv(const cli::BenchArgs& b) {
  std::vector<std::string> args = {
      "bench",          "--dir",       b.dir,     "--backends",
      Join(b.backends), "--out",       b.out,     "--force",
      "--modes",        Join(b.modes), "--kinds", Join(b.kinds)};
  if (b.threads != cli::BenchArgs().threads) {
    args.insert(args.end(), {"--threads", Join(b.threads)});
  }
  args.insert(args.end(), {"--evict", b.evict});
  if (b.reads != 0) {
    args.insert(args.end(), {"--reads", std::to_string(b.reads)});
  }
  if (b.repetitions != 0) {
    args.insert(args.end(), {"--repetitions", std::to_string(b.repetitions)});
  }
  if (!b.thresholds.empty()) {
    args.insert(args.end(), {"--thresholds", b.thresholds});
  }
  if (b.full_reference) args.push_back("--full-reference");
  if (!b.device_profile.empty()) {
    args.insert(args.end(), {"--device-profile", b.device_profile});
  }
  if (!b.calibration.empty()) {
    args.insert(args.end(), {"--calibration", b.calibration});
  }
  if (b.results_root != kDefaultResultsRoot) {
    args.insert(args.end(), {"--results-root", b.results_root});
  }
  return args;
}

// gonogo --plan: what each backend and phase would cost; writes nothing.
int PrintGonogoPlan(const GonogoArgs& a, const dataset::Spec& spec,
                    const std::optional<DeviceProfileFile>& profile) {
  const cli::BenchArgs bench = BenchOf(a, "-");
  const bool aged = a.shape == "aged";
  const int phases = aged ? 5 : 4;
  auto est = EstimateGonogo(spec, a.dir, bench, a.jobs, profile);
  if (!est.ok()) return Fail(est.status().WithContext("gonogo --plan"));
  std::string todo;
  for (const auto& r : est->rows) {
    if (!r.in_run || r.built || r.disk == 0) continue;
    todo += (todo.empty() ? "" : ",") + r.backend;
  }
  std::fprintf(stderr, "gonogo plan (%s scale, dataset %s):\n%s",
               a.scale.c_str(), a.dir.c_str(),
               FormatGonogoEstimate(est.value()).c_str());
  std::fprintf(stderr, "  [1/%d] gen: %s\n", phases,
               todo.empty()
                   ? "every backend built already"
                   : (todo + " with " + std::to_string(est->jobs) +
                      (est->jobs == 1 ? " job" : " jobs") + ", about " +
                      bench::FormatDuration(est->gen_jobs) + " (estimate)")
                         .c_str());
  int phase = 1;
  if (aged) {
    double age = 0;
    for (const std::string& store : dataset::StoresOf(a.backends)) {
      age += dataset::EstimateAgeSeconds(
          spec, store, a.blocks, dataset::StreamSpec().changes_per_block,
          dataset::kDefaultMergeEvery, std::max(1u, est->jobs));
    }
    std::fprintf(stderr,
                 "  [%d/%d] age: %llu blocks through every store's write "
                 "path, about %s (estimate: each store's measured seconds "
                 "per block and the arena's merge rate, RESEARCH.md section "
                 "11)\n",
                 ++phase, phases, static_cast<unsigned long long>(a.blocks),
                 bench::FormatDuration(age).c_str());
  }
  std::fprintf(stderr, "  [%d/%d] verify%s\n", ++phase, phases,
               a.full_verify ? " (every pair; RESEARCH.md, section 6)"
                             : " --quick: seconds");
  std::fprintf(stderr, "  [%d/%d] bench:\n", ++phase, phases);
  std::vector<std::string> args = BenchArgv(bench);
  args.insert(args.end(),
              {"--plan", "--plan-scale", spec.scale, "--plan-accounts",
               std::to_string(spec.accounts), "--plan-slots",
               std::to_string(spec.slots_per_account)});
  auto end = SpawnSelf(args);
  if (!end.ok()) return Fail(end.status().WithContext("bench --plan"));
  if (int rc = PhaseExit(end.value(), "bench", "bench --plan"); rc != 0) {
    return rc;
  }
  std::fprintf(stderr, "  [%d/%d] report: seconds\n", ++phase, phases);
  return 0;
}

int RunGonogo(GonogoArgs a) {
  InstallStopHandler("gonogo", StopRole::kParent);
  auto spec =
      dataset::MakeSpec(a.scale, a.accounts, a.slots, dataset::kDefaultSeed);
  if (!spec.ok()) return Fail(spec.status());
  if (a.backends.empty()) {
    auto chosen = GonogoDefaultBackends(spec.value(), a.thresholds);
    if (!chosen.ok()) return Fail(chosen.status());
    a.backends = std::move(chosen.value());
  }
  // A bad profile is refused before anything runs.
  std::optional<DeviceProfileFile> profile;
  if (!a.device_profile.empty()) {
    auto loaded = LoadDeviceProfileFile(a.device_profile);
    if (!loaded.ok()) return Fail(loaded.status());
    profile = std::move(loaded.value());
  }
  // gen and verify build and check the stores; bench measures every name.
  const std::string backends = Join(dataset::StoresOf(a.backends));
  const bool aged = a.shape == "aged";
  if (!aged && a.blocks != 0) {
    return Fail(Status::Usage("--blocks: only with --shape aged"));
  }
  if (aged && a.blocks == 0) {
    a.blocks = dataset::TenPercentBlocks(spec.value(), dataset::StreamSpec());
  }
  if (a.dir.empty()) a.dir = "data/" + a.scale + (aged ? "-aged" : "");
  if (a.plan_only) return PrintGonogoPlan(a, spec.value(), profile);
  json identity = {{"scale", a.scale},
                   {"spec", spec->Canonical()},
                   {"dir", fs::absolute(a.dir).string()},
                   {"backends", Join(a.backends)}};
  if (aged) {
    identity["shape"] = a.shape;
    identity["blocks"] = a.blocks;
  }
  if (a.out.empty() && !a.fresh)
    a.out = FindUnfinished(a.results_root, identity);
  // Before anything is written: only backends not yet built count.
  if (Status st =
          CheckResources(spec.value(), a.dir, dataset::StoresOf(a.backends));
      !st.ok()) {
    return Fail(st);
  }
  bool resuming = !a.out.empty() && fs::exists(a.out + "/" + kStateFile);
  if (a.out.empty())
    a.out = a.results_root + "/" + a.scale + "-" +
            UtcTime(std::time(nullptr), "%Y%m%d-%H%M%S");
  std::error_code ec;
  fs::create_directories(a.out, ec);
  if (ec) return Fail(Status::IOError(a.out + ": " + ec.message()));
  State state(a.out, identity);
  if (resuming) std::fprintf(stderr, "gonogo: resuming %s\n", a.out.c_str());
  if (Status st = state.Save(); !st.ok()) return Fail(st);

  // gen, (age,) verify, bench, report.
  const int phases = aged ? 5 : 4;
  int phase_no = 0;
  const auto run_start = std::chrono::steady_clock::now();
  // A stop signal: the child has ended (stop_signals.h); say where, and
  // how to resume.
  auto stopped = [&](const std::string& phase) {
    std::string done;
    for (const char* p : {"gen", "age", "verify", "bench"}) {
      if (state.Done(p)) done += (done.empty() ? "" : ", ") + std::string(p);
    }
    std::fprintf(
        stderr,
        "gonogo: stopped by %s in phase %d/%d (%s) after %s; every process "
        "it started is stopped. To resume in %s (done: %s), run the same "
        "command again: %s\n",
        DescribeSignal(StopSignal()).c_str(), phase_no, phases, phase.c_str(),
        bench::FormatDuration(std::chrono::duration<double>(
                                  std::chrono::steady_clock::now() - run_start)
                                  .count())
            .c_str(),
        a.out.c_str(), done.empty() ? "nothing yet" : done.c_str(),
        CommandLine().c_str());
    return ExitCodeForSignal(StopSignal());
  };
  auto run = [&](const std::string& phase,
                 const std::vector<std::string>& args) -> int {
    ++phase_no;
    if (state.Done(phase)) {
      std::fprintf(stderr, "== gonogo [%d/%d] %s: done earlier, skipped\n",
                   phase_no, phases, phase.c_str());
      return 0;
    }
    std::fprintf(stderr, "== gonogo [%d/%d] %s\n", phase_no, phases,
                 phase.c_str());
    auto start = std::chrono::steady_clock::now();
    auto end = SpawnSelf(args);
    if (StopSignal() != 0) return stopped(phase);
    if (!end.ok()) return Fail(end.status().WithContext(phase));
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::fprintf(stderr, "== gonogo [%d/%d] %s: %s after %.1f s\n", phase_no,
                 phases, phase.c_str(), end->Describe(args[0]).c_str(), secs);
    if (end->ok()) {
      Status st = state.Mark(phase);
      if (!st.ok()) return Fail(st);
    }
    return PhaseExit(end.value(), args[0], phase);
  };

  std::vector<std::string> gen = {"gen", "--scale",    a.scale, "--dir",
                                  a.dir, "--backends", backends};
  // Not given: gen's own default, the host's hardware threads lowered to
  // what the memory holds; given, gen refuses a count the memory cannot.
  if (a.jobs != 0) gen.insert(gen.end(), {"--jobs", std::to_string(a.jobs)});
  if (a.scale == "custom") {
    gen.insert(gen.end(), {"--accounts", std::to_string(a.accounts),
                           "--slots-per-account", std::to_string(a.slots)});
  }
  // A dataset an earlier run aged by this stream, to at most the target:
  // gen would refuse its aged spec, and age takes it on from there.
  uint64_t aged_blocks = 0;
  if (aged) {
    dataset::Spec target = spec.value();
    target.stream.blocks = a.blocks;
    auto existing = datagen::Dataset::Open(a.dir);
    if (existing.ok()) {
      dataset::Spec e = existing->spec();
      const uint64_t blocks = e.stream.blocks;
      e.stream.blocks = a.blocks;
      if (e == target && blocks <= a.blocks) aged_blocks = blocks;
    }
  }
  if (aged_blocks == 0) {
    if (int rc = run("gen", gen); rc != 0) return rc;
  } else {
    ++phase_no;
    std::fprintf(stderr,
                 "== gonogo [%d/%d] gen: %s holds the state after %llu "
                 "blocks already, skipped\n",
                 phase_no, phases, a.dir.c_str(),
                 static_cast<unsigned long long>(aged_blocks));
  }
  if (aged) {
    std::vector<std::string> age = {"age", "--dir", a.dir, "--blocks",
                                    std::to_string(a.blocks)};
    if (a.jobs != 0) age.insert(age.end(), {"--jobs", std::to_string(a.jobs)});
    if (int rc = run("age", age); rc != 0) return rc;
  }
  if (int rc =
          run("verify",
              a.full_verify
                  ? std::vector<std::string>{"verify", "--dir", a.dir,
                                             "--backends", backends}
                  : std::vector<std::string>{"verify", "--quick", "--dir",
                                             a.dir, "--backends", backends});
      rc != 0) {
    return rc;
  }

  // One bench run over every backend: the schedule interleaves them, and
  // its plan (printed first) leaves out what the host cannot hold. A
  // resumed gonogo reruns it into the same file: bench continues from its
  // journal (bench.json.journal) at the first pass not in it.
  std::vector<std::string> results = {a.out + "/bench.json"};
  if (int rc = run("bench", BenchArgv(BenchOf(a, results[0]))); rc != 0) {
    return rc;
  }

  // The report phase always runs: it is quick, and it runs in this process,
  // so the verdict is the report's outcome, never read from an exit code.
  std::fprintf(stderr, "== gonogo [%d/%d] report\n", phases, phases);
  phase_no = phases;
  report::ReportOptions ro;
  ro.inputs = results;
  ro.out_dir = a.out;
  ro.thresholds_path = a.thresholds;
  ro.force = true;
  auto summary = report::WriteReport(ro);
  if (StopSignal() != 0) return stopped("report");
  if (!summary.ok()) return Fail(summary.status().WithContext("report"));
  PrintReportSummary(summary.value());
  if (Status st = state.Finish(summary->outcome); !st.ok()) return Fail(st);
  return report::OutcomeExitCode(summary->outcome);
}

// The options that shape the plan: --plan itself, gen's jobs, the host
// planned for and the calibration.
void AddPlanOptions(CLI::App* sub, GonogoArgs* a) {
  sub->add_flag("--plan", a->plan_only,
                "Print the plan (what gen would build, and bench's passes "
                "and estimated time per backend and mode) and exit 0 "
                "without running or writing anything");
  sub->add_option("--jobs", a->jobs,
                  "Jobs (threads) gen builds with, 1 to 1024 (default: the "
                  "host's hardware threads; with --plan --device-profile, "
                  "that host's cpus)")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--calibration", a->calibration,
                  "Results JSON whose step times and device rates calibrate "
                  "the plan's estimate (default: the newest bench.json of "
                  "this host under --results; none: the built-in cost model "
                  "alone); the gen estimate calibrates from this host's "
                  "dataset markers beside --dir")
      ->check([](const std::string& v) -> std::string {
        return v == "none" || std::filesystem::exists(v)
                   ? ""
                   : "no such results file: " + v;
      });
  sub->add_option("--device-profile", a->device_profile,
                  "A device profile (flatbench device --out P.json): bench "
                  "records it; with --plan, the plan is for the host it "
                  "describes (its cpus and device)");
}

}  // namespace

Command AddGonogo(CLI::App& app) {
  auto a = std::make_shared<GonogoArgs>();
  CLI::App* sub = app.add_subcommand(
      "gonogo",
      "The whole procedure: gen, verify, bench (every mode, each backend in "
      "its own process) and report, with progress per phase. Resumes an "
      "interrupted run of the same scale and dataset without redoing "
      "finished phases. Checks free disk and RAM first. Exits with the "
      "verdict, computed in this process by the report phase.");
  sub->add_option("--scale", a->scale, "tiny, smoke, medium, full or custom")
      ->capture_default_str();
  sub->add_option("--accounts", a->accounts, "Accounts (--scale custom)");
  sub->add_option("--slots-per-account", a->slots,
                  "Slots per account (--scale custom)")
      ->capture_default_str();
  sub->add_option("--dir", a->dir, "Dataset directory (default data/SCALE)");
  sub->add_option("--out", a->out,
                  "Results directory (default RESULTS/SCALE-TIMESTAMP, or the "
                  "unfinished run being resumed)");
  sub->add_option("--results", a->results_root,
                  "Where timestamped results directories go")
      ->capture_default_str();
  AddListOption(sub, "--backends", &a->backends,
                "Comma-separated backends (default: at the thresholds' gate "
                "scale (full) the gated ones, those thresholds.json names, "
                "and arena+cache; below it every store this build holds, fs "
                "only up to smoke scale, and arena+cache). Reference rows "
                "(postgres, sqlite, fs) at full scale only when named here")
      ->check(CLI::IsMember(backends::Names()));
  AddListOption(sub, "--threads", &a->threads,
                "Thread counts, 1 to 1024 (bench default)")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--evict", a->evict,
                  "How cold passes evict: auto, drop_caches or fadvise "
                  "(bench default: auto, drop_caches when writable, else "
                  "fadvise)")
      ->check(CLI::IsMember({"auto", "drop_caches", "fadvise"}));
  sub->add_option("--reads", a->reads, "Reads per pass (bench default)")
      ->check(AtLeastOne());
  sub->add_option("--repetitions", a->repetitions,
                  "Cold repetitions, 1 to 1000 (bench default: 3 at smoke, 5 "
                  "above)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--thresholds", a->thresholds,
                  "Thresholds file (default: the checked-in one)");
  sub->add_flag("--full-verify", a->full_verify,
                "Verify every pair of every backend against the generator "
                "(about 16 min at medium, 8 h at full) instead of the quick "
                "check (counts and sampled lookups)");
  sub->add_flag("--fresh", a->fresh,
                "Start a new results directory instead of resuming");
  AddPlanOptions(sub, a.get());
  sub->add_option("--shape", a->shape,
                  "fresh: the stores as bulk-loaded; aged: then aged by "
                  "--blocks blocks of the default stream through each "
                  "store's write path (flatbench age), in data/SCALE-aged "
                  "by default, so the verdict is for the shape a running "
                  "node's stores have")
      ->check(CLI::IsMember({"fresh", "aged"}))
      ->capture_default_str();
  sub->add_option("--blocks", a->blocks,
                  "Blocks for --shape aged (default: enough to change 10% of "
                  "the dataset's keys, 2,000 changes a block)")
      ->check(AtLeastOne());
  sub->add_flag("--full-reference", a->full_reference,
                "Reference rows run the whole bench matrix below full scale "
                "too (bench --full-reference)");
  return {sub, [a] { return RunGonogo(*a); }};
}

}  // namespace flatbench::cli
