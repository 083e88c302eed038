#pragma once
// The PostgreSQL reference row's batch: one prepared query per batch,
// `SELECT k, v FROM t WHERE k = ANY($1)`, its keys sent as one binary
// bytea[] parameter. The server plans it as an index scan over the array's
// distinct keys; each is still one B-tree descent and one heap fetch in the
// server's process, one after the other (RESEARCH.md, "Batched lookups").

#include <libpq-fe.h>

#include <span>
#include <string>
#include <string_view>

#include "baselines/postgres_conn.h"
#include "common/backend.h"

namespace flatbench::baselines {

// The statement text of `table`'s batch, for PQprepare (one parameter,
// type kByteaArrayOid).
std::string PgBatchSql(const char* table);
inline constexpr unsigned kByteaArrayOid = 1001;

// `items` as one binary bytea[] parameter (PostgreSQL's array_send
// format), into *out (cleared first): the keys of a batch, the keys and
// values of a writer's block (postgres_writer.h).
void PgEncodeByteaArray(std::span<const std::string_view> items,
                        std::string* out);

// Runs the prepared statement `stmt` for `keys` and answers each key in
// `results` from its rows; `last` keeps the rows (the values' storage)
// until the next query. `param` is reused scratch for the encoded array.
// A failed query fails every key with PgCheck's status.
void PgMultiGet(const PostgresServer& server, PGconn* conn, const char* stmt,
                std::span<const std::string_view> keys,
                std::span<GetResult> results, std::string* param,
                PgResult* last);

}  // namespace flatbench::baselines
