// The PostgreSQL reference backend against a real server: round trips,
// misses, pages, reuse of the cluster, a killed server, a leftover server,
// an interrupted load; and no server of the test's folders left running.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "backends/table.h"
#include "baselines/postgres_conn.h"
#include "baselines/postgres_copy.h"
#include "baselines/postgres_server.h"
#include "datagen/check.h"
#include "datagen/dataset_dir.h"
#include "test/baselines/postgres_test_util.h"
#include "test/datagen/collect_sink.h"
#include "test/temp_dir.h"
#include "test/wait_until.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
namespace fs = std::filesystem;

using namespace flatbench::pg_test;

namespace {

// The servers an open started: their pids and start times (a pid reused by
// a later process is told apart by its start time).
struct PgServerSet {
  std::vector<int> pids;
  std::vector<std::string> started;
};

// The cold open reads the primary keys' internal pages; a lazy one (on
// reopening) reads none.
void CheckColdOpenPreloads(const Backend& b) {
  bool preload_described = false;
  for (const auto& [k, v] : b.Describe()) {
    if (k == "preload") {
      preload_described = v.find("internal pages") != std::string::npos &&
                          v.find(": 0 pages") == std::string::npos;
    }
  }
  CHECK(preload_described);
}

PgServerSet RecordServers(const Backend& b) {
  PgServerSet servers;
  servers.pids = b.ServerProcesses();
  REQUIRE(servers.pids.size() >= 2);  // The postmaster and its children.
  for (int pid : servers.pids) {
    servers.started.push_back(StartTime(pid));
    CHECK_FALSE(servers.started.back().empty());
  }
  return servers;
}

// Pages from existing keys, from absent keys between them, and at the end
// of the table, against the model's order.
void CheckPagesAgainstModel(ReadSession& session, Table table, const Pairs& m) {
  for (size_t at :
       {size_t{0}, size_t{1}, m.size() / 3, m.size() - 40, m.size() - 1}) {
    std::string absent = m[at].first;
    absent.back() = static_cast<char>(absent.back() + 1);
    for (const std::string& seek : {m[at].first, absent}) {
      PageCollector page;
      uint32_t count_got = 0;
      REQUIRE(session.Scan(table, seek, 100, &page, &count_got).ok());
      CHECK(count_got == page.got.size());
      CHECK(page.got == ExpectedPage(m, seek, 100));
    }
  }
}

// One table's files, its count, every pair by Get and pages by Scan.
void CheckTableServesModel(const Backend& b, ReadSession& session, Table table,
                           const Pairs& m) {
  CAPTURE(TableName(table));
  const auto files = b.DataFiles(table);
  REQUIRE(files.size() == 2);  // The heap and its primary-key index.
  for (const auto& f : files) CHECK(fs::file_size(f) > 0);
  auto count = b.CountPairs(table);
  REQUIRE(count.ok());
  CHECK(count.value() == m.size());
  for (const auto& [key, value] : m) {
    bool found = false;
    std::string_view got;
    REQUIRE(session.Get(table, key, &found, &got).ok());
    REQUIRE(found);
    REQUIRE(got == value);
  }
  CheckPagesAgainstModel(session, table, m);
}

// The first open: the files listed with the server stopped stay while it
// runs, and every pair, page and sampled miss is served. Returns the
// servers it started.
PgServerSet ServeEveryPair(const std::string& dir, const Spec& spec,
                           const testing::CollectSink& model,
                           const std::vector<std::string>& listed) {
  auto backend = backends::Open("postgres", dir, {});
  REQUIRE(backend.ok());
  Backend& b = *backend.value();
  for (const auto& f : listed) CHECK(fs::exists(f));
  CheckColdOpenPreloads(b);
  PgServerSet servers = RecordServers(b);
  auto session = b.NewSession();
  REQUIRE(session.ok());
  for (int t = 0; t < kNumTables; ++t) {
    CheckTableServesModel(b, *session.value(), static_cast<Table>(t),
                          model.pairs[t]);
  }
  CheckOptions check;
  check.samples = 3000;
  CheckReport report;
  REQUIRE(CheckSample(b, spec, check, &report).ok());
  CHECK(report.misses_verified == 3 * 3000);
  return servers;
}

// After the close: every server gone, nothing left behind, the files as
// they were listed.
void CheckServersStopped(const PgServerSet& servers, const std::string& dir,
                         const std::vector<std::string>& listed) {
  for (size_t i = 0; i < servers.pids.size(); ++i) {
    CAPTURE(servers.pids[i]);
    CHECK(Exited(servers.pids[i], servers.started[i]));
  }
  CHECK(ProcessesLeft(dir).empty());
  CHECK_FALSE(fs::exists(dir + "/postmaster.pid"));
  CHECK(RegularFiles(dir) == listed);
}

// A second open reuses the cluster: same files, no new initdb; lazy, it
// preloads nothing and still answers.
void CheckReopenReusesCluster(const std::string& dir, const struct stat& before,
                              const testing::CollectSink& model) {
  OpenOptions lazy;
  lazy.lazy_metadata = true;
  auto again = backends::Open("postgres", dir, lazy);
  REQUIRE(again.ok());
  for (const auto& [k, v] : again.value()->Describe()) {
    if (k == "preload") CHECK(v.find("nothing") == 0);
  }
  struct stat after {};
  REQUIRE(stat((dir + "/PG_VERSION").c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);
  CHECK(after.st_mtime == before.st_mtime);
  auto session = again.value()->NewSession();
  REQUIRE(session.ok());
  bool found = false;
  std::string_view got;
  REQUIRE(session.value()
              ->Get(Table::kAccount, model.pairs[0][17].first, &found, &got)
              .ok());
  CHECK((found && got == model.pairs[0][17].second));
  session.value().reset();
  again.value().reset();
  CHECK(ProcessesLeft(dir).empty());
}

// One cluster for the cases that need a store but not its making: the tiny
// dataset's postgres store, built on first use, with the model of its
// pairs. Building a cluster (initdb, a server for the load) is most of
// what such a case costs, so the cases of this executable that start,
// kill or replace its server share it: each leaves it stopped and whole
// (every case ends with no process of its folder left). The cases that
// test a load, an age or a failure of their own build their own.
struct SharedStore {
  testing::TempDir tmp{testing::TempDir::Where::kMemory};
  Spec spec = MakeSpec("tiny", 0, 0, kDefaultSeed).value();
  std::string dir;
  testing::CollectSink model;
};

const SharedStore& TinyStore() {
  static std::unique_ptr<SharedStore> store;  // Removed at exit.
  if (!store) {
    auto s = std::make_unique<SharedStore>();
    s->dir = Build(s->tmp, s->spec);
    REQUIRE(GenerateSorted(s->spec, &s->model).ok());
    store = std::move(s);
  }
  return *store;
}

}  // namespace

TEST_CASE("postgres serves every tiny pair from a real server, then stops") {
  const SharedStore& store = TinyStore();
  const Spec& spec = store.spec;
  const std::string& dir = store.dir;
  // gen stopped its server (and every case since stopped its own).
  CHECK(ProcessesLeft(dir).empty());
  const testing::CollectSink& model = store.model;
  struct stat before {};
  REQUIRE(stat((dir + "/PG_VERSION").c_str(), &before) == 0);

  // The benchmark lists the files once, server stopped, then evicts and
  // maps them while the server runs: every one must stay.
  const std::vector<std::string> listed = RegularFiles(dir);
  const PgServerSet servers = ServeEveryPair(dir, spec, model, listed);
  CheckServersStopped(servers, dir, listed);
  CheckReopenReusesCluster(dir, before, model);
}

TEST_CASE(
    "postgres: a killed server is an error quoting its log; the next "
    "open restarts it") {
  const SharedStore& store = TinyStore();
  const std::string& dir = store.dir;
  const auto& [key, value] = store.model.pairs[0][5];

  auto backend = backends::Open("postgres", dir, {});
  REQUIRE(backend.ok());
  auto session = backend.value()->NewSession();
  REQUIRE(session.ok());
  bool found = false;
  std::string_view got;
  REQUIRE(session.value()->Get(Table::kAccount, key, &found, &got).ok());
  const std::vector<int> pids = backend.value()->ServerProcesses();
  REQUIRE_FALSE(pids.empty());
  REQUIRE(kill(pids[0], SIGKILL) == 0);
  // Its children notice the postmaster's death and exit.
  REQUIRE(testing::WaitUntil(
      [&] { return std::none_of(pids.begin(), pids.end(), Alive); }));
  Status st = session.value()->Get(Table::kAccount, key, &found, &got);
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == Code::kIOError);
  CHECK(st.message().find(dir) != std::string::npos);
  CHECK(st.message().find("server.log: ") != std::string::npos);
  session.value().reset();
  backend.value().reset();  // Nothing left to stop; must not hang.

  auto reopened = backends::Open("postgres", dir, {});
  REQUIRE(reopened.ok());
  auto s2 = reopened.value()->NewSession();
  REQUIRE(s2.ok());
  REQUIRE(s2.value()->Get(Table::kAccount, key, &found, &got).ok());
  CHECK((found && got == value));
  s2.value().reset();
  reopened.value().reset();
  CHECK(ProcessesLeft(dir).empty());
}

TEST_CASE(
    "postgres: a server left running by a killed process is replaced, "
    "one in use by a live process is not") {
  const SharedStore& store = TinyStore();
  const std::string& dir = store.dir;
  const uint64_t accounts = store.model.pairs[0].size();
  // Another process starts the server; one that ends without stopping it
  // leaves a leftover, one still alive owns it.
  auto start_elsewhere = [&](bool stay) {
    int ready[2];
    REQUIRE(pipe(ready) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      auto s = baselines::PostgresServer::ForDir(dir);
      bool ok = s.ok() && s.value().Start().ok();
      char c = ok ? 1 : 0;
      (void)!write(ready[1], &c, 1);
      if (stay) pause();
      _exit(ok ? 0 : 1);
    }
    close(ready[1]);
    char c = 0;
    REQUIRE(read(ready[0], &c, 1) == 1);
    close(ready[0]);
    REQUIRE(c == 1);
    return child;
  };

  SECTION("the owner is gone: stopped and started afresh") {
    pid_t child = start_elsewhere(false);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    auto leftover = baselines::PostgresServer::ForDir(dir);
    REQUIRE(leftover.ok());
    const int old_pid = leftover.value().PostmasterPid();
    REQUIRE(old_pid != 0);
    {
      auto backend = backends::Open("postgres", dir, {});
      REQUIRE(backend.ok());
      CHECK(Exited(old_pid));
      auto pids = backend.value()->ServerProcesses();
      REQUIRE_FALSE(pids.empty());
      CHECK(pids[0] != old_pid);
      CHECK(backend.value()->CountPairs(Table::kAccount).value() == accounts);
    }
  }
  SECTION("the owner lives: refused, its server left alone") {
    pid_t child = start_elsewhere(true);
    auto server = baselines::PostgresServer::ForDir(dir);
    REQUIRE(server.ok());
    const int pid = server.value().PostmasterPid();
    REQUIRE(pid != 0);
    auto backend = backends::Open("postgres", dir, {});
    CHECK(backend.status().code() == Code::kIOError);
    CHECK(backend.status().message().find(std::to_string(child)) !=
          std::string::npos);
    CHECK(Alive(pid));
    kill(child, SIGKILL);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(server.value().Stop().ok());
  }
  CHECK(ProcessesLeft(dir).empty());
}
