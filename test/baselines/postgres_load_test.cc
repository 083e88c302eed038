// PostgreSQL's load: an interrupted load leaves no server and no backend,
// a missing cluster or too long a socket path is refused, and 1 and 2 jobs
// load the same rows.
#include "test/baselines/postgres_test_util.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
using namespace flatbench::pg_test;
namespace fs = std::filesystem;

TEST_CASE("postgres: an interrupted load leaves no server and no backend") {
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
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
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
  // Both tables span more than one COPY chunk, so both connections copy;
  // one slot per account is enough for that (more only adds rows to load).
  const Spec spec = MakeSpec("custom", 20000, 1, 11).value();
  testing::CollectSink model;
  REQUIRE(GenerateSorted(spec, &model).ok());
  REQUIRE(model.pairs[0].size() > baselines::kPgChunkPairs);
  REQUIRE(model.pairs[1].size() > baselines::kPgChunkPairs);
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
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
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
