// The PostgreSQL loader: initdb, then per table, in one transaction,
// CREATE TABLE + COPY ... FROM STDIN (FORMAT binary) + the primary key.
//
// Binary COPY rather than text: keys and values go as raw bytes, with no
// hex encoding on our side and no decoding on the server's. With
// wal_level=minimal, a table created in the transaction that fills it is
// not WAL-logged but synced at commit, as a bulk load should be. The
// primary key is built after the copy, by a sort, into a compact index,
// as RocksDB's and LMDB's bulk loads produce compact trees. FREEZE writes
// the rows frozen and all-visible, so no later VACUUM rewrites every page
// (with data checksums on, that rewrite would log a full image of each).
#include <arpa/inet.h>

#include <cstring>

#include "baselines/postgres_backend.h"
#include "baselines/postgres_conn.h"

namespace flatbench::baselines {
namespace {

// PGCOPY signature, flags field, header extension length.
constexpr char kCopyHeader[19] = {'P',    'G',  'C',  'O',  'P', 'Y', '\n',
                                  '\377', '\r', '\n', '\0', 0,   0,   0,
                                  0,      0,    0,    0,    0};
constexpr size_t kFlushBytes = 1 << 20;

class PostgresLoader : public BulkLoader {
 public:
  explicit PostgresLoader(PostgresServer server) : server_(std::move(server)) {}
  ~PostgresLoader() override {
    conn_.reset();
    if (server_.started()) (void)server_.Stop();
  }

  Status Init() {
    FLATBENCH_RETURN_IF_ERROR(server_.Init());
    FLATBENCH_RETURN_IF_ERROR(server_.Start());
    FLATBENCH_ASSIGN_OR_RETURN(conn_, PgConnect(server_));
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
    if (current_ >= 0) FLATBENCH_RETURN_IF_ERROR(EndTable());
    for (int t = 0; t < kNumTables; ++t) {
      if (done_[t]) continue;  // A table with no pair is still created.
      FLATBENCH_RETURN_IF_ERROR(BeginTable(t));
      FLATBENCH_RETURN_IF_ERROR(EndTable());
    }
    // The rows are frozen by COPY FREEZE; VACUUM completes the visibility
    // maps, so that no later read dirties a page (hint bits) and no
    // anti-wraparound vacuum ever runs; ANALYZE gives the planner real
    // statistics.
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(),
                                     "VACUUM (FREEZE, ANALYZE) account, "
                                     "storage"));
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(), "CHECKPOINT"));
    conn_.reset();
    return server_.Stop();
  }

 private:
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
    PutU16(2);
    PutU32(static_cast<uint32_t>(key.size()));
    buf_.append(key);
    PutU32(static_cast<uint32_t>(value.size()));
    buf_.append(value);
    if (buf_.size() >= kFlushBytes) return Flush();
    return Status::Ok();
  }

  Status BeginTable(int t) {
    const std::string name = kPgTables[t];
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
    buf_.assign(kCopyHeader, sizeof kCopyHeader);
    return Status::Ok();
  }

  Status EndTable() {
    const std::string name = kPgTables[current_];
    PutU16(0xffff);  // The trailer: a field count of -1.
    FLATBENCH_RETURN_IF_ERROR(Flush());
    if (PQputCopyEnd(conn_.get(), nullptr) != 1) {
      return PgCheck(server_, conn_.get(), nullptr, PGRES_COMMAND_OK,
                     "COPY " + name + " end");
    }
    Status st;
    while (PGresult* r = PQgetResult(conn_.get())) {
      PgResult res(r);
      if (st.ok()) {
        st = PgCheck(server_, conn_.get(), r, PGRES_COMMAND_OK, "COPY " + name);
      }
    }
    FLATBENCH_RETURN_IF_ERROR(st);
    FLATBENCH_RETURN_IF_ERROR(
        PgExec(server_, conn_.get(),
               "ALTER TABLE " + name + " ADD CONSTRAINT " + name +
                   "_pkey PRIMARY KEY (k) WITH (fillfactor = 100)"));
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

  void PutU16(uint16_t v) {
    v = htons(v);
    buf_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void PutU32(uint32_t v) {
    v = htonl(v);
    buf_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }

  PostgresServer server_;
  PgConn conn_;
  Status error_;
  int current_ = -1;
  bool done_[kNumTables] = {false, false};
  std::string buf_;
  std::string last_key_;
  bool have_last_ = false;
};

}  // namespace

Result<std::unique_ptr<BulkLoader>> NewPostgresLoader(const std::string& dir) {
  FLATBENCH_ASSIGN_OR_RETURN(auto server, PostgresServer::ForDir(dir));
  auto loader = std::make_unique<PostgresLoader>(std::move(server));
  FLATBENCH_RETURN_IF_ERROR(loader->Init());
  return std::unique_ptr<BulkLoader>(std::move(loader));
}

}  // namespace flatbench::baselines
