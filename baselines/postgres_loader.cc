// The PostgreSQL loader: initdb, then per table CREATE TABLE, binary COPY
// ... FROM STDIN, then the primary key.
//
// Binary COPY rather than text: keys and values go as raw bytes, with no
// hex encoding on our side and no decoding on the server's. The primary key
// is built after the copy, by a sort, into a compact index, as RocksDB's and
// LMDB's bulk loads produce compact trees.
//
// With one job, each table is created, copied and keyed in one transaction
// on one connection. With wal_level=minimal, a table created in the
// transaction that fills it is not WAL-logged but synced at commit, as a
// bulk load should be; FREEZE writes the rows frozen and all-visible, so no
// later VACUUM rewrites every page (with data checksums on, that rewrite
// would log a full image of each). The heap is in key order.
//
// With N > 1 jobs, the table is created (and committed) first, then its
// rows go through min(N, kMaxCopyConnections) COPY streams at once, one per
// connection (PgCopyStreams), and the primary key is built once every
// stream is in. FREEZE needs the table created in the COPY's own
// transaction, which only one connection can have: these rows are
// WAL-logged, and Finish's VACUUM (FREEZE) freezes them. A heap page holds
// consecutive keys of one chunk of kPgChunkPairs pairs, but the pages of
// the chunks copied at once interleave. The tables hold the same rows,
// under the same schema, at any N.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "baselines/postgres_backend.h"
#include "baselines/postgres_conn.h"
#include "baselines/postgres_copy.h"

namespace flatbench::baselines {
namespace {

constexpr size_t kFlushBytes = 1 << 20;
// At most this many COPY connections (server processes) per table: the
// streams share one WAL and one relation's extension lock, so more are not
// expected to help (not measured).
constexpr unsigned kMaxCopyConnections = 8;

class PostgresLoader : public BulkLoader {
 public:
  PostgresLoader(PostgresServer server, unsigned jobs)
      : server_(std::move(server)),
        streams_(std::clamp(jobs, 1u, kMaxCopyConnections)) {}
  ~PostgresLoader() override {
    copy_.reset();  // Aborts the COPYs in flight.
    copy_conns_.clear();
    conn_.reset();
    if (server_.started()) (void)server_.Stop();
  }

  Status Init() {
    FLATBENCH_RETURN_IF_ERROR(server_.Init());
    FLATBENCH_RETURN_IF_ERROR(server_.Start());
    FLATBENCH_ASSIGN_OR_RETURN(conn_, PgConnect(server_));
    // The first COPY stream uses conn_, idle while the rows go in.
    for (unsigned i = 1; i < streams_; ++i) {
      FLATBENCH_ASSIGN_OR_RETURN(auto c, PgConnect(server_));
      copy_conns_.push_back(std::move(c));
    }
    // pg_buffercache: how much of shared_buffers holds pages;
    // pageinspect: the cold open's walk of the B-trees' internal pages.
    return PgExec(server_, conn_.get(),
                  "CREATE EXTENSION pg_buffercache; "
                  "CREATE EXTENSION pageinspect");
  }

  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    if (!error_.ok()) return error_;
    error_ = AddPair(static_cast<int>(table), key, value);
    return error_;
  }

  Status Finish() override {
    if (!error_.ok()) return error_;
    error_ = FinishTables();
    return error_;
  }

 private:
  Status FinishTables() {
    if (current_ >= 0) FLATBENCH_RETURN_IF_ERROR(EndTable());
    for (int t = 0; t < kNumTables; ++t) {
      if (done_[t]) continue;  // A table with no pair is still created.
      FLATBENCH_RETURN_IF_ERROR(BeginTable(t));
      FLATBENCH_RETURN_IF_ERROR(EndTable());
    }
    // The rows are frozen by COPY FREEZE (with one connection; else here);
    // VACUUM completes the visibility maps, so that no later read dirties a
    // page (hint bits) and no anti-wraparound vacuum ever runs; ANALYZE gives
    // the planner real statistics.
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(),
                                     "VACUUM (FREEZE, ANALYZE) account, "
                                     "storage"));
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(), "CHECKPOINT"));
    copy_conns_.clear();
    conn_.reset();
    return server_.Stop();
  }

  Status AddPair(int t, std::string_view key, std::string_view value) {
    if (t != current_) {
      if (t < current_ || done_[t]) {
        return Status::Usage(std::string("postgres load ") + kPgTables[t] +
                             ": tables must arrive account, then storage");
      }
      if (current_ >= 0) FLATBENCH_RETURN_IF_ERROR(EndTable());
      FLATBENCH_RETURN_IF_ERROR(BeginTable(t));
    }
    if (have_last_ && key <= std::string_view(last_key_)) {
      return Status::Corruption(std::string("postgres load ") + kPgTables[t] +
                                ": key not ascending");
    }
    last_key_.assign(key);
    have_last_ = true;
    if (copy_ != nullptr) return copy_->Add(key, value);
    AppendCopyRow(&buf_, key, value);
    if (buf_.size() >= kFlushBytes) return Flush();
    return Status::Ok();
  }

  Status BeginTable(int t) {
    const std::string name = kPgTables[t];
    if (streams_ > 1) return BeginStreams(t);
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(), "BEGIN"));
    FLATBENCH_RETURN_IF_ERROR(PgExec(
        server_, conn_.get(),
        "CREATE TABLE " + name + " (k bytea NOT NULL, v bytea NOT NULL)"));
    const std::string copy =
        "COPY " + name + " (k, v) FROM STDIN (FORMAT binary, FREEZE)";
    PgResult res(PQexec(conn_.get(), copy.c_str()));
    FLATBENCH_RETURN_IF_ERROR(
        PgCheck(server_, conn_.get(), res.get(), PGRES_COPY_IN, copy));
    current_ = t;
    have_last_ = false;
    buf_.assign(kPgCopyHeader, sizeof kPgCopyHeader);
    return Status::Ok();
  }

  // The table, committed, then a COPY on each of streams_ connections.
  Status BeginStreams(int t) {
    const std::string name = kPgTables[t];
    FLATBENCH_RETURN_IF_ERROR(PgExec(
        server_, conn_.get(),
        "CREATE TABLE " + name + " (k bytea NOT NULL, v bytea NOT NULL)"));
    std::vector<PGconn*> conns = {conn_.get()};
    for (const PgConn& c : copy_conns_) conns.push_back(c.get());
    FLATBENCH_ASSIGN_OR_RETURN(copy_,
                               PgCopyStreams::Start(server_, conns, name));
    current_ = t;
    have_last_ = false;
    return Status::Ok();
  }

  Status EndStreams() {
    const std::string name = kPgTables[current_];
    Status st = copy_->Finish();
    copy_.reset();
    FLATBENCH_RETURN_IF_ERROR(st);
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(), AddKey(name)));
    done_[current_] = true;
    return Status::Ok();
  }

  static std::string AddKey(const std::string& name) {
    return "ALTER TABLE " + name + " ADD CONSTRAINT " + name +
           "_pkey PRIMARY KEY (k) WITH (fillfactor = 100)";
  }

  Status EndTable() {
    if (copy_ != nullptr) return EndStreams();
    const std::string name = kPgTables[current_];
    buf_.append(kPgCopyTrailer, sizeof kPgCopyTrailer);
    FLATBENCH_RETURN_IF_ERROR(Flush());
    if (PQputCopyEnd(conn_.get(), nullptr) != 1) {
      return PgCheck(server_, conn_.get(), nullptr, PGRES_COMMAND_OK,
                     "COPY " + name + " end");
    }
    FLATBENCH_RETURN_IF_ERROR(
        PgDrainResults(server_, conn_.get(), "COPY " + name));
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(), AddKey(name)));
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(), "COMMIT"));
    done_[current_] = true;
    return Status::Ok();
  }

  Status Flush() {
    if (buf_.empty()) return Status::Ok();
    if (PQputCopyData(conn_.get(), buf_.data(),
                      static_cast<int>(buf_.size())) != 1) {
      return PgCheck(server_, conn_.get(), nullptr, PGRES_COPY_IN,
                     std::string("COPY ") + kPgTables[current_]);
    }
    buf_.clear();
    return Status::Ok();
  }

  PostgresServer server_;
  const unsigned streams_;  // COPY connections per table.
  PgConn conn_;
  std::vector<PgConn> copy_conns_;  // The streams' other connections.
  // Last of the connections' users: destroyed (its COPYs aborted) first.
  std::unique_ptr<PgCopyStreams> copy_;
  Status error_;
  int current_ = -1;
  bool done_[kNumTables] = {false, false};
  std::string buf_;
  std::string last_key_;
  bool have_last_ = false;
};

}  // namespace

Result<std::unique_ptr<BulkLoader>> NewPostgresLoader(const std::string& dir,
                                                      unsigned jobs) {
  FLATBENCH_ASSIGN_OR_RETURN(auto server, PostgresServer::ForDir(dir));
  auto loader = std::make_unique<PostgresLoader>(std::move(server), jobs);
  FLATBENCH_RETURN_IF_ERROR(loader->Init());
  return std::unique_ptr<BulkLoader>(std::move(loader));
}

}  // namespace flatbench::baselines
