// The PostgreSQL reader: a server started at open and stopped at close,
// one connection per session, prepared statements with binary parameters
// and binary results. Over 300 lines because the session, the backend and
// the ordered walk share one connection model; the server, the user, the
// connection helpers and the loader have files of their own.
#include "baselines/postgres_backend.h"

#include <arpa/inet.h>

#include <cstring>
#include <filesystem>
#include <mutex>

#include "baselines/postgres_batch.h"
#include "baselines/postgres_conn.h"

namespace flatbench::baselines {
namespace fs = std::filesystem;
namespace {

constexpr const char* kGetStmt[kNumTables] = {"get_account", "get_storage"};
constexpr const char* kScanStmt[kNumTables] = {"scan_account", "scan_storage"};
constexpr const char* kBatchStmt[kNumTables] = {"batch_account",
                                                "batch_storage"};
constexpr int kBinary = 1;
constexpr int kWalkPage = 10000;

void BigEndian64(uint64_t v, char out[8]) {
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
}

class PgSession : public ReadSession {
 public:
  PgSession(const PostgresServer* server, PgConn conn)
      : server_(server), conn_(std::move(conn)) {}

  Status Prepare() {
    for (int t = 0; t < kNumTables; ++t) {
      const std::string table = kPgTables[t];
      const unsigned get_types[] = {kByteaOid};
      PgResult get(PQprepare(
          conn_.get(), kGetStmt[t],
          ("SELECT v FROM " + table + " WHERE k = $1").c_str(), 1, get_types));
      FLATBENCH_RETURN_IF_ERROR(PgCheck(*server_, conn_.get(), get.get(),
                                        PGRES_COMMAND_OK, kGetStmt[t]));
      const unsigned scan_types[] = {kByteaOid, kInt8Oid};
      PgResult scan(PQprepare(
          conn_.get(), kScanStmt[t],
          ("SELECT k, v FROM " + table + " WHERE k >= $1 ORDER BY k LIMIT $2")
              .c_str(),
          2, scan_types));
      FLATBENCH_RETURN_IF_ERROR(PgCheck(*server_, conn_.get(), scan.get(),
                                        PGRES_COMMAND_OK, kScanStmt[t]));
      const unsigned batch_types[] = {kByteaArrayOid};
      PgResult batch(PQprepare(conn_.get(), kBatchStmt[t],
                               PgBatchSql(kPgTables[t]).c_str(), 1,
                               batch_types));
      FLATBENCH_RETURN_IF_ERROR(PgCheck(*server_, conn_.get(), batch.get(),
                                        PGRES_COMMAND_OK, kBatchStmt[t]));
    }
    return Status::Ok();
  }

  // libpq allocates one PGresult per query: that is the client library's
  // own cost, kept as the value's storage until the next call.
  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    const int t = static_cast<int>(table);
    const char* values[] = {key.data()};
    const int lengths[] = {static_cast<int>(key.size())};
    const int formats[] = {kBinary};
    last_.reset(PQexecPrepared(conn_.get(), kGetStmt[t], 1, values, lengths,
                               formats, kBinary));
    FLATBENCH_RETURN_IF_ERROR(PgCheck(*server_, conn_.get(), last_.get(),
                                      PGRES_TUPLES_OK, kGetStmt[t]));
    *found = PQntuples(last_.get()) > 0;
    if (*found) {
      *value = std::string_view(PQgetvalue(last_.get(), 0, 0),
                                PQgetlength(last_.get(), 0, 0));
    }
    return Status::Ok();
  }

  // One `= ANY($1)` query per batch (postgres_batch.h).
  Status MultiGet(Table table, std::span<const std::string_view> keys,
                  std::span<GetResult> results) override {
    if (keys.size() != results.size()) {
      return ReadSession::MultiGet(table, keys, results);  // its kUsage
    }
    PgMultiGet(*server_, conn_.get(), kBatchStmt[static_cast<int>(table)], keys,
               results, &param_, &last_);
    ++batch_io_.batches;
    return Status::Ok();
  }

  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    *count = 0;
    const int t = static_cast<int>(table);
    char limit_be[8];
    BigEndian64(limit, limit_be);
    const char* values[] = {start.data(), limit_be};
    const int lengths[] = {static_cast<int>(start.size()), 8};
    const int formats[] = {kBinary, kBinary};
    last_.reset(PQexecPrepared(conn_.get(), kScanStmt[t], 2, values, lengths,
                               formats, kBinary));
    FLATBENCH_RETURN_IF_ERROR(PgCheck(*server_, conn_.get(), last_.get(),
                                      PGRES_TUPLES_OK, kScanStmt[t]));
    const int rows = PQntuples(last_.get());
    for (int r = 0; r < rows; ++r) {
      visitor->Visit(std::string_view(PQgetvalue(last_.get(), r, 0),
                                      PQgetlength(last_.get(), r, 0)),
                     std::string_view(PQgetvalue(last_.get(), r, 1),
                                      PQgetlength(last_.get(), r, 1)));
      ++*count;
    }
    return Status::Ok();
  }

 private:
  const PostgresServer* server_;
  PgConn conn_;
  PgResult last_;
  std::string param_;  // MultiGet's encoded key array
};

class PostgresBackend : public Backend {
 public:
  explicit PostgresBackend(PostgresServer server)
      : server_(std::move(server)) {}
  ~PostgresBackend() override {
    control_.reset();
    if (server_.started()) (void)server_.Stop();
  }

  std::string Name() const override { return "postgres"; }
  Result<std::unique_ptr<TableScan>> OpenScan(Table table) override;
  // PostgreSQL checks each page's checksum as it reads it: OpenScan's walk
  // is the check, and there is no other.
  Result<std::string> CheckIntegrity() override {
    return std::string("page checksums checked as the walk read them");
  }

  Result<std::unique_ptr<ReadSession>> NewSession() override {
    FLATBENCH_ASSIGN_OR_RETURN(auto conn, PgConnect(server_));
    auto session = std::make_unique<PgSession>(&server_, std::move(conn));
    FLATBENCH_RETURN_IF_ERROR(session->Prepare());
    return std::unique_ptr<ReadSession>(std::move(session));
  }

  // The shared buffers that hold a page (pg_buffercache), the server's
  // counterpart of RocksDB's block cache usage; 0 if it cannot be asked.
  uint64_t ResidentMetadataBytes() const override {
    std::lock_guard<std::mutex> lock(mu_);
    PgResult res(PQexec(control_.get(),
                        "SELECT count(*) * current_setting('block_size')::int8 "
                        "FROM pg_buffercache WHERE relfilenode IS NOT NULL"));
    if (PQresultStatus(res.get()) != PGRES_TUPLES_OK) return 0;
    return std::strtoull(PQgetvalue(res.get(), 0, 0), nullptr, 10);
  }

  Settings Describe() const override {
    return {
        {"server", "PostgreSQL " + server_version_ + " (" + server_.dir() +
                       "), started at open and stopped at close by flatbench"},
        {"server_user",
         server_.user().name +
             (server_.user().switch_user
                  ? " (Debian's postgresql-common system user; flatbench runs "
                    "as root and PostgreSQL refuses root)"
                  : " (the current user)")},
        {"connection",
         "Unix socket in the backend folder, "
         "listen_addresses='' (no TCP)"},
        {"tables",
         "one per table: (k bytea PRIMARY KEY, v bytea), heap and "
         "index fillfactor 100"},
        {"load",
         "COPY FROM STDIN (FORMAT binary, FREEZE) in key order, one "
         "transaction per table (wal_level=minimal: not WAL-logged), "
         "primary key built after the copy; VACUUM (FREEZE, ANALYZE), "
         "CHECKPOINT"},
        {"shared_buffers", shared_buffers_ +
                               " (as RocksDB's 1 GiB block cache), empty at "
                               "every open: the server is restarted"},
        {"effective_cache_size", "4GB (planner estimate only)"},
        {"data_checksums", data_checksums_ +
                               " (every page read into shared buffers is "
                               "verified)"},
        {"reads",
         "one connection (server process) per thread; prepared "
         "statements per table, binary parameters and results; "
         "libpq allocates one PGresult per query"},
        {"other",
         "jit=off, autovacuum=off, max_parallel_workers_per_gather=0, "
         "huge_pages=off"},
        {"preload", preload_}};
  }

  std::vector<std::string> DataFiles(Table table) const override {
    return files_[static_cast<int>(table)];
  }
  std::vector<int> ServerProcesses() const override {
    return server_.Processes();
  }

  // count(*): PostgreSQL keeps no exact row count in its metadata.
  Result<uint64_t> CountPairs(Table table) const override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string sql = std::string("SELECT count(*) FROM ") +
                            kPgTables[static_cast<int>(table)];
    PgResult res(PQexec(control_.get(), sql.c_str()));
    FLATBENCH_RETURN_IF_ERROR(
        PgCheck(server_, control_.get(), res.get(), PGRES_TUPLES_OK, sql));
    return static_cast<uint64_t>(
        std::strtoull(PQgetvalue(res.get(), 0, 0), nullptr, 10));
  }

  Status Connect() {
    FLATBENCH_ASSIGN_OR_RETURN(control_, PgConnect(server_));
    PgResult info(PQexec(control_.get(),
                         "SELECT current_setting('server_version'), "
                         "current_setting('shared_buffers'), "
                         "current_setting('data_checksums')"));
    FLATBENCH_RETURN_IF_ERROR(PgCheck(server_, control_.get(), info.get(),
                                      PGRES_TUPLES_OK, "settings"));
    server_version_ = PQgetvalue(info.get(), 0, 0);
    shared_buffers_ = PQgetvalue(info.get(), 0, 1);
    data_checksums_ = PQgetvalue(info.get(), 0, 2);
    for (int t = 0; t < kNumTables; ++t) {
      const std::string name = kPgTables[t];
      const std::string sql = "SELECT pg_relation_filepath(to_regclass('" +
                              name + "')), pg_relation_filepath(to_regclass('" +
                              name + "_pkey'))";
      PgResult res(PQexec(control_.get(), sql.c_str()));
      FLATBENCH_RETURN_IF_ERROR(
          PgCheck(server_, control_.get(), res.get(), PGRES_TUPLES_OK, sql));
      for (int c = 0; c < 2; ++c) {
        if (PQgetisnull(res.get(), 0, c)) {
          return Status::Corruption(
              server_.dir() + ": postgres cluster has no " +
              (c == 0 ? "table " : "index ") + name + (c == 0 ? "" : "_pkey"));
        }
        // The relation's 1 GiB segments: base/D/R, base/D/R.1, ...
        const std::string base =
            server_.dir() + "/" + PQgetvalue(res.get(), 0, c);
        std::error_code ec;
        for (int seg = 0;; ++seg) {
          std::string path = seg == 0 ? base : base + "." + std::to_string(seg);
          if (!fs::exists(path, ec)) break;
          files_[t].push_back(path);
        }
      }
    }
    return Status::Ok();
  }

  // Cold mode: read every internal page of both primary keys (root down
  // to the level above the leaves) into shared buffers, as LMDB's open
  // reads its branch pages and the arena its index: a cold hit then costs
  // a leaf and a heap page. The walk follows the child pointers of each
  // internal page, skipping the high key that opens every page but the
  // rightmost of its level.
  Status PreloadInternalPages() {
    uint64_t pages = 0;
    for (int t = 0; t < kNumTables; ++t) {
      const std::string idx = std::string("'") + kPgTables[t] + "_pkey'";
      const std::string sql =
          "WITH RECURSIVE walk(blk, lvl) AS ("
          " SELECT root, level FROM bt_metap(" +
          idx +
          ")"
          " UNION ALL"
          " SELECT ((i.ctid::text)::point)[0]::int, w.lvl - 1"
          " FROM walk w, bt_page_items(" +
          idx +
          ", w.blk) i"
          " WHERE w.lvl > 1 AND NOT (i.itemoffset = 1 AND (SELECT btpo_next"
          " FROM bt_page_stats(" +
          idx +
          ", w.blk)) <> 0))"
          " SELECT count(*) FROM walk w, bt_page_stats(" +
          idx + ", w.blk) s";
      PgResult res(PQexec(control_.get(), sql.c_str()));
      FLATBENCH_RETURN_IF_ERROR(
          PgCheck(server_, control_.get(), res.get(), PGRES_TUPLES_OK,
                  std::string("preload of ") + kPgTables[t] + "_pkey"));
      pages += std::strtoull(PQgetvalue(res.get(), 0, 0), nullptr, 10);
    }
    preload_ =
        "root and internal pages of both primary keys read into "
        "shared buffers at open: " +
        std::to_string(pages) + " pages, " + std::to_string(pages * 8192) +
        " bytes";
    return Status::Ok();
  }

  PostgresServer server_;
  std::string preload_ =
      "nothing (lazy metadata): the server starts with empty shared buffers";
  mutable std::mutex mu_;  // Guards control_.
  PgConn control_;
  std::string server_version_, shared_buffers_, data_checksums_;
  std::vector<std::string> files_[kNumTables];
};

// Keyset pages: each query resumes after the last key of the one before,
// so the walk holds no server-side cursor or snapshot open.
class PgTableScan : public TableScan {
 public:
  PgTableScan(const PostgresServer* server, PgConn conn, int table)
      : server_(server), conn_(std::move(conn)), table_(table) {}

  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override {
    *valid = false;
    if (page_ == nullptr || row_ >= PQntuples(page_.get())) {
      if (page_ != nullptr && PQntuples(page_.get()) < kWalkPage) {
        return Status::Ok();
      }
      FLATBENCH_RETURN_IF_ERROR(Fetch());
      if (PQntuples(page_.get()) == 0) return Status::Ok();
    }
    *key = std::string_view(PQgetvalue(page_.get(), row_, 0),
                            PQgetlength(page_.get(), row_, 0));
    *value = std::string_view(PQgetvalue(page_.get(), row_, 1),
                              PQgetlength(page_.get(), row_, 1));
    ++row_;
    *valid = true;
    return Status::Ok();
  }

 private:
  Status Fetch() {
    std::string after;
    if (page_ != nullptr) {
      const int last = PQntuples(page_.get()) - 1;
      after.assign(PQgetvalue(page_.get(), last, 0),
                   PQgetlength(page_.get(), last, 0));
    }
    const std::string sql = std::string("SELECT k, v FROM ") +
                            kPgTables[table_] + " WHERE k > $1 ORDER BY k " +
                            "LIMIT " + std::to_string(kWalkPage);
    const unsigned types[] = {kByteaOid};
    const char* values[] = {after.data()};
    const int lengths[] = {static_cast<int>(after.size())};
    const int formats[] = {kBinary};
    page_.reset(PQexecParams(conn_.get(), sql.c_str(), 1, types, values,
                             lengths, formats, kBinary));
    row_ = 0;
    return PgCheck(*server_, conn_.get(), page_.get(), PGRES_TUPLES_OK,
                   std::string("walk of ") + kPgTables[table_]);
  }

  const PostgresServer* server_;
  PgConn conn_;
  int table_;
  PgResult page_;
  int row_ = 0;
};

}  // namespace

Result<std::unique_ptr<Backend>> OpenPostgres(const std::string& dir,
                                              const OpenOptions& options) {
  std::error_code ec;
  if (!fs::exists(dir + "/PG_VERSION", ec)) {
    return Status::MissingInput(dir +
                                ": no PostgreSQL cluster (no PG_VERSION)");
  }
  FLATBENCH_ASSIGN_OR_RETURN(auto server, PostgresServer::ForDir(dir));
  // Constructed before the start, so that every failure below stops it.
  auto b = std::make_unique<PostgresBackend>(std::move(server));
  FLATBENCH_RETURN_IF_ERROR(b->server_.Start());
  FLATBENCH_RETURN_IF_ERROR(b->Connect());
  if (!options.lazy_metadata) {
    FLATBENCH_RETURN_IF_ERROR(b->PreloadInternalPages());
  }
  return std::unique_ptr<Backend>(std::move(b));
}

Result<std::unique_ptr<TableScan>> PostgresBackend::OpenScan(Table table) {
  FLATBENCH_ASSIGN_OR_RETURN(auto conn, PgConnect(server_));
  return std::unique_ptr<TableScan>(
      new PgTableScan(&server_, std::move(conn), static_cast<int>(table)));
}

}  // namespace flatbench::baselines
