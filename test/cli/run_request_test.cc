// The run request (bench/run_request.h): its JSON round trip with every
// field, a bad field named, the command line a request starts a child
// bench with (cli/run_options.h), parsed back by bench's own options, which
// gives the same request again (gonogo's and sweep's bench included), and
// the start message that tells a worker its run.
#include "bench/run_request.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/bench_args.h"
#include "cli/command.h"
#include "cli/gonogo_run.h"
#include "cli/run_options.h"

namespace flatbench::cli {
namespace {

using bench::RunRequest;
using nlohmann::json;

// A request whose every field differs from the default. --no-device
// excludes --device-reads on a command line, so `device` picks which.
RunRequest EveryField(bool device) {
  RunRequest r;
  r.dir = "data/x";
  r.backends = {"arena", "arena+pread"};
  r.out = "out.json";
  r.force = r.quiet = true;
  r.modes = {"cold"};
  r.tables = {"storage"};
  r.kinds = {"hit", "scan"};
  r.threads = {2, 4};
  r.reads = 321;
  r.repetitions = 7;
  r.draw_seed = 0x5eed;
  r.evict = "fadvise";
  r.no_device = !device;
  r.device_reads = device ? 99 : 0;
  r.device_profile = "p.json";
  r.thresholds = "t.json";
  r.full_reference = true;
  r.calibration = "none";
  r.results_root = "elsewhere";
  r.scan_length = 17;
  r.scans = 5;
  r.startup_probes = 3;
  r.batch_size = 8;
  r.check_samples = 12;
  r.cache_mib = 64;
  r.write_while_reading = true;
  r.block_rate = 10;
  r.merge_every = 9;
  r.writing_repetitions = 3;
  r.fresh = r.plan = true;
  return r;
}

// `args` (argv[1..], "bench" first) parsed by bench's options.
RunRequest ParsedByBench(const std::vector<std::string>& args) {
  CLI::App app;
  RunRequest r;
  AddRunOptions(app.add_subcommand("bench"), &r, RunCommand::kBench);
  std::vector<const char*> argv = {"flatbench"};
  for (const auto& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return r;
}

TEST_CASE("bench, gonogo and sweep hide no option: roles are messages") {
  CLI::App app;
  const Command commands[] = {AddBench(app), AddGonogo(app), AddSweep(app)};
  for (const Command& c : commands) {
    for (const CLI::Option* o : c.app->get_options()) {
      CAPTURE(c.app->get_name(), o->get_name());
      CHECK_FALSE(o->get_group().empty());
    }
  }
  // Every bench field is an option of bench's.
  for (std::string_view field : bench::RunRequestFields()) {
    CAPTURE(field);
    CHECK(commands[0].app->get_option_no_throw("--" + std::string(field)) !=
          nullptr);
  }
}

TEST_CASE("a run request round-trips through JSON, every field") {
  RunRequest r = EveryField(true);
  r.no_device = true;
  const json j = bench::RunRequestToJson(r);
  const json defaults = bench::RunRequestToJson(RunRequest());
  REQUIRE(j.size() == bench::RunRequestFields().size());
  for (std::string_view f : bench::RunRequestFields()) {
    INFO(f);
    CHECK(j.at(std::string(f)) != defaults.at(std::string(f)));
  }
  auto back = bench::RunRequestFromJson(json::parse(j.dump()));
  REQUIRE(back.ok());
  CHECK(back.value() == r);
  // A field left out keeps its default.
  auto partial = bench::RunRequestFromJson({{"reads", 5}});
  REQUIRE(partial.ok());
  RunRequest expected;
  expected.reads = 5;
  CHECK(partial.value() == expected);
}

TEST_CASE("a bad field of a run request is refused, naming it") {
  auto check = [](const json& j, const std::string& names) {
    auto r = bench::RunRequestFromJson(j);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kUsage);
    CHECK(r.status().message().find(names) != std::string::npos);
  };
  check({{"reads", "many"}}, "field 'reads': \"many\" is not a whole number");
  check({{"repetitions", 1.5}}, "field 'repetitions'");
  check({{"plan-slots", -1}}, "field 'plan-slots'");
  check({{"threads", {1, "two"}}}, "field 'threads'");
  check({{"force", 1}}, "field 'force': 1 is not true or false");
  check({{"reeds", 5}}, "no field 'reeds'");
  check(json::array(), "not a JSON object");
}

TEST_CASE("bench's command line of a request parses back to the request") {
  for (bool device : {true, false}) {
    const RunRequest r = EveryField(device);
    const std::vector<std::string> args = BenchCommandLine(r);
    CHECK(args.front() == "bench");
    CHECK(ParsedByBench(args) == r);
  }
  // The default request: no option at all.
  CHECK(BenchCommandLine(RunRequest()) == std::vector<std::string>{"bench"});
}

TEST_CASE("gonogo's bench phase: its request, and bench parses it back") {
  GonogoArgs a;
  a.scale = "smoke";
  a.dir = "data/smoke";
  a.request.backends = {"arena"};
  a.request.threads = {1, 2};
  a.request.reads = 300;
  a.request.full_reference = true;
  const RunRequest b = BenchOf(a, "r/bench.json");
  // gonogo's own choices: every mode and kind, per-file eviction below the
  // gate's scale, the results replaced.
  CHECK(b.modes == std::vector<std::string>{"warm", "cold", "cold-lazy"});
  CHECK(b.kinds == std::vector<std::string>{"hit", "miss-absent", "miss-live",
                                            "scan", "startup"});
  CHECK(b.evict == "fadvise");
  CHECK(b.force);
  CHECK(b.dir == "data/smoke");
  CHECK(ParsedByBench(BenchCommandLine(b)) == b);
}

TEST_CASE("sweep's bench flags keep their recorded form") {
  // sweep.json records them (bench/SWEEP_FORMAT.md, bench_args) and a rerun
  // compares them, so their words and order are part of the format.
  RunRequest r;
  r.modes = {"cold"};
  r.threads = {1, 8, 32};
  r.evict = "auto";
  r.reads = 20'000;
  r.repetitions = 5;
  CHECK(RequestArgs(r) ==
        std::vector<std::string>{"--modes", "cold", "--threads", "1,8,32",
                                 "--reads", "20000", "--repetitions", "5",
                                 "--evict", "auto"});
  r.no_device = true;
  CHECK(RequestArgs(r).back() == "--no-device");
  r.dir = "d";
  r.out = "o";
  r.backends = {"arena"};
  r.force = true;
  const std::vector<std::string> line = BenchCommandLine(r);
  CHECK(std::vector<std::string>(line.begin(), line.begin() + 8) ==
        std::vector<std::string>{"bench", "--dir", "d", "--backends", "arena",
                                 "--out", "o", "--force"});
  CHECK(ParsedByBench(line) == r);
}

TEST_CASE("the journal records every field that shapes the results") {
  const RunRequest a = EveryField(true);
  bench::RunParameters params;
  params.schedule.backends = {"arena", "lmdb"};
  params.schedule.reads_per_pass = 4'000;
  params.schedule.repetitions = 2;
  params.evict = "drop_caches";
  const RunRequest j = JournalRequest(a, params);
  // As the run resolved them.
  CHECK(j.backends == params.schedule.backends);
  CHECK(j.reads == 4'000);
  CHECK(j.repetitions == 2);
  CHECK(j.evict == "drop_caches");
  // Where the results go and how this invocation runs: at their defaults.
  RunRequest rest = a;
  const RunRequest defaults;
  rest.dir = defaults.dir;
  rest.out = defaults.out;
  rest.force = defaults.force;
  rest.quiet = defaults.quiet;
  rest.calibration = defaults.calibration;
  rest.results_root = defaults.results_root;
  rest.fresh = defaults.fresh;
  rest.plan = defaults.plan;
  rest.backends = j.backends;
  rest.reads = j.reads;
  rest.repetitions = j.repetitions;
  rest.evict = j.evict;
  // Everything else as asked, a field added later included.
  CHECK(j == rest);
}

TEST_CASE("a worker's start message carries the request") {
  const RunRequest a = EveryField(true);
  const json m = WorkerStart(a, "arena", "drop_caches", 1234);
  CHECK(m.at("op") == "start");
  CHECK(m.at("backend") == "arena");
  CHECK(m.at("run_origin_ns") == 1234);
  auto r = bench::RunRequestFromJson(json::parse(m.dump()).at("request"));
  REQUIRE(r.ok());
  RunRequest expected = a;
  expected.evict = "drop_caches";  // As the parent resolved it.
  CHECK(r.value() == expected);
}

}  // namespace
}  // namespace flatbench::cli
