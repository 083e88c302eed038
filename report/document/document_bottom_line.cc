// The bottom line: a box under the badge that a decision-maker can read
// alone. Every sentence comes from the run's figures: the decision, what
// the numbers say per judged read path, the one thing that limits the
// result when a figure shows it (the scale first, then the host, then the
// device), and the next step as a command.
#include <algorithm>
#include <cmath>

#include "common/results_schema.h"
#include "report/device_class.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

std::string Plural(size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string NeedsText(const RatioThreshold& th) {
  return (th.HigherIsBetter() ? "≥ " : "≤ ") + Ratio(th.bound);
}

int MostThreads(const Thresholds& t) {
  return t.threads.empty()
             ? 0
             : *std::max_element(t.threads.begin(), t.threads.end());
}

const Gate* FailedGate(const Verdict& v, const std::string& name) {
  for (const Gate* g : v.FailedGates()) {
    if (g->name == name) return g;
  }
  return nullptr;
}

std::string Decision(const Verdict& v) {
  const std::string label = CandidateLabel(v.thresholds.candidate);
  const std::string n = std::to_string(v.checks.size());
  if (v.outcome == Outcome::kGo) {
    return "GO: the run is valid and " + label + " passes all " + n +
           " checks clear of their bounds, so these numbers support moving "
           "the base tier to the arena.";
  }
  if (v.outcome == Outcome::kNoGo) {
    const auto failed = v.ClearlyFailedChecks();
    const RatioCheck* worst = failed.front();
    for (const RatioCheck* c : failed) {
      if (c->Margin() < worst->Margin()) worst = c;
    }
    return "NO-GO: the run is valid and " + label + " fails " +
           std::to_string(failed.size()) + " of " + n +
           " checks clear of their bounds (the furthest: " +
           worst->candidate.table + " " + worst->candidate.kind + " at " +
           Plural(worst->candidate.threads, "thread", "threads") + " against " +
           worst->threshold.baseline + ", " + Ratio(worst->ratio) + " where " +
           NeedsText(worst->threshold) +
           " is needed), so these numbers do not support moving the base "
           "tier to the arena.";
  }
  if (!v.Valid()) {
    std::string names;
    for (const Gate* g : v.FailedGates()) {
      names += (names.empty() ? "" : ", ") + g->name;
    }
    return "Not decided: the run is not valid evidence, because " +
           Plural(v.FailedGates().size(), "validity gate", "validity gates") +
           " failed (" + names + "), so every figure below is provisional.";
  }
  return "Not decided: the run is valid, but " +
         std::to_string(v.NoisyChecks().size()) + " of " + n +
         " checks are within noise (their 95% intervals contain the bound) "
         "and none fails clearly.";
}

// "against rocksdb 2 of 6 pass, 3 within noise, 1 fails (ratios 0.52–2.03,
// needs ≥ 1.800)" for the checks of one threshold.
std::string GroupText(const Verdict& v, const RatioThreshold& th) {
  size_t all = 0, pass = 0, noise = 0, fail = 0, missing = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& c : v.checks) {
    if (c.threshold.name != th.name) continue;
    ++all;
    if (!c.available) {
      ++missing;
      continue;
    }
    lo = std::min(lo, c.ratio);
    hi = std::max(hi, c.ratio);
    noise += c.within_noise ? 1 : 0;
    pass += c.passed && !c.within_noise ? 1 : 0;
    fail += c.ClearlyFailed() ? 1 : 0;
  }
  const bool hit = th.metric == Metric::kHitReadsPerS;
  if (missing == all) {
    return (hit ? "against " : "misses against ") + th.baseline +
           ", no figure for any of its " + std::to_string(all) +
           " checks (needs " + NeedsText(th) + ")";
  }
  std::string out = (hit ? "against " : "misses against ") + th.baseline +
                    ", " + std::to_string(pass) + " of " + std::to_string(all) +
                    (hit ? " hit checks pass" : " pass");
  if (noise > 0) out += ", " + std::to_string(noise) + " within noise";
  if (fail > 0)
    out += ", " + std::to_string(fail) + (fail == 1 ? " fails" : " fail");
  if (missing > 0) out += ", " + std::to_string(missing) + " without a figure";
  const std::string range =
      std::isfinite(lo) ? (lo == hi ? Ratio(lo) : Ratio(lo) + "–" + Ratio(hi))
                        : "–";
  return out + " (" + (hit ? "ratio " : "cost ratio ") + range + ", needs " +
         NeedsText(th) + ")";
}

std::string PathText(const Verdict& p, bool provisional) {
  std::string out = CandidateLabel(p.thresholds.candidate) +
                    (provisional ? ", provisionally: " : ": ");
  for (size_t i = 0; i < p.thresholds.checks.size(); ++i) {
    out += (i == 0 ? "" : "; ") + GroupText(p, p.thresholds.checks[i]);
  }
  return out + ".";
}

std::string Limit(const Verdict& v, const ResultSet& res) {
  const Thresholds& t = v.thresholds;
  if (const Gate* g = FailedGate(v, "gate scale")) {
    if (res.scale() == t.gate_scale) {
      return "What limits it: the scale. The dataset does not show " +
             t.gate_scale + " scale's counts and sizes (" + g->figure + ").";
    }
    const auto accounts = res.Integer(r::kDatasetAccounts.name);
    const auto slots = res.Integer(r::kDatasetSlotsPerAccount.name);
    return "What limits it: the scale. This run is at " + res.scale() +
           " scale (" +
           (accounts ? Count(static_cast<double>(*accounts)) : "?") +
           " accounts × " + (slots ? std::to_string(*slots) : "?") +
           " slots); the thresholds apply at " + t.gate_scale +
           " scale, where the data is far larger than RAM, so ratios "
           "measured here do not predict the answer there.";
  }
  if (FailedGate(v, "host hardware threads")) {
    const auto hw = res.Integer(r::kHardwareThreads.name);
    return "What limits it: the host. It has " +
           (hw ? std::to_string(*hw) : std::string("an unknown number of")) +
           " hardware threads, fewer than the " +
           std::to_string(MostThreads(t)) +
           " reader threads of the largest cells, so those cells time-share "
           "cores and understate every backend.";
  }
  const auto beyond = v.BeyondCeiling();
  if (!beyond.empty()) {
    return "What limits it: the device. " + std::to_string(beyond.size()) +
           " of " + std::to_string(v.checks.size()) +
           " checks are beyond its limit for any one-page format: their bound "
           "lies above the ratio that one 4 KiB read per hit would reach at "
           "these files' device rates, so no format could pass them here.";
  }
  for (const char* name : {"storage uniformity", "device drift"}) {
    if (const Gate* g = FailedGate(v, name)) {
      return "What limits it: the storage. It did not serve every backend's "
             "files alike (" +
             g->name + ": " + g->figure +
             "), so the ratios mix the format with the device.";
    }
  }
  return "";
}

// The command that fixes the first failed gate of a run at the gate scale.
std::string FixGate(const Verdict& v, const ResultSet& res, const Gate& g) {
  const std::string full = "--scale " + v.thresholds.gate_scale;
  if (g.name == "release build" || g.name == "asserts off") {
    return "Next: `./flatbench.sh gonogo " + full +
           " --fresh`, which builds in release with asserts off.";
  }
  if (g.name == "repetitions") {
    return "Next: `./flatbench.sh gonogo " + full + " --repetitions " +
           std::to_string(v.thresholds.min_repetitions) + " --fresh`.";
  }
  if (g.name == "eviction verified") {
    return "Next: as root on a real filesystem, so that eviction can be "
           "verified, `sudo ./flatbench.sh gonogo " +
           full + " --fresh`.";
  }
  if (g.name == "sanity checks passed") {
    const std::string dir = res.Context(r::kDatasetDir);
    return "Next: check the data before another run: `./build/cli/flatbench "
           "verify --dir " +
           (dir.empty() ? "DIR" : dir) + "`.";
  }
  if (g.name == "concurrency" || g.name == "storage uniformity" ||
      g.name == "device drift") {
    return "Next: on a quiet host with local storage (RESEARCH.md §8a), "
           "`./flatbench.sh gonogo " +
           full + " --fresh`.";
  }
  return "Next: the whole matrix, without flags that leave backends, tables "
         "or thread counts out: `./flatbench.sh gonogo " +
         full + " --fresh`.";
}

const char kProfileStep[] =
    "profile the storage your nodes use with `./build/cli/flatbench device "
    "--dir DIR --out P.json`, then plan the run there with "
    "`./flatbench.sh gonogo --plan --scale ";

std::string NextStep(const Verdict& v, const ResultSet& res) {
  const Thresholds& t = v.thresholds;
  const std::string most = std::to_string(MostThreads(t));
  if (FailedGate(v, "gate scale") && res.scale() != t.gate_scale) {
    return "Next: on a host with at least " + most +
           " hardware threads, `./flatbench.sh gonogo --plan --scale " +
           t.gate_scale +
           "` prints the disk, RAM and time the run needs; then run it "
           "without `--plan`.";
  }
  if (FailedGate(v, "host hardware threads")) {
    return "Next: on a host with at least " + most +
           " hardware threads, `./flatbench.sh gonogo --plan --scale " +
           t.gate_scale + "`, then the same without `--plan`.";
  }
  if (!v.Valid()) return FixGate(v, res, *v.FailedGates().front());
  if (v.outcome == Outcome::kInconclusive) {
    return "Next: more repetitions narrow the intervals: `./flatbench.sh "
           "gonogo --scale " +
           t.gate_scale + " --repetitions " +
           std::to_string(2 * t.min_repetitions) + " --fresh`.";
  }
  if (v.outcome == Outcome::kNoGo && v.BeyondCeiling().empty()) {
    return "Next: compare every read path of the arena on the same files: "
           "`./flatbench.sh gonogo --scale " +
           t.gate_scale +
           " --backends arena,arena+cache,arena+direct,arena+pread,rocksdb,"
           "lmdb`.";
  }
  if (v.outcome == Outcome::kNoGo) {
    return "Next: the device limits the failing checks, so " +
           std::string(kProfileStep) + t.gate_scale +
           " --device-profile P.json`.";
  }
  bool aged = false;
  for (const auto& [backend, shape] : res.shapes) {
    aged = aged || shape.value("kind", "") == "aged";
  }
  if (!aged) {
    return "Next: confirm it on the shape a running node's stores have: "
           "`./flatbench.sh gonogo --scale " +
           t.gate_scale + " --shape aged`.";
  }
  return "Next: " + std::string(kProfileStep) + t.gate_scale +
         " --device-profile P.json`.";
}

// What the device class means for the next step: a slow disk's waits hide
// the CPU per read that decides on fast storage, and the reverse.
std::string DeviceStep(const DeviceClassReading& d) {
  switch (d.device_class) {
    case DeviceClass::kNvme:
      return " On this NVMe-class storage the CPU per read decides; for a "
             "slower disk's answer, `./build/cli/flatbench report SWEEP.json "
             "--device-profile SLOW.json --measured SLOW_BENCH.json --out "
             "DIR`.";
    case DeviceClass::kSata:
    case DeviceClass::kNetwork:
      return " This disk's waits hide the CPU per read, which decides on "
             "NVMe-class storage; for its answer, `./build/cli/flatbench "
             "report SWEEP.json --device-profile FAST.json --measured "
             "FAST_BENCH.json --out DIR`.";
    case DeviceClass::kUnknown:
      break;
  }
  return " No device class: bench with `--device-profile P.json` from "
         "`./build/cli/flatbench device --dir DIR --out P.json`.";
}

}  // namespace

BottomLine BottomLineOf(const Verdict& v, const ResultSet& res) {
  BottomLine b;
  const DeviceClassReading device = DeviceClassOfRun(res);
  b.decision = Decision(v) +
               " It is for this run's device: " + DeviceClassText(device) + ".";
  b.paths.push_back(PathText(v, !v.Valid()));
  for (const auto& variant : v.variants) {
    b.paths.push_back(PathText(variant, !variant.Valid()));
  }
  b.limit = Limit(v, res);
  b.next = NextStep(v, res) + DeviceStep(device);
  return b;
}

Block BottomLineBlock(const Verdict& v, const ResultSet& res) {
  const BottomLine b = BottomLineOf(v, res);
  Block box;
  box.kind = Block::Kind::kBox;
  box.text = "The bottom line";
  box.items.push_back(b.decision);
  box.items.insert(box.items.end(), b.paths.begin(), b.paths.end());
  if (!b.limit.empty()) box.items.push_back(b.limit);
  box.items.push_back(b.next);
  return box;
}

}  // namespace flatbench::report
