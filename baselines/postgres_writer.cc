#include "baselines/postgres_writer.h"

#include <filesystem>
#include <vector>

#include "baselines/postgres_batch.h"
#include "baselines/postgres_conn.h"
#include "baselines/postgres_server.h"

namespace flatbench::baselines {
namespace {

constexpr const char* kBlockStmt = "age_block";
// Per table: the keys put, their values, the keys erased.
constexpr int kArrays = 3 * kNumTables;
constexpr int kBinaryParams = 1;

// One statement for a whole block. Data-modifying WITH clauses each run
// once, to completion, whether or not the query reads them; the block
// touches each key at most once, so no two clauses meet on one row. An
// erase of a key already gone deletes nothing, and a put of a key present
// updates it: a block applied again leaves the same rows (StoreWriter).
std::string BlockSql() {
  std::string sql = "WITH ";
  for (int t = 0; t < kNumTables; ++t) {
    const std::string table = kPgTables[t];
    const std::string p = "$" + std::to_string(3 * t + 1);
    const std::string v = "$" + std::to_string(3 * t + 2);
    const std::string e = "$" + std::to_string(3 * t + 3);
    if (t > 0) sql += ", ";
    sql += "put_" + table + " AS (INSERT INTO " + table +
           " (k, v) SELECT * FROM unnest(" + p + "::bytea[], " + v +
           "::bytea[]) ON CONFLICT (k) DO UPDATE SET v = excluded.v), erase_" +
           table + " AS (DELETE FROM " + table + " WHERE k = ANY(" + e +
           "::bytea[]))";
  }
  return sql + " SELECT 1";
}

class PostgresWriter final : public StoreWriter {
 public:
  explicit PostgresWriter(PostgresServer server) : server_(std::move(server)) {}
  ~PostgresWriter() override {
    conn_.reset();
    if (server_.started()) static_cast<void>(server_.Stop());
  }

  Status Open() {
    FLATBENCH_RETURN_IF_ERROR(server_.Start());
    FLATBENCH_ASSIGN_OR_RETURN(conn_, PgConnect(server_));
    // The cluster commits asynchronously (its load needs no more than the
    // final CHECKPOINT); a writer that counts a block as durable once it
    // commits needs the commit's WAL on disk first.
    FLATBENCH_RETURN_IF_ERROR(
        PgExec(server_, conn_.get(), "SET synchronous_commit = on"));
    FLATBENCH_ASSIGN_OR_RETURN(start_lsn_, QueryText("pg_current_wal_lsn()"));
    std::vector<unsigned> types(kArrays, kByteaArrayOid);
    PgResult res(PQprepare(conn_.get(), kBlockStmt, BlockSql().c_str(), kArrays,
                           types.data()));
    return PgCheck(server_, conn_.get(), res.get(), PGRES_COMMAND_OK,
                   "prepare of the block statement");
  }

  Status ApplyBlock(std::span<const KeyChange> changes) override {
    for (auto& items : items_) items.clear();
    for (const KeyChange& c : changes) {
      const int t = static_cast<int>(c.table);
      if (c.erase) {
        items_[3 * t + 2].push_back(c.key);
      } else {
        items_[3 * t].push_back(c.key);
        items_[3 * t + 1].push_back(c.value);
      }
    }
    const char* values[kArrays];
    int lengths[kArrays];
    int formats[kArrays];
    for (int i = 0; i < kArrays; ++i) {
      PgEncodeByteaArray(items_[i], &params_[i]);
      values[i] = params_[i].data();
      lengths[i] = static_cast<int>(params_[i].size());
      formats[i] = kBinaryParams;
    }
    PgResult res(PQexecPrepared(conn_.get(), kBlockStmt, kArrays, values,
                                lengths, formats, 0));
    FLATBENCH_RETURN_IF_ERROR(
        PgCheck(server_, conn_.get(), res.get(), PGRES_TUPLES_OK, "block"));
    ++applied_;
    return Status::Ok();
  }

  // Every committed block is durable (synchronous_commit = on, see Open).
  Result<uint64_t> Checkpoint() override { return applied_; }

  Status Finish() override {
    FLATBENCH_ASSIGN_OR_RETURN(
        std::string wal, QueryText("pg_wal_lsn_diff(pg_current_wal_lsn(), '" +
                                   start_lsn_ + "')::int8"));
    upkeep_.emplace_back("wal_bytes", wal);
    // The server's processes write its files, not this one: age's
    // /proc/self/io figure leaves them out (StoreWriter::Upkeep).
    upkeep_.emplace_back("written_by", "the server's processes");
    // Every page the blocks dirtied written to the data files, as a clean
    // stop leaves them; the stop's own checkpoint then has little to do.
    FLATBENCH_RETURN_IF_ERROR(PgExec(server_, conn_.get(), "CHECKPOINT"));
    FLATBENCH_RETURN_IF_ERROR(Shape());
    conn_.reset();
    return server_.Stop();
  }

  Settings Upkeep() const override { return upkeep_; }

 private:
  // The one value of `SELECT expr`, as text.
  Result<std::string> QueryText(const std::string& expr) {
    const std::string sql = "SELECT " + expr;
    PgResult res(PQexec(conn_.get(), sql.c_str()));
    FLATBENCH_RETURN_IF_ERROR(
        PgCheck(server_, conn_.get(), res.get(), PGRES_TUPLES_OK, sql));
    if (PQntuples(res.get()) != 1 || PQgetisnull(res.get(), 0, 0)) {
      return Status::IOError(server_.dir() + ": postgres " + sql +
                             ": no value");
    }
    return std::string(PQgetvalue(res.get(), 0, 0));
  }

  // Sizes from the relations' files; dead tuples from the statistics,
  // which this connection flushes first (a backend sends its counts at
  // most once a second unless told to). The cluster's statistics start
  // empty at every server start (postgres_server.h drops the file a stop
  // writes), so they count this run's dead tuples, none of an earlier run
  // that this one resumed.
  Status Shape() {
    FLATBENCH_RETURN_IF_ERROR(
        PgExec(server_, conn_.get(), "SELECT pg_stat_force_next_flush()"));
    for (int t = 0; t < kNumTables; ++t) {
      const std::string name = kPgTables[t];
      const std::string sql =
          "SELECT pg_relation_size('" + name + "'), pg_relation_size('" + name +
          "_pkey'), pg_total_relation_size('" + name +
          "'), n_dead_tup FROM pg_stat_user_tables WHERE relname = '" + name +
          "'";
      PgResult res(PQexec(conn_.get(), sql.c_str()));
      FLATBENCH_RETURN_IF_ERROR(PgCheck(server_, conn_.get(), res.get(),
                                        PGRES_TUPLES_OK, "sizes of " + name));
      if (PQntuples(res.get()) != 1) {
        return Status::Corruption(server_.dir() + ": postgres: no table " +
                                  name + " in pg_stat_user_tables");
      }
      static constexpr const char* kFields[] = {
          "heap_bytes", "index_bytes", "total_bytes", "dead_tuples_this_run"};
      for (int c = 0; c < 4; ++c) {
        upkeep_.emplace_back(name + "." + kFields[c],
                             PQgetvalue(res.get(), 0, c));
      }
    }
    return Status::Ok();
  }

  PostgresServer server_;
  PgConn conn_;
  std::string start_lsn_;
  // Reused per block: the views of its changes and their encoded arrays.
  std::vector<std::string_view> items_[kArrays];
  std::string params_[kArrays];
  uint64_t applied_ = 0;
  Settings upkeep_;
};

}  // namespace

Result<std::unique_ptr<StoreWriter>> NewPostgresWriter(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir + "/PG_VERSION", ec)) {
    return Status::MissingInput(dir +
                                ": no PostgreSQL cluster (no PG_VERSION)");
  }
  FLATBENCH_ASSIGN_OR_RETURN(auto server, PostgresServer::ForDir(dir));
  // Constructed before the start, so that every failure below stops it.
  auto w = std::make_unique<PostgresWriter>(std::move(server));
  FLATBENCH_RETURN_IF_ERROR(w->Open());
  return std::unique_ptr<StoreWriter>(std::move(w));
}

}  // namespace flatbench::baselines
