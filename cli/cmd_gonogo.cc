// flatbench gonogo: the whole procedure in one command. Each phase runs as
// a child process of this binary (gen, verify, bench with every backend
// interleaved, report); finished phases are recorded in OUT/gonogo.json so an
// interrupted run resumes where it stopped.
#include <sys/statvfs.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/backends.h"
#include "cli/command.h"
#include "cli/subprocess.h"
#include "common/files.h"
#include "datagen/dataset.h"
#include "datagen/estimate.h"

namespace flatbench::cli {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kStateFile[] = "gonogo.json";
constexpr uint64_t kDeviceScratchMax = 4ULL << 30;

struct GonogoArgs {
  std::string scale = "smoke";
  uint64_t accounts = 0;
  uint32_t slots = 4;
  std::string dir;
  std::string out;
  std::string results_root = "results";
  std::string backends;
  std::string threads;
  std::string evict;
  std::string thresholds;
  uint64_t reads = 0;
  int repetitions = 0;
  bool fresh = false;
  bool full_verify = false;
};

std::string UtcStamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
  return buf;
}

// Refuses (73) when the disk or RAM this run will need is not there.
Status CheckResources(const datagen::Spec& spec, const std::string& dir,
                      const std::vector<std::string>& backends) {
  auto ds = datagen::Dataset::Open(dir);
  uint64_t disk = 0, dataset = 0;
  for (const auto& b : backends) {
    uint64_t est = datagen::EstimateDiskBytes(spec, b);
    dataset = std::max(dataset, est);
    bool built = ds.ok() && ds->spec() == spec && ds->Build(b).ok();
    if (!built) disk += est;
  }
  disk += std::min(kDeviceScratchMax, dataset);
  uint64_t free_disk = datagen::FreeBytes(dir);
  uint64_t ram = datagen::EstimateGeneratorBytes(spec) + (1ULL << 30);
  uint64_t free_ram = datagen::MemAvailableBytes();
  std::fprintf(stderr,
               "gonogo: needs %s more disk (%s free at %s) and %s RAM (%s "
               "available)\n",
               HumanBytes(disk).c_str(), HumanBytes(free_disk).c_str(),
               dir.c_str(), HumanBytes(ram).c_str(),
               HumanBytes(free_ram).c_str());
  if (disk > free_disk) {
    return Status::RefuseOverwrite(
        dir + ": not enough free disk: this run needs " + HumanBytes(disk) +
        " more, " + HumanBytes(free_disk) + " is free");
  }
  if (free_ram != 0 && ram > free_ram) {
    return Status::RefuseOverwrite(
        "not enough memory: generating " + spec.scale + " needs " +
        HumanBytes(ram) + ", " + HumanBytes(free_ram) + " is available");
  }
  return Status::Ok();
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
  Status Finish(int verdict_code) {
    doc_["finished"] = true;
    doc_["report_exit_code"] = verdict_code;
    return Save();
  }
  Status Save() { return WriteFileAtomic(path_, doc_.dump(2) + "\n"); }

 private:
  std::string path_;
  json doc_;
};

int RunGonogo(GonogoArgs a) {
  auto spec =
      datagen::MakeSpec(a.scale, a.accounts, a.slots, datagen::kDefaultSeed);
  if (!spec.ok()) return Fail(spec.status());
  if (a.backends.empty()) {
    for (const auto& b : DefaultBackends(spec.value())) {
      a.backends += (a.backends.empty() ? "" : ",") + b;
    }
  }
  auto backends = ParseBackendList(a.backends);
  if (!backends.ok()) return Fail(backends.status());
  if (a.dir.empty()) a.dir = "data/" + a.scale;
  json identity = {{"scale", a.scale},
                   {"spec", spec->Canonical()},
                   {"dir", fs::absolute(a.dir).string()},
                   {"backends", a.backends}};
  if (a.out.empty() && !a.fresh)
    a.out = FindUnfinished(a.results_root, identity);
  // Before anything is written: only backends not yet built count.
  if (Status st = CheckResources(spec.value(), a.dir, backends.value());
      !st.ok()) {
    return Fail(st);
  }
  bool resuming = !a.out.empty() && fs::exists(a.out + "/" + kStateFile);
  if (a.out.empty()) a.out = a.results_root + "/" + a.scale + "-" + UtcStamp();
  std::error_code ec;
  fs::create_directories(a.out, ec);
  if (ec) return Fail(Status::IOError(a.out + ": " + ec.message()));
  State state(a.out, identity);
  if (resuming) std::fprintf(stderr, "gonogo: resuming %s\n", a.out.c_str());
  if (Status st = state.Save(); !st.ok()) return Fail(st);

  // gen, verify, bench, report.
  const int phases = 4;
  int phase_no = 0;
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
    int rc = SpawnSelf(args);
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::fprintf(stderr, "== gonogo [%d/%d] %s: exit %d after %.1f s\n",
                 phase_no, phases, phase.c_str(), rc, secs);
    if (rc == 0) {
      Status st = state.Mark(phase);
      if (!st.ok()) return Fail(st);
    }
    return rc;
  };

  std::vector<std::string> gen = {"gen", "--scale",    a.scale,   "--dir",
                                  a.dir, "--backends", a.backends};
  if (a.scale == "custom") {
    gen.insert(gen.end(), {"--accounts", std::to_string(a.accounts),
                           "--slots-per-account", std::to_string(a.slots)});
  }
  if (int rc = run("gen", gen); rc != 0) return rc;
  if (int rc =
          run("verify",
              a.full_verify
                  ? std::vector<std::string>{"verify", "--dir", a.dir,
                                             "--backends", a.backends}
                  : std::vector<std::string>{"verify", "--quick", "--dir",
                                             a.dir, "--backends", a.backends});
      rc != 0) {
    return rc;
  }

  // One bench run over every backend: the schedule interleaves them.
  std::vector<std::string> results = {a.out + "/bench.json"};
  {
    // Warm mode holds every backend's files resident at once; skip it (and
    // say so) where they cannot all fit in the page cache.
    const uint64_t mem = datagen::MemAvailableBytes();
    uint64_t size = 0;
    for (const auto& b : backends.value()) size += DiskBytes(a.dir + "/" + b);
    std::string modes = "warm,cold,cold-lazy";
    if (mem != 0 && size > mem * 7 / 10) {
      modes = "cold,cold-lazy";
      if (!state.Done("bench")) {
        std::fprintf(stderr,
                     "gonogo: the backends' files total %s, more than 70%% "
                     "of available memory (%s): warm mode skipped\n",
                     HumanBytes(size).c_str(), HumanBytes(mem).c_str());
      }
    }
    std::vector<std::string> args = {
        "bench", "--dir",    a.dir,     "--backends", a.backends,
        "--out", results[0], "--force", "--modes",    modes};
    if (!a.threads.empty()) args.insert(args.end(), {"--threads", a.threads});
    if (!a.evict.empty()) args.insert(args.end(), {"--evict", a.evict});
    if (a.reads != 0)
      args.insert(args.end(), {"--reads", std::to_string(a.reads)});
    if (a.repetitions != 0) {
      args.insert(args.end(), {"--repetitions", std::to_string(a.repetitions)});
    }
    if (int rc = run("bench", args); rc != 0) return rc;
  }

  std::vector<std::string> report = {"report"};
  report.insert(report.end(), results.begin(), results.end());
  report.insert(report.end(), {"--out", a.out, "--force"});
  if (!a.thresholds.empty()) {
    report.insert(report.end(), {"--thresholds", a.thresholds});
  }
  // The report phase always runs: it is quick, and its exit code is the
  // verdict (0, 1 or 2), not a failure.
  std::fprintf(stderr, "== gonogo [%d/%d] report\n", phases, phases);
  int verdict = SpawnSelf(report);
  if (verdict > 2) return verdict;
  if (Status st = state.Finish(verdict); !st.ok()) return Fail(st);
  return verdict;
}

}  // namespace

RunFn AddGonogo(CLI::App& app) {
  auto a = std::make_shared<GonogoArgs>();
  CLI::App* sub = app.add_subcommand(
      "gonogo",
      "The whole procedure: gen, verify, bench (every mode, each backend in "
      "its own process) and report, with progress per phase. Resumes an "
      "interrupted run of the same scale and dataset without redoing "
      "finished phases. Checks free disk and RAM first. Exits with the "
      "verdict: 0 GO, 1 NO-GO, 2 INCONCLUSIVE.");
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
  sub->add_option(
      "--backends", a->backends,
      "Comma-separated backends (default: all in this build; fs only "
      "up to smoke scale)");
  sub->add_option("--threads", a->threads, "Thread counts (bench default)");
  sub->add_option("--evict", a->evict,
                  "How cold passes evict (bench default: drop_caches when "
                  "writable, else fadvise)");
  sub->add_option("--reads", a->reads, "Reads per pass (bench default)");
  sub->add_option("--repetitions", a->repetitions,
                  "Cold repetitions (bench default: 3 at smoke, 5 above)");
  sub->add_option("--thresholds", a->thresholds,
                  "Thresholds file (default: the checked-in one)");
  sub->add_flag("--full-verify", a->full_verify,
                "Verify every pair of every backend against the generator "
                "(about 16 min at medium, 8 h at full) instead of the quick "
                "check (counts and sampled lookups)");
  sub->add_flag("--fresh", a->fresh,
                "Start a new results directory instead of resuming");
  return [a] { return RunGonogo(*a); };
}

}  // namespace flatbench::cli
