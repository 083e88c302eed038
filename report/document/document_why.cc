// "Why this verdict": per judged read path, its verdict line and one
// bullet per failed gate and per check that did not pass clear of its
// bound (within noise, failing, without a figure, beyond the device's
// limit or above its ceiling), so no paragraph restates the tables.
#include "report/document/document_parts.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

std::string WhyThreads(int threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// "arena/rocksdb cold hit reads/s for account hit at 1 thread: 0.523
// [0.300, 0.950], needs ≥ 1.800".
std::string CheckFigures(const RatioCheck& c) {
  std::string out = c.threshold.name + " for " + c.candidate.table + " " +
                    c.candidate.kind + " at " + WhyThreads(c.candidate.threads);
  if (!c.available) return out + ": no figure (a cell is missing)";
  return out + ": " + Ratio(c.ratio) + " [" + Ratio(c.interval.low) + ", " +
         Ratio(c.interval.high) + "], needs " +
         (c.threshold.HigherIsBetter() ? "≥ " : "≤ ") +
         Ratio(c.threshold.bound);
}

// One bullet for a check that did not pass clear of its bound, or "".
std::string CheckBullet(const RatioCheck& c, bool provisional) {
  std::string what;
  if (!c.available) {
    what = "neither passes nor fails";
  } else if (c.within_noise) {
    what = std::string(
               "within noise: the interval contains the bound (the "
               "median ") +
           (c.passed ? "passes)" : "fails)");
  } else if (!c.passed) {
    what = "fails clear of its bound";
  }
  if (what.empty() && c.ceiling.held) return "";
  if (what.empty()) what = "passes";
  if (provisional) what += " (provisional)";
  if (c.ceiling.beyond) {
    what += "; beyond this device's limit for any one-page format, " +
            CeilingSummary(c.ceiling);
  }
  if (!c.ceiling.held) {
    what += "; the one-page ceiling did not hold, " +
            CeilingSummary(c.ceiling) +
            " lies below the measured ratio, so it is no limit here";
  }
  return CheckFigures(c) + ", " + what + ".";
}

// The bullets of one read path: failed gates, then checks.
std::vector<std::string> Bullets(const Verdict& v) {
  std::vector<std::string> out;
  for (const Gate* g : v.FailedGates()) {
    out.push_back("Validity gate " + g->name + " failed: " + g->figure + ".");
  }
  int clear = 0;
  const RatioCheck* closest = nullptr;
  for (const auto& c : v.checks) {
    std::string bullet = CheckBullet(c, !v.Valid());
    if (bullet.empty()) {
      ++clear;
      if (closest == nullptr || c.Margin() < closest->Margin()) closest = &c;
      continue;
    }
    out.push_back(std::move(bullet));
  }
  if (clear > 0) {
    out.push_back(std::to_string(clear) + " of " +
                  std::to_string(v.checks.size()) +
                  " checks pass clear of their bounds" +
                  (v.Valid() ? "" : " (provisional)") +
                  "; the closest: " + CheckFigures(*closest) + ".");
  }
  return out;
}

}  // namespace

Section WhySection(const Verdict& v) {
  Section s{kWhyTitle, {}, kWhyAnchor};
  if (!v.variants.empty()) {
    s.blocks.push_back(Paragraph(
        "Every read path of " + v.thresholds.candidate +
        " in the results is judged by the same thresholds, one line each in "
        "the card above. " +
        CandidateLabel(v.thresholds.candidate) +
        ", the seed's design, comes first and alone sets the verdict and the "
        "exit code; the other read paths read the same files another way "
        "and say whether a failure belongs to the format or to its read "
        "path."));
  }
  const std::vector<std::string> lines = VerdictLines(v);
  std::vector<const Verdict*> paths = {&v};
  for (const auto& variant : v.variants) paths.push_back(&variant);
  for (size_t i = 0; i < paths.size() && i < lines.size(); ++i) {
    s.blocks.push_back(Paragraph(lines[i] + "."));
    Block bullets = List(Bullets(*paths[i]));
    bullets.fold = "Each gate and check of " +
                   CandidateLabel(paths[i]->thresholds.candidate) + " (" +
                   std::to_string(bullets.items.size()) + ")";
    s.blocks.push_back(std::move(bullets));
  }
  s.blocks.push_back(
      Paragraph("Thresholds: " + v.thresholds.source + ", XXH3-64 " +
                v.thresholds.digest + "; applied to " + v.thresholds.gate_mode +
                " mode at " + v.thresholds.gate_scale +
                " scale, medians over the repetitions of each cell."));
  s.blocks.push_back(Paragraph(
      "A check is within noise when the " + Percent(kConfidence) +
      " percentile bootstrap interval of its ratio of medians (" +
      std::to_string(kResamples) +
      " resamples of each backend's repetitions, fixed seed) contains its "
      "bound; on a valid run one check failing with its interval clear of "
      "its bound makes the verdict NO-GO, otherwise a check within noise "
      "makes it INCONCLUSIVE."));
  return s;
}

}  // namespace flatbench::report
