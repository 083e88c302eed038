#include "baselines/postgres_batch.h"

#include <arpa/inet.h>

#include <cstring>
#include <unordered_map>

namespace flatbench::baselines {
namespace {

void AppendBigEndian32(std::string* out, uint32_t v) {
  const uint32_t be = htonl(v);
  out->append(reinterpret_cast<const char*>(&be), 4);
}

}  // namespace

std::string PgBatchSql(const char* table) {
  return std::string("SELECT k, v FROM ") + table + " WHERE k = ANY($1)";
}

// PostgreSQL's binary array format (array_send): dimensions, a has-nulls
// flag, the element type's oid, each dimension's length and lower bound,
// then every element as a length and its bytes.
void PgEncodeByteaArray(std::span<const std::string_view> items,
                        std::string* out) {
  out->clear();
  AppendBigEndian32(out, 1);  // dimensions
  AppendBigEndian32(out, 0);  // no nulls
  AppendBigEndian32(out, kByteaOid);
  AppendBigEndian32(out, static_cast<uint32_t>(items.size()));
  AppendBigEndian32(out, 1);  // lower bound
  for (const std::string_view item : items) {
    AppendBigEndian32(out, static_cast<uint32_t>(item.size()));
    out->append(item);
  }
}

void PgMultiGet(const PostgresServer& server, PGconn* conn, const char* stmt,
                std::span<const std::string_view> keys,
                std::span<GetResult> results, std::string* param,
                PgResult* last) {
  PgEncodeByteaArray(keys, param);
  const char* values[] = {param->data()};
  const int lengths[] = {static_cast<int>(param->size())};
  const int formats[] = {1};
  last->reset(PQexecPrepared(conn, stmt, 1, values, lengths, formats, 1));
  Status st = PgCheck(server, conn, last->get(), PGRES_TUPLES_OK, stmt);
  for (GetResult& r : results) {
    r.status = st;
    r.found = false;
    r.value = {};
  }
  if (!st.ok()) return;
  // Each row answers every occurrence of its key in the batch.
  std::unordered_map<std::string_view, int> rows;
  const int n = PQntuples(last->get());
  for (int row = 0; row < n; ++row) {
    rows.emplace(std::string_view(PQgetvalue(last->get(), row, 0),
                                  PQgetlength(last->get(), row, 0)),
                 row);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto it = rows.find(keys[i]);
    if (it == rows.end()) continue;
    results[i].found = true;
    results[i].value =
        std::string_view(PQgetvalue(last->get(), it->second, 1),
                         PQgetlength(last->get(), it->second, 1));
  }
}

}  // namespace flatbench::baselines
