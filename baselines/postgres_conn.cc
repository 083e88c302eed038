#include "baselines/postgres_conn.h"

#include <cstring>
#include <vector>

#include "baselines/postgres_libpq.h"

namespace flatbench::baselines {

Result<PgConn> PgConnect(const PostgresServer& server) {
  FLATBENCH_RETURN_IF_ERROR(LoadLibpq());
  auto params = server.ConnParams();
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : params) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PgConn conn(PQconnectdbParams(keys.data(), values.data(), 0));
  if (conn == nullptr) {
    return Status::IOError(server.dir() + ": postgres: out of memory");
  }
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(conn.get());
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return Status::IOError(server.dir() +
                           ": cannot connect to the postgres "
                           "server: " +
                           msg + "; " + kPostgresLog + ": " +
                           server.LogTail(5));
  }
  return conn;
}

Status PgCheck(const PostgresServer& server, PGconn* conn, const PGresult* res,
               ExecStatusType want, const std::string& what) {
  if (res != nullptr && PQresultStatus(res) == want) return Status::Ok();
  std::string msg = res != nullptr ? PQresultErrorMessage(res) : "";
  if (msg.empty()) msg = PQerrorMessage(conn);
  for (char& c : msg) c = c == '\n' ? ' ' : c;
  while (!msg.empty() && msg.back() == ' ') msg.pop_back();
  std::string text = server.dir() + ": postgres " + what + ": " + msg;
  const char* state =
      res != nullptr ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  if (state != nullptr && std::strncmp(state, "XX", 2) == 0 &&
      std::strcmp(state, "XX000") != 0) {
    return Status::Corruption(text);
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    text += "; the server is gone; " + std::string(kPostgresLog) + ": " +
            server.LogTail(5);
  }
  return Status::IOError(text);
}

Status PgExec(const PostgresServer& server, PGconn* conn,
              const std::string& sql) {
  PgResult res(PQexec(conn, sql.c_str()));
  ExecStatusType want = PQresultStatus(res.get()) == PGRES_TUPLES_OK
                            ? PGRES_TUPLES_OK
                            : PGRES_COMMAND_OK;
  return PgCheck(server, conn, res.get(), want, sql.substr(0, 60));
}

}  // namespace flatbench::baselines
