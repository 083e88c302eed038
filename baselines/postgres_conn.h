#pragma once
// libpq helpers shared by the PostgreSQL backend's reader and loader:
// owning handles, connecting to a cluster's server, and turning a failed
// query into a Status that names the folder and quotes the server log.

#include <libpq-fe.h>

#include <memory>
#include <string>

#include "baselines/postgres_server.h"
#include "common/status.h"

namespace flatbench::baselines {

struct PgConnClose {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct PgResultClear {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgConn = std::unique_ptr<PGconn, PgConnClose>;
using PgResult = std::unique_ptr<PGresult, PgResultClear>;

inline constexpr const char* kPgTables[2] = {"account", "storage"};
// bytea's type oid, for binary parameters.
inline constexpr unsigned kByteaOid = 17;
inline constexpr unsigned kInt8Oid = 20;

// A new connection to `server`'s socket. kIOError with libpq's message.
Result<PgConn> PgConnect(const PostgresServer& server);

// Ok when `res` has status `want`; otherwise kCorruption for a damaged page
// (SQLSTATE class XX: data_corrupted, index_corrupted), else kIOError with
// the server's message and, when the connection is lost, the log's last
// lines. `what` names the operation.
Status PgCheck(const PostgresServer& server, PGconn* conn, const PGresult* res,
               ExecStatusType want, const std::string& what);

// Runs `sql` (no parameters) and checks that it succeeds.
Status PgExec(const PostgresServer& server, PGconn* conn,
              const std::string& sql);

}  // namespace flatbench::baselines
