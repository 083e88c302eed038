// gonogo's and sweep's plans: the gen time model and the documents' copy of
// it, the disk figure the documents give for full scale, the backends
// gonogo runs by default at full scale, the plan for another host (a
// device profile), and sweep's size checks before the first size. Every
// command here plans or refuses; none builds a dataset.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench/plan.h"
#include "common/device_profile.h"
#include "datagen/needs.h"
#include "dataset/estimate.h"
#include "flatbench_config.h"
#include "test/crafted_profile.h"
#include "test/doc_table.h"
#include "test/run_command.h"

namespace {

using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
namespace dataset = flatbench::dataset;

const std::vector<std::string> kGated = {"arena", "rocksdb", "lmdb"};

std::string Doc(const std::string& name) {
  std::ifstream in(std::string(FLATBENCH_SOURCE_ROOT) + "/" + name);
  return {std::istreambuf_iterator<char>(in), {}};
}

dataset::Spec Spec(const std::string& scale, uint64_t accounts = 0,
                   uint32_t slots = 4) {
  auto s = dataset::MakeSpec(scale, accounts, slots, dataset::kDefaultSeed);
  REQUIRE(s.ok());
  return s.value();
}

// The text after `label` up to the end of its line.
std::string After(const std::string& text, const std::string& label) {
  const size_t at = text.find(label);
  if (at == std::string::npos) return "";
  const size_t from = at + label.size();
  return text.substr(from, text.find('\n', from) - from);
}

// The last column (the estimate) of bench's plan's total line.
std::string BenchPlanTotal(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.rfind("  total ", 0) == 0 && line.size() >= 14) {
      last = line.substr(line.size() - 14);
      last = last.substr(last.find_first_not_of(' '));
    }
  }
  return last;
}

std::string Rate(double pairs_per_s) {
  return std::to_string(std::lround(pairs_per_s / 1000)) + "k";
}

std::string Share(double p) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%.2f", p);
  return buf;
}

}  // namespace

TEST_CASE("a store's build time at one and two jobs is its measured rate") {
  const dataset::Spec spec = Spec("custom", 3'000'000);
  const double pairs = 3'000'000.0 * 5;
  for (const dataset::BackendFacts* b : dataset::kStoreFacts) {
    const dataset::StoreFigures& f = b->figures;
    const std::string s(b->name);
    CAPTURE(s);
    CHECK(dataset::EstimateBuildSeconds(spec, s, 1) ==
          Approx(f.setup_seconds + pairs / f.pairs_per_second));
    // A store measured slower at two jobs (PostgreSQL's several COPY
    // connections) is modelled at its one-job time: the model takes no
    // parallel share it did not see.
    const double two = std::max(f.pairs_per_second, f.pairs_per_second_2);
    CHECK(dataset::EstimateBuildSeconds(spec, s, 2) ==
          Approx(f.setup_seconds + pairs / two));
    const double p = dataset::ParallelShare(f);
    CHECK(p >= 0);
    CHECK(p <= 1);
    // More jobs never cost more.
    CHECK(dataset::EstimateBuildSeconds(spec, s, 32) <=
          dataset::EstimateBuildSeconds(spec, s, 2));
  }
}

TEST_CASE(
    "a gen's time: the sum at one job, else its work over the cores "
    "or its slowest store") {
  const dataset::Spec spec = Spec("full");
  double sum = 0;
  for (const auto& s : kGated) sum += dataset::EstimateBuildSeconds(spec, s);
  CHECK(dataset::EstimateGenSeconds(spec, kGated, 1, 32) == Approx(sum));
  double before = sum;
  for (unsigned jobs : {2u, 4u, 8u, 32u}) {
    CAPTURE(jobs);
    const double t = dataset::EstimateGenSeconds(spec, kGated, jobs, jobs);
    CHECK(t <= before);
    CHECK(t >= sum / jobs - 1e-6);
    for (const auto& s : kGated) {
      CHECK(t >= dataset::EstimateBuildSeconds(spec, s, jobs) - 1e-6);
    }
    before = t;
  }
  // Jobs beyond the cores add nothing.
  CHECK(dataset::EstimateGenSeconds(spec, kGated, 32, 2) ==
        Approx(dataset::EstimateGenSeconds(spec, kGated, 2, 2)));
}

TEST_CASE("RESEARCH.md's gen rate table is the estimate's") {
  const auto rows = flatbench::testing::MarkdownTable(
      Doc("RESEARCH.md"),
      {"store", "pairs/s, 1 job", "pairs/s, 2 jobs", "2-job rate", "writer",
       "parallel share", "full scale alone, 1 job",
       "full scale alone, 32 jobs"});
  REQUIRE(rows.size() == dataset::kStoreFacts.size());
  const dataset::Spec full = Spec("full");
  size_t i = 0;
  for (const dataset::BackendFacts* b : dataset::kStoreFacts) {
    const dataset::StoreFigures& f = b->figures;
    const std::string s(b->name);
    CAPTURE(s);
    const auto& r = rows[i++];
    REQUIRE(r.size() >= 8);
    CHECK(r[0] == s);
    CHECK(r[1] == Rate(f.pairs_per_second));
    CHECK(r[2] == Rate(f.pairs_per_second_2));
    CHECK(r[3] == (f.two_jobs_measured ? "measured" : "assumed"));
    CHECK(r[4] == (f.one_writer ? "one" : "parallel"));
    CHECK(r[5] == (f.one_writer ? "–" : Share(dataset::ParallelShare(f))));
    CHECK(r[6] == flatbench::bench::FormatDuration(
                      dataset::EstimateBuildSeconds(full, s, 1)));
    CHECK(r[7] == flatbench::bench::FormatDuration(
                      dataset::EstimateBuildSeconds(full, s, 32)));
  }
}

TEST_CASE("the disk gonogo requires at full scale is the documents' figure") {
  const std::string figure = flatbench::datagen::DiskFigure(
      flatbench::datagen::RunDiskBytes(Spec("full"), kGated));
  const std::string gb = figure.substr(0, figure.find(" ("));
  CAPTURE(figure);
  REQUIRE(gb.size() < figure.size());
  const std::string research = Doc("RESEARCH.md");
  const auto rows = flatbench::testing::MarkdownTable(
      research,
      {"need", "arena", "RocksDB", "LMDB", "device scratch", "total"});
  bool found = false;
  for (const auto& r : rows) {
    if (r[0] != "disk `gonogo` requires (+10% margin)") continue;
    found = true;
    CHECK(r.back() == gb);
  }
  CHECK(found);
  CHECK(research.find("at least " + gb + " free") != std::string::npos);
  CHECK(Doc("README.md").find(gb + " free") != std::string::npos);
  // The refusal gives the same figure.
  flatbench::datagen::RunNeeds n;
  n.disk = flatbench::datagen::RunDiskBytes(Spec("full"), kGated);
  n.free_disk = 1ULL << 30;
  flatbench::Status st =
      flatbench::datagen::CheckRunNeeds(n, Spec("full"), "/data");
  CHECK(st.ExitCode() == 73);
  CHECK(st.message().find(figure) != std::string::npos);

  // And gonogo's plan, from an empty directory, with the default backends.
  TempDir tmp;
  auto r = RunFlatbench("gonogo --plan --scale full --dir " + (tmp / "data") +
                        " --evict drop_caches");
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(After(r.err, "disk it needs: ").rfind(figure + " more", 0) == 0);
  CHECK(!std::filesystem::exists(tmp / "data"));
}

TEST_CASE(
    "at full scale gonogo runs the gated backends; reference rows are "
    "priced, not run") {
  TempDir tmp;
  auto r = RunFlatbench("gonogo --plan --scale full --jobs 2 --dir " +
                        (tmp / "data") + " --evict drop_caches");
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  for (const std::string b : {"arena", "rocksdb", "lmdb"}) {
    CHECK(r.err.find("\n  " + b + " ") != std::string::npos);
  }
  CHECK(r.err.find("\n  arena+cache ") != std::string::npos);
  // A reference row this build holds is in the table, marked as not run;
  // the bench plan (its "bench plan:" line) measures four backends.
  for (const std::string ref : {"postgres", "sqlite"}) {
    if (r.err.find("\n  " + ref) == std::string::npos) continue;
    CHECK(r.err.find("\n  " + ref + " *") != std::string::npos);
  }
  CHECK(r.err.find("\n  fs") == std::string::npos);  // Not buildable.
  CHECK(r.err.find("(full scale), 4 backends") != std::string::npos);
  CHECK(
      After(r.err, "[1/4] gen: ").rfind("arena,rocksdb,lmdb with 2 jobs", 0) ==
      0);
  // gonogo's bench figure is the plan bench prints.
  CHECK(After(r.err, "    bench about ") == BenchPlanTotal(r.err));
  CHECK(After(r.err, "    gen about ")
            .rfind(flatbench::bench::FormatDuration(
                       dataset::EstimateGenSeconds(Spec("full"), kGated, 2, 2)),
                   0) == 0);

  // Named, a reference row is in the run.
  auto named = RunFlatbench(
      "gonogo --plan --scale full --jobs 2 --backends "
      "arena,rocksdb,lmdb,sqlite --dir " +
      (tmp / "data") + " --evict drop_caches");
  CAPTURE(named.err);
  REQUIRE(named.exit_code == 0);
  if (named.err.find("\n  sqlite") != std::string::npos) {
    CHECK(named.err.find("\n  sqlite *") == std::string::npos);
    CHECK(
        After(named.err, "[1/4] gen: ").rfind("arena,rocksdb,lmdb,sqlite", 0) ==
        0);
  }
}

TEST_CASE("gonogo --plan --shape aged prices the age phase") {
  TempDir tmp;
  auto r = RunFlatbench(
      "gonogo --plan --scale full --jobs 2 --shape aged "
      "--dir " +
      (tmp / "data") + " --evict drop_caches");
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(
      After(r.err, "[1/5] gen: ").rfind("arena,rocksdb,lmdb with 2 jobs", 0) ==
      0);
  // The default stream is the steady state's: at full scale LMDB's term
  // decides, half of the 1.2e9 slots inserted at 460 new slots a block
  // (23% of 2,000 changes). Changes for 11% of the pairs take 82,500.
  const dataset::StreamSpec stream;
  CHECK(dataset::TenPercentBlocks(Spec("full"), stream) == 82'500);
  const uint64_t blocks = 1'304'348;
  CHECK(dataset::SteadyStateBlocks(Spec("full"), stream) == blocks);
  // A day of chain, the most the default interval takes.
  CHECK(dataset::DefaultMergeEvery(Spec("full"), stream) == 7200);
  double age = 0;
  for (const std::string& s : kGated) {
    age += dataset::EstimateAgeSeconds(Spec("full"), s, blocks, 2000, 7200, 2);
  }
  CHECK(After(r.err, "[2/5] age: ")
            .rfind("1304348 blocks through every store's write path, about " +
                       flatbench::bench::FormatDuration(age),
                   0) == 0);
  CHECK(r.err.find("the arena merges every 7200 blocks (182 merges)") !=
        std::string::npos);
  CHECK(r.err.find("[3/5] verify") != std::string::npos);
  CHECK(r.err.find("[5/5] report") != std::string::npos);
}

TEST_CASE("gonogo --plan --device-profile plans for that host") {
  TempDir tmp;
  const std::string profile = tmp / "nvme32.json";
  std::ofstream(profile) << flatbench::testing::CraftedNvmeProfile().dump();
  auto r = RunFlatbench("gonogo --plan --scale full --dir " + (tmp / "data") +
                        " --evict drop_caches --device-profile " + profile);
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("on the host of device profile " + profile + " (32 cpus") !=
        std::string::npos);
  CHECK(r.err.find("with 32 jobs") != std::string::npos);
  CHECK(r.err.find("measured: that host's cpus (32) and 4 KiB reads/s at "
                   "depth 1 (12500) and 32 (320000)") != std::string::npos);
  CHECK(r.err.find("assumed: Amdahl's law") != std::string::npos);
  // Another host's plan takes nothing from this one's results.
  CHECK(r.err.find("the estimate is the built-in cost model") !=
        std::string::npos);
  CHECK(After(r.err, "    gen about ")
            .rfind(flatbench::bench::FormatDuration(dataset::EstimateGenSeconds(
                       Spec("full"), kGated, 32, 32)),
                   0) == 0);
  CHECK(After(r.err, "    bench about ") == BenchPlanTotal(r.err));

  // RESEARCH.md section 6 gives the same figures for such a host.
  const auto rows = flatbench::testing::MarkdownTable(
      Doc("RESEARCH.md"), {"host", "jobs", "gen", "bench", "total"});
  bool found = false;
  for (const auto& row : rows) {
    if (row[0].find("32-thread NVMe") == std::string::npos) continue;
    found = true;
    CHECK(row[1] == "32");
    CHECK(After(r.err, "    gen about ").rfind(row[2], 0) == 0);
    CHECK(After(r.err, "    bench about ") == row[3]);
    CHECK(After(r.err, "    total about ").rfind(row[4], 0) == 0);
  }
  CHECK(found);

  // A profile that is not there is refused before anything.
  auto missing =
      RunFlatbench("gonogo --plan --scale tiny --dir " + (tmp / "d2") +
                   " --device-profile " + (tmp / "none.json"));
  CHECK(missing.exit_code == 66);
  CHECK(missing.err.find("none.json") != std::string::npos);
}

TEST_CASE("the device profile prices cold reads on that host") {
  auto p = flatbench::ParseDeviceProfile(
      flatbench::testing::CraftedNvmeProfile(), "crafted");
  REQUIRE(p.ok());
  const flatbench::bench::HostCost h =
      flatbench::bench::HostCostFromProfile(p.value(), {});
  CHECK(h.cores == 32);
  // 4 KiB reads at 80, 90 and 100 us at depths 1, 8 and 32.
  CHECK(h.ReadsPerS(1) == Approx(1 / 80e-6));
  CHECK(h.ReadsPerS(8) == Approx(8 / 90e-6));
  CHECK(h.ReadsPerS(32) == Approx(32 / 100e-6));
  // Between them the latency runs linearly in log2(depth): depth 16 is
  // halfway from 8 to 32, at 95 us. Beyond them, the nearest depth's rate.
  CHECK(h.ReadsPerS(16) == Approx(16 / 95e-6));
  CHECK(h.ReadsPerS(64) == Approx(32 / 100e-6));
  CHECK(h.ReadsPerS(0.5) == Approx(1 / 80e-6));
}

TEST_CASE("sweep checks every size against every backend's limit first") {
  TempDir tmp;
  const std::string sweep = "sweep --accounts 100000,200000,400000 --dir " +
                            (tmp / "sw") +
                            " --threads 1 --reads 100 --repetitions 1 "
                            "--no-device --max-hours 1000";
  // Default backends: those buildable at every size; the fs store (one file
  // per key, up to 600,000 pairs) is left out, and the plan starts.
  auto plan = RunFlatbench(sweep + " --plan");
  CAPTURE(plan.err);
  CHECK(plan.exit_code == 0);
  std::string backends = After(plan.err, "sweep plan: ");
  backends = backends.substr(0, backends.find(" ("));
  CHECK(backends.find("arena") != std::string::npos);
  CHECK(backends.find("arena+cache") != std::string::npos);  // Beside it.
  CHECK(backends.find("fs,") == std::string::npos);
  CHECK(backends.find(",fs") == std::string::npos);
  CHECK(!std::filesystem::exists(tmp / "sw/sweep.json"));

  // Named, a store one size is above the limit of is refused before the
  // first size: 64, one line naming it and the size. A build without the
  // fs store (the arena-only trees) has no such store to name.
  if (!FLATBENCH_HAVE_FS) return;
  for (const std::string extra : {" --plan", ""}) {
    auto r = RunFlatbench(sweep + " --backends arena,fs" + extra);
    CAPTURE(extra, r.err);
    CHECK(r.exit_code == 64);
    CHECK(flatbench::testing::Lines(r.err) == 1);
    CHECK(r.err.find("--backends fs") != std::string::npos);
    CHECK(r.err.find("200000 accounts") != std::string::npos);
    CHECK(!std::filesystem::exists(tmp / "sw/sweep.json"));
    CHECK(!std::filesystem::exists(tmp / "sw/data-100000"));
  }
}
