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
#include <sstream>

#include "backends/table.h"
#include "baselines/postgres_conn.h"
#include "baselines/postgres_copy.h"
#include "baselines/postgres_server.h"
#include "datagen/check.h"
#include "datagen/dataset.h"
#include "test/datagen/collect_sink.h"
#include "test/temp_dir.h"
#include "test/wait_until.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
namespace fs = std::filesystem;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

bool Alive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  size_t close = line.rfind(')');
  return close != std::string::npos && line[close + 2] != 'Z';
}

// A process's start time (field 22 of its stat), so that a pid reused
// by another process after the server's exit is not taken for it; "" when
// the pid is gone or a zombie.
std::string StartTime(int pid) {
  if (!Alive(pid)) return "";
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
  }
  return field;
}

// Live processes whose command line names `dir` (a postmaster's -D).
std::vector<int> ProcessesNaming(const std::string& dir) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (!std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
    if (cmd.find(dir) != std::string::npos && Alive(std::stoi(name))) {
      out.push_back(std::stoi(name));
    }
  }
  return out;
}

// The processes naming `dir` once every one has exited, or those still
// alive when the deadline passes: a stopped server's processes take their
// own time to exit on a busy machine.
std::vector<int> ProcessesLeft(const std::string& dir) {
  testing::WaitUntil([&] { return ProcessesNaming(dir).empty(); });
  return ProcessesNaming(dir);
}

// Whether `pid` is gone (or another process by now), waiting for it.
bool Exited(int pid, const std::string& start_time = "") {
  return testing::WaitUntil([&] {
    const std::string now = StartTime(pid);
    return now.empty() || (!start_time.empty() && now != start_time);
  });
}

// Regular files under `dir`, as the benchmark lists a backend's files.
std::vector<std::string> RegularFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Builds `spec` into the postgres backend of tmp/ds; returns its folder.
std::string Build(const testing::TempDir& tmp, const Spec& spec) {
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = spec;
  o.backends = {"postgres"};
  o.progress = false;
  REQUIRE(Generate(o, backends::NewLoader).ok());
  return fs::absolute(o.dir + "/postgres").lexically_normal().string();
}

struct PageCollector : ScanVisitor {
  void Visit(std::string_view k, std::string_view v) override {
    got.emplace_back(std::string(k), std::string(v));
  }
  Pairs got;
};

// The page the model holds from the first key >= `seek`.
Pairs ExpectedPage(const Pairs& model, const std::string& seek, size_t n) {
  auto it = std::lower_bound(
      model.begin(), model.end(), seek,
      [](const auto& p, const std::string& k) { return p.first < k; });
  Pairs out;
  for (; it != model.end() && out.size() < n; ++it) out.push_back(*it);
  return out;
}

}  // namespace

TEST_CASE("postgres serves every tiny pair from a real server, then stops") {
  testing::TempDir tmp;
  const Spec spec = MakeSpec("tiny", 0, 0, kDefaultSeed).value();
  const std::string dir = Build(tmp, spec);
  CHECK(ProcessesLeft(dir).empty());  // gen stopped its server.
  testing::CollectSink model;
  REQUIRE(GenerateSorted(spec, &model).ok());
  struct stat before {};
  REQUIRE(stat((dir + "/PG_VERSION").c_str(), &before) == 0);

  // The benchmark lists the files once, server stopped, then evicts and
  // maps them while the server runs: every one must stay.
  const std::vector<std::string> listed = RegularFiles(dir);
  std::vector<int> pids;
  std::vector<std::string> started;
  {
    auto backend = backends::Open("postgres", dir, {});
    REQUIRE(backend.ok());
    Backend& b = *backend.value();
    for (const auto& f : listed) CHECK(fs::exists(f));
    // The cold open reads the primary keys' internal pages; a lazy one
    // (below, on reopening) reads none.
    bool preload_described = false;
    for (const auto& [k, v] : b.Describe()) {
      if (k == "preload") {
        preload_described = v.find("internal pages") != std::string::npos &&
                            v.find(": 0 pages") == std::string::npos;
      }
    }
    CHECK(preload_described);
    pids = b.ServerProcesses();
    REQUIRE(pids.size() >= 2);  // The postmaster and its children.
    for (int pid : pids) {
      started.push_back(StartTime(pid));
      CHECK_FALSE(started.back().empty());
    }
    auto session = b.NewSession();
    REQUIRE(session.ok());
    for (int t = 0; t < kNumTables; ++t) {
      const Table table = static_cast<Table>(t);
      CAPTURE(TableName(table));
      const auto files = b.DataFiles(table);
      REQUIRE(files.size() == 2);  // The heap and its primary-key index.
      for (const auto& f : files) CHECK(fs::file_size(f) > 0);
      auto count = b.CountPairs(table);
      REQUIRE(count.ok());
      CHECK(count.value() == model.pairs[t].size());
      for (const auto& [key, value] : model.pairs[t]) {
        bool found = false;
        std::string_view got;
        REQUIRE(session.value()->Get(table, key, &found, &got).ok());
        REQUIRE(found);
        REQUIRE(got == value);
      }
      // Pages from existing keys, from absent keys between them, and at
      // the end of the table, against the model's order.
      const Pairs& m = model.pairs[t];
      for (size_t at :
           {size_t{0}, size_t{1}, m.size() / 3, m.size() - 40, m.size() - 1}) {
        std::string absent = m[at].first;
        absent.back() = static_cast<char>(absent.back() + 1);
        for (const std::string& seek : {m[at].first, absent}) {
          PageCollector page;
          uint32_t count_got = 0;
          REQUIRE(
              session.value()->Scan(table, seek, 100, &page, &count_got).ok());
          CHECK(count_got == page.got.size());
          CHECK(page.got == ExpectedPage(m, seek, 100));
        }
      }
    }
    CheckOptions check;
    check.samples = 3000;
    CheckReport report;
    REQUIRE(CheckSample(b, spec, check, &report).ok());
    CHECK(report.misses_verified == 3 * 3000);
  }
  for (size_t i = 0; i < pids.size(); ++i) {
    CAPTURE(pids[i]);
    CHECK(Exited(pids[i], started[i]));
  }
  CHECK(ProcessesLeft(dir).empty());
  CHECK_FALSE(fs::exists(dir + "/postmaster.pid"));
  CHECK(RegularFiles(dir) == listed);

  // A second open reuses the cluster: same files, no new initdb.
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

TEST_CASE(
    "postgres: a killed server is an error quoting its log; the next "
    "open restarts it") {
  testing::TempDir tmp;
  const Spec spec = MakeSpec("custom", 2000, 2, 5).value();
  const std::string dir = Build(tmp, spec);
  testing::CollectSink model;
  REQUIRE(GenerateSorted(spec, &model).ok());
  const auto& [key, value] = model.pairs[0][5];

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
  testing::TempDir tmp;
  const std::string dir = Build(tmp, MakeSpec("custom", 500, 1, 5).value());
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
      CHECK(backend.value()->CountPairs(Table::kAccount).value() == 500);
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

TEST_CASE("postgres: an interrupted load leaves no server and no backend") {
  testing::TempDir tmp;
  volatile std::sig_atomic_t stop = 0;
  uint64_t added = 0;
  // Asks the build to stop once some storage pairs are in.
  class Tripwire : public BulkLoader {
   public:
    Tripwire(std::unique_ptr<BulkLoader> inner, volatile std::sig_atomic_t* s,
             uint64_t* n)
        : inner_(std::move(inner)), stop_(s), n_(n) {}
    Status Add(Table t, std::string_view k, std::string_view v) override {
      if (t == Table::kStorage && ++*n_ == 100) *stop_ = SIGINT;
      return inner_->Add(t, k, v);
    }
    Status Finish() override { return inner_->Finish(); }

   private:
    std::unique_ptr<BulkLoader> inner_;
    volatile std::sig_atomic_t* stop_;
    uint64_t* n_;
  };
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = MakeSpec("custom", 1000, 2, 5).value();
  o.backends = {"postgres"};
  o.progress = false;
  o.stop = &stop;
  auto r = Generate(
      o,
      [&](const std::string& name, const std::string& dir, const Spec& spec,
          unsigned jobs) -> Result<std::unique_ptr<BulkLoader>> {
        auto inner = backends::NewLoader(name, dir, spec, jobs);
        if (!inner.ok()) return inner.status();
        return std::unique_ptr<BulkLoader>(
            new Tripwire(std::move(inner).value(), &stop, &added));
      });
  REQUIRE_FALSE(r.ok());
  CHECK(added >= 100);
  CHECK_FALSE(fs::exists(o.dir + "/postgres"));
  CHECK_FALSE(fs::exists(o.dir + "/postgres.complete"));
  CHECK(ProcessesLeft(fs::absolute(o.dir).string()).empty());
}

TEST_CASE("postgres: no cluster, or a socket path too long, is refused") {
  testing::TempDir tmp;
  auto none = backends::Open("postgres", tmp.path(), {});
  CHECK(none.status().code() == Code::kMissingInput);
  const std::string deep = tmp / std::string(120, 'd');
  auto server = baselines::PostgresServer::ForDir(deep);
  CHECK(server.status().code() == Code::kUsage);
  CHECK(server.status().message().find("107") != std::string::npos);
}

TEST_CASE("postgres at 1 and 2 jobs: same fingerprint, the same rows") {
  testing::TempDir tmp;
  // Both tables span more than one COPY chunk, so both connections copy.
  const Spec spec = MakeSpec("custom", 20000, 3, 11).value();
  testing::CollectSink model;
  REQUIRE(GenerateSorted(spec, &model).ok());
  REQUIRE(model.pairs[0].size() > baselines::kPgChunkPairs);
  std::string fingerprint[2];
  for (unsigned jobs : {1u, 2u}) {
    CAPTURE(jobs);
    GenOptions o;
    o.dir = tmp / ("jobs" + std::to_string(jobs));
    o.spec = spec;
    o.backends = {"postgres"};
    o.progress = false;
    o.jobs = jobs;
    auto built = Generate(o, backends::NewLoader);
    REQUIRE(built.ok());
    REQUIRE(built.value().size() == 1);
    fingerprint[jobs - 1] = built.value()[0].fingerprint;
    const std::string dir = o.dir + "/postgres";
    auto backend = backends::Open("postgres", dir, {});
    REQUIRE(backend.ok());
    Backend& b = *backend.value();
    auto session = b.NewSession();
    REQUIRE(session.ok());
    for (int t = 0; t < kNumTables; ++t) {
      const Table table = static_cast<Table>(t);
      CAPTURE(TableName(table));
      auto count = b.CountPairs(table);
      REQUIRE(count.ok());
      CHECK(count.value() == model.pairs[t].size());
      // The whole table, in key order, page by page.
      PageCollector all;
      std::string seek;
      for (;;) {
        const size_t before = all.got.size();
        uint32_t n = 0;
        REQUIRE(session.value()->Scan(table, seek, 1000, &all, &n).ok());
        if (n < 1000) break;
        seek = all.got[before + n - 1].first + std::string(1, '\0');
      }
      CHECK(all.got == model.pairs[t]);
    }
    session.value().reset();
    CHECK(b.CheckIntegrity().ok());
    backend.value().reset();
    CHECK(ProcessesLeft(fs::absolute(dir).string()).empty());
  }
  CHECK(fingerprint[0] == fingerprint[1]);
}

TEST_CASE(
    "postgres at 2 jobs: a failed COPY connection stops the load, named in "
    "its error") {
  testing::TempDir tmp;
  const std::string dir = fs::absolute(tmp / "pg").string();
  fs::create_directories(dir);
  const Spec spec = MakeSpec("custom", 1000, 1, 5).value();
  auto loader = backends::NewLoader("postgres", dir, spec, 2);
  INFO(loader.status().message());
  REQUIRE(loader.ok());
  // Ascending 32-byte keys: a counter, big-endian, at the end.
  auto key_of = [](uint64_t i) {
    std::string k(32, '\0');
    for (int b = 0; b < 8; ++b) k[31 - b] = static_cast<char>(i >> (8 * b));
    return k;
  };
  const std::string value(40, 'v');
  uint64_t i = 0;
  REQUIRE(loader.value()->Add(Table::kAccount, key_of(i++), value).ok());
  {
    // Both COPYs are running: end one connection's server process.
    auto server = baselines::PostgresServer::ForDir(dir);
    REQUIRE(server.ok());
    auto conn = baselines::PgConnect(server.value());
    REQUIRE(conn.ok());
    baselines::PgResult res(
        PQexec(conn.value().get(),
               "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
               "WHERE query LIKE 'COPY account%' AND pid <> "
               "pg_backend_pid() ORDER BY pid LIMIT 1"));
    REQUIRE(PQresultStatus(res.get()) == PGRES_TUPLES_OK);
    REQUIRE(PQntuples(res.get()) == 1);
    CHECK(std::string(PQgetvalue(res.get(), 0, 0)) == "t");
  }
  // Chunks go to both connections in turn; the one that is gone fails at
  // its next chunk, and every later call returns its error.
  Status st;
  while (st.ok() && i < 40 * baselines::kPgChunkPairs) {
    st = loader.value()->Add(Table::kAccount, key_of(i++), value);
  }
  if (st.ok()) st = loader.value()->Finish();
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == Code::kIOError);
  CHECK(st.message().find(dir) != std::string::npos);
  CHECK(st.message().find("COPY account (connection ") != std::string::npos);
  CHECK(st.message().find(" of 2)") != std::string::npos);
  CHECK(st.message().find('\n') == std::string::npos);
  CHECK(loader.value()->Finish().code() == Code::kIOError);
  loader.value().reset();  // Aborts the other COPY, stops the server.
  CHECK(ProcessesLeft(dir).empty());
}
