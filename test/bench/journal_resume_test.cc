// The driver resuming a run from its journal after its worker died: only
// the steps missing run again, a batch pass among them, which takes its
// device rate from the journal.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "bench/journal.h"
#include "bench/run.h"
#include "common/results_ops.h"
#include "common/results_schema.h"
#include "test/bench/journal_fixture.h"
#include "test/bench/local_channel.h"
#include "test/bench/tiny_dataset.h"
#include "test/temp_dir.h"

namespace flatbench::bench {
namespace {

using journal_fixture::Header;
using nlohmann::json;

// A channel whose worker dies (a transport error, as a killed worker
// process gives) at its `die_at`-th step request.
class DyingChannel : public WorkerChannel {
 public:
  DyingChannel(std::unique_ptr<Worker> w, int die_at)
      : inner_(std::move(w)), die_at_(die_at) {}
  Result<json> Call(const json& request) override {
    if (request.value("op", "") == "step" && ++steps_ == die_at_) {
      return Status::ChildFailed("worker killed by signal 9");
    }
    return inner_.Call(request);
  }

 private:
  LocalChannel inner_;
  int die_at_;
  int steps_ = 0;
};

// The tiny dataset's arena worker, dying at its `die_at`-th step.
std::unique_ptr<DyingChannel> DyingArena(const datagen::Dataset& ds,
                                         int die_at) {
  WorkerOptions wo;
  wo.allow_drop_caches = false;
  wo.check.samples = 20;
  return std::make_unique<DyingChannel>(
      std::make_unique<Worker>(ds, "arena", testing::TinyOpener(ds), wo),
      die_at);
}

// A cold run of the arena's account table, journalled at `path` and
// started now; each test adds its kinds, threads and sizes.
RunOptions ColdArenaRun(const std::string& path) {
  RunOptions ro;
  ro.schedule.backends = {"arena"};
  ro.schedule.modes = {Mode::kCold};
  ro.schedule.tables = {Table::kAccount};
  ro.schedule.draw_seed = kDefaultDrawSeed;
  ro.progress = false;
  ro.journal_path = path;
  ro.journal_header = Header();
  ro.journal_header.started = WallNow();
  ro.session_wall = ro.journal_header.started;
  return ro;
}

std::set<std::string> Names(const json& doc) {
  std::set<std::string> out;
  for (const auto& e : doc["benchmarks"]) out.insert(e["name"]);
  return out;
}

TEST_CASE("a run whose worker died resumes only the steps it lacks",
          "[bench][journal]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  RunOptions ro = ColdArenaRun(path);
  ro.schedule.kinds = {datagen::KeyKind::kHit, datagen::KeyKind::kMissAbsent};
  ro.schedule.threads = {1};
  ro.schedule.repetitions = 2;
  ro.schedule.reads_per_pass = 50;
  auto channel = [&](int die_at) { return DyingArena(ds.value(), die_at); };
  // 2 repetitions x 2 kinds: 4 steps; the worker dies in the third.
  auto first_ch = channel(3);
  auto first =
      RunMatrix(ds.value(), ro, {{"arena", first_ch.get()}}, json::object());
  REQUIRE(first.ok());
  CHECK_FALSE(first->first_error.ok());
  CHECK(first->steps == 4);
  CHECK(first->steps_missing == 2);

  auto state = ReadJournal(path);
  REQUIRE(state.ok());
  CHECK(state->passes.size() == 2);
  ro.resume = &state.value();
  ro.session_wall = state->last + 60;
  auto second_ch = channel(0);
  auto second =
      RunMatrix(ds.value(), ro, {{"arena", second_ch.get()}}, json::object());
  REQUIRE(second.ok());
  REQUIRE(second->first_error.ok());
  CHECK(second->steps_missing == 0);
  const json& doc = second->document;
  // The same passes an uninterrupted run has, in schedule positions.
  auto whole_ch = channel(0);
  RunOptions plain = ro;
  plain.resume = nullptr;
  plain.journal_path.clear();
  auto whole =
      RunMatrix(ds.value(), plain, {{"arena", whole_ch.get()}}, json::object());
  REQUIRE(whole.ok());
  CHECK(Names(doc) == Names(whole->document));
  CHECK(doc["benchmarks"].size() == whole->document["benchmarks"].size());
  std::set<double> orders;
  int marked = 0;
  for (const auto& e : doc["benchmarks"]) {
    orders.insert(e[std::string(results::kPassOrder.name)].get<double>());
    const std::string gap(results::kInterruptedBeforeS.name);
    if (e.contains(gap)) {
      ++marked;
      CHECK(e[gap].get<double>() == Approx(60));
      // The pass it resumed at starts after the gap.
      CHECK(e[std::string(results::kPassStartS.name)].get<double>() >= 60);
    }
  }
  CHECK(orders.size() == doc["benchmarks"].size());
  CHECK(marked == 1);
  CHECK(doc["context"][std::string(results::kInterruptions.name)] == 1);
  CHECK(doc["context"][std::string(results::kInterruptionLog.name)]
            .get<std::string>()
            .find("at pass 3 of 4") != std::string::npos);
  CHECK(whole->document["context"][std::string(results::kInterruptions.name)] ==
        0);
  // The journal holds every step now, each once.
  auto after = ReadJournal(path);
  REQUIRE(after.ok());
  CHECK(after->passes.size() == 4);
  CHECK(after->interruptions.size() == 1);
}

TEST_CASE("a resumed batch pass takes its device rate from the journal",
          "[bench][journal][batch]") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  RunOptions ro = ColdArenaRun(path);
  REQUIRE(ParseKinds({"hit", "batch"}, &ro.schedule).ok());
  // The hit pass at 4 threads measures the device at depth 4, the batch
  // size: each repetition's batch step takes its rate from that step.
  ro.schedule.threads = {4};
  ro.schedule.batch_threads = {1};
  ro.schedule.batch_size = 4;
  ro.schedule.repetitions = 2;
  ro.schedule.reads_per_pass = 40;
  ro.schedule.device_reads = 16;
  auto channel = [&](int die_at) { return DyingArena(ds.value(), die_at); };
  // 2 repetitions x (hit, batch): 4 steps; the worker dies in the last.
  auto first_ch = channel(4);
  auto first =
      RunMatrix(ds.value(), ro, {{"arena", first_ch.get()}}, json::object());
  REQUIRE(first.ok());
  CHECK(first->steps == 4);
  CHECK(first->steps_missing == 1);
  auto state = ReadJournal(path);
  REQUIRE(state.ok());
  REQUIRE(state->header.schedule.size() == 1);
  int batch_steps = 0;
  for (const Step& s : state->header.schedule[0].steps) {
    if (s.cell.op != Op::kBatch) continue;
    ++batch_steps;
    CHECK(s.batch_size == 4);
    CHECK(s.device_reads_per_thread == 0);  // The hit pass measures it.
  }
  CHECK(batch_steps == 2);

  ro.resume = &state.value();
  ro.session_wall = state->last + 5;
  auto second_ch = channel(0);
  auto second =
      RunMatrix(ds.value(), ro, {{"arena", second_ch.get()}}, json::object());
  REQUIRE(second.ok());
  REQUIRE(second->first_error.ok());
  CHECK(second->steps_missing == 0);
  const json& doc = second->document;
  std::map<std::string, const json*> by_name;
  for (const auto& e : doc["benchmarks"]) by_name[e["name"]] = &e;
  const std::string batch = "arena/account/batch/cold/threads:1/rep:1";
  REQUIRE(by_name.count(batch));
  const json& b = *by_name.at(batch);
  CHECK(b[std::string(results::kBatchSize.name)] == 4);
  CHECK(b.contains(std::string(results::kInterruptedBeforeS.name)));
  const std::string device = "arena/account/device/cold/threads:4/rep:1";
  const std::string rate(results::kBatchDeviceReadsPerS.name);
  if (by_name.count(device)) {
    // Measured by the first session, read back from the journal.
    REQUIRE(b.contains(rate));
    CHECK(b[rate] == (*by_name.at(device))["reads_per_s"]);
    CHECK(b[std::string(results::kBatchIoEfficiency.name)].get<double>() ==
          Approx(b[std::string(results::kKeysPerS.name)].get<double>() /
                 b[rate].get<double>()));
  } else {
    CHECK_FALSE(b.contains(rate));  // No O_DIRECT here: no device cells.
  }
}

}  // namespace
}  // namespace flatbench::bench
