// flatbench gonogo: the whole procedure in one command. gen, (age,) verify
// and bench (every backend interleaved) run as child processes of this
// binary, the report in this process; finished phases are recorded in
// OUT/gonogo.json so an interrupted run resumes where it stopped.
#include "cli/gonogo_run.h"

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
#include "bench/child_process.h"
#include "bench/plan.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "cli/gonogo_plan.h"
#include "cli/report_summary.h"
#include "cli/run_options.h"
#include "common/device_profile.h"
#include "common/files.h"
#include "common/stop_signals.h"
#include "common/text.h"
#include "datagen/dataset_dir.h"
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

// The arguments completed: the spec, the default backends, the aged
// shape's blocks and the dataset folder. A bad profile is refused before
// anything runs.
Status Complete(GonogoArgs* a, dataset::Spec* spec,
                std::optional<DeviceProfileFile>* profile) {
  FLATBENCH_ASSIGN_OR_RETURN(*spec,
                             dataset::MakeSpec(a->scale, a->accounts, a->slots,
                                               dataset::kDefaultSeed));
  if (a->request.backends.empty()) {
    FLATBENCH_ASSIGN_OR_RETURN(
        a->request.backends, GonogoDefaultBackends(*spec, a->request.thresholds,
                                                   a->shape == "aged"));
  }
  if (!a->request.device_profile.empty()) {
    FLATBENCH_ASSIGN_OR_RETURN(
        *profile, LoadDeviceProfileFile(a->request.device_profile));
  }
  const bool aged = a->shape == "aged";
  if (!aged && a->blocks != 0) {
    return Status::Usage("--blocks: only with --shape aged");
  }
  if (aged && a->blocks == 0) {
    a->blocks = dataset::SteadyStateBlocks(*spec, dataset::StreamSpec());
  }
  if (a->dir.empty()) a->dir = "data/" + a->scale + (aged ? "-aged" : "");
  return Status::Ok();
}

// One gonogo run: its results folder and state, and its phases in order.
class GonogoRun {
 public:
  GonogoRun(GonogoArgs a, dataset::Spec spec)
      : a_(std::move(a)),
        spec_(std::move(spec)),
        aged_(a_.shape == "aged"),
        phases_(aged_ ? 5 : 4),
        stores_(Join(dataset::StoresOf(a_.request.backends))) {}

  // The results folder: an unfinished run of the same identity resumed,
  // or a new timestamped one; the disk and memory checked first.
  Status Open();
  int Run();

 private:
  json Identity() const;
  // A child phase, skipped when done earlier; its exit as gonogo's.
  int RunPhase(const std::string& phase, const std::vector<std::string>& args);
  // A stop signal: the child has ended (stop_signals.h); says where, and
  // how to resume.
  int Stopped(const std::string& phase);
  std::vector<std::string> GenArgs() const;
  // The blocks of a dataset an earlier run aged by this stream, to at most
  // the target (gen would refuse its aged spec; age takes it on); else 0.
  uint64_t AgedAlready() const;
  int Report(const std::vector<std::string>& results);

  GonogoArgs a_;
  const dataset::Spec spec_;
  const bool aged_;
  const int phases_;
  const std::string stores_;  // gen and verify build and check the stores.
  std::optional<State> state_;
  int phase_no_ = 0;
  const std::chrono::steady_clock::time_point start_ =
      std::chrono::steady_clock::now();
};

json GonogoRun::Identity() const {
  json identity = {{"scale", a_.scale},
                   {"spec", spec_.Canonical()},
                   {"dir", fs::absolute(a_.dir).string()},
                   {"backends", Join(a_.request.backends)}};
  if (aged_) {
    identity["shape"] = a_.shape;
    identity["blocks"] = a_.blocks;
  }
  return identity;
}

Status GonogoRun::Open() {
  const json identity = Identity();
  if (a_.out.empty() && !a_.fresh) {
    a_.out = FindUnfinished(a_.results_root, identity);
  }
  // Before anything is written: only backends not yet built count.
  FLATBENCH_RETURN_IF_ERROR(
      CheckResources(spec_, a_.dir, dataset::StoresOf(a_.request.backends)));
  const bool resuming =
      !a_.out.empty() && fs::exists(a_.out + "/" + kStateFile);
  if (a_.out.empty()) {
    a_.out = a_.results_root + "/" + a_.scale + "-" +
             UtcTime(std::time(nullptr), "%Y%m%d-%H%M%S");
  }
  std::error_code ec;
  fs::create_directories(a_.out, ec);
  if (ec) return Status::IOError(a_.out + ": " + ec.message());
  state_.emplace(a_.out, identity);
  if (resuming) std::fprintf(stderr, "gonogo: resuming %s\n", a_.out.c_str());
  return state_->Save();
}

int GonogoRun::Stopped(const std::string& phase) {
  std::string done;
  for (const char* p : {"gen", "age", "verify", "bench"}) {
    if (state_->Done(p)) done += (done.empty() ? "" : ", ") + std::string(p);
  }
  std::fprintf(
      stderr,
      "gonogo: stopped by %s in phase %d/%d (%s) after %s; every process "
      "it started is stopped. To resume in %s (done: %s), run the same "
      "command again: %s\n",
      DescribeSignal(StopSignal()).c_str(), phase_no_, phases_, phase.c_str(),
      bench::FormatDuration(std::chrono::duration<double>(
                                std::chrono::steady_clock::now() - start_)
                                .count())
          .c_str(),
      a_.out.c_str(), done.empty() ? "nothing yet" : done.c_str(),
      CommandLine().c_str());
  return ExitCodeForSignal(StopSignal());
}

int GonogoRun::RunPhase(const std::string& phase,
                        const std::vector<std::string>& args) {
  ++phase_no_;
  if (state_->Done(phase)) {
    std::fprintf(stderr, "== gonogo [%d/%d] %s: done earlier, skipped\n",
                 phase_no_, phases_, phase.c_str());
    return 0;
  }
  std::fprintf(stderr, "== gonogo [%d/%d] %s\n", phase_no_, phases_,
               phase.c_str());
  const auto start = std::chrono::steady_clock::now();
  auto end = bench::SpawnSelf(args);
  if (StopSignal() != 0) return Stopped(phase);
  if (!end.ok()) return Fail(end.status().WithContext(phase));
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::fprintf(stderr, "== gonogo [%d/%d] %s: %s after %.1f s\n", phase_no_,
               phases_, phase.c_str(), end->Describe(args[0]).c_str(), secs);
  if (end->ok()) {
    Status st = state_->Mark(phase);
    if (!st.ok()) return Fail(st);
  }
  return PhaseExit(end.value(), args[0], phase);
}

std::vector<std::string> GonogoRun::GenArgs() const {
  std::vector<std::string> gen = {"gen",  "--scale",    a_.scale, "--dir",
                                  a_.dir, "--backends", stores_};
  // Not given: gen's own default, the host's hardware threads lowered to
  // what the memory holds; given, gen refuses a count the memory cannot.
  if (a_.jobs != 0) gen.insert(gen.end(), {"--jobs", std::to_string(a_.jobs)});
  if (a_.scale == "custom") {
    gen.insert(gen.end(), {"--accounts", std::to_string(a_.accounts),
                           "--slots-per-account", std::to_string(a_.slots)});
  }
  return gen;
}

uint64_t GonogoRun::AgedAlready() const {
  if (!aged_) return 0;
  dataset::Spec target = spec_;
  target.stream.blocks = a_.blocks;
  auto existing = datagen::Dataset::Open(a_.dir);
  if (!existing.ok()) return 0;
  dataset::Spec e = existing->spec();
  const uint64_t blocks = e.stream.blocks;
  e.stream.blocks = a_.blocks;
  return e == target && blocks <= a_.blocks ? blocks : 0;
}

// The report phase always runs: it is quick, and it runs in this process,
// so the verdict is the report's outcome, never read from an exit code.
int GonogoRun::Report(const std::vector<std::string>& results) {
  std::fprintf(stderr, "== gonogo [%d/%d] report\n", phases_, phases_);
  phase_no_ = phases_;
  report::ReportOptions ro;
  ro.inputs = results;
  ro.out_dir = a_.out;
  ro.thresholds_path = a_.request.thresholds;
  ro.force = true;
  ro.drive_tbw = a_.drive_tbw;
  auto summary = report::WriteReport(ro);
  if (StopSignal() != 0) return Stopped("report");
  if (!summary.ok()) return Fail(summary.status().WithContext("report"));
  PrintReportSummary(summary.value());
  if (Status st = state_->Finish(summary->outcome); !st.ok()) return Fail(st);
  return report::OutcomeExitCode(summary->outcome);
}

// The phases: gen (skipped for a dataset aged by this stream already),
// age, verify, bench, report.
int GonogoRun::Run() {
  if (const uint64_t aged_blocks = AgedAlready(); aged_blocks == 0) {
    if (int rc = RunPhase("gen", GenArgs()); rc != 0) return rc;
  } else {
    ++phase_no_;
    std::fprintf(stderr,
                 "== gonogo [%d/%d] gen: %s holds the state after %llu "
                 "blocks already, skipped\n",
                 phase_no_, phases_, a_.dir.c_str(),
                 static_cast<unsigned long long>(aged_blocks));
  }
  if (aged_) {
    std::vector<std::string> age = {"age", "--dir", a_.dir, "--blocks",
                                    std::to_string(a_.blocks)};
    if (a_.jobs != 0) {
      age.insert(age.end(), {"--jobs", std::to_string(a_.jobs)});
    }
    if (int rc = RunPhase("age", age); rc != 0) return rc;
  }
  std::vector<std::string> verify = {"verify", "--dir", a_.dir, "--backends",
                                     stores_};
  if (!a_.full_verify) verify.insert(verify.begin() + 1, "--quick");
  if (int rc = RunPhase("verify", verify); rc != 0) return rc;
  // One bench run over every backend: the schedule interleaves them, and
  // its plan (printed first) leaves out what the host cannot hold. A
  // resumed gonogo reruns it into the same file: bench continues from its
  // journal (bench.json.journal) at the first pass not in it.
  const std::vector<std::string> results = {a_.out + "/bench.json"};
  if (int rc = RunPhase("bench", BenchCommandLine(BenchOf(a_, results[0])));
      rc != 0) {
    return rc;
  }
  return Report(results);
}

}  // namespace

int RunGonogo(GonogoArgs a) {
  InstallStopHandler("gonogo", StopRole::kParent);
  dataset::Spec spec;
  std::optional<DeviceProfileFile> profile;
  if (Status st = Complete(&a, &spec, &profile); !st.ok()) return Fail(st);
  if (a.plan_only) return PrintGonogoPlan(a, spec, profile);
  GonogoRun run(std::move(a), std::move(spec));
  if (Status st = run.Open(); !st.ok()) return Fail(st);
  return run.Run();
}

}  // namespace flatbench::cli
