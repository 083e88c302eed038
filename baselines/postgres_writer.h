#pragma once
// PostgreSQL aged as an application writes it (flatbench age): the
// store's server started as the reader starts it, one transaction per
// block sent in one round trip, each commit durable when it returns.

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Starts the server of the cluster in `dir` (postgres_server.h: a leftover
// server is stopped first) and connects. Each block is one prepared
// statement run with six binary bytea[] parameters: per table, the keys
// and values it puts (INSERT ... ON CONFLICT (k) DO UPDATE over unnest of
// the two arrays) and the keys it erases (DELETE ... WHERE k = ANY), as
// data-modifying WITH clauses of one statement, so one transaction. The
// connection commits synchronously (synchronous_commit = on, where the
// cluster's own setting is off), so Checkpoint syncs nothing. Finish runs
// CHECKPOINT and stops the server; a writer dropped without Finish stops
// it too (a fast shutdown, which also checkpoints). Upkeep: the WAL the
// blocks of this run wrote, and per table its heap, primary-key and total
// bytes and the dead tuples this run left (PostgreSQL's statistics, which
// start empty at every server start; the cluster runs no autovacuum, so
// the dead stay). kMissingInput when `dir` holds no cluster.
Result<std::unique_ptr<StoreWriter>> NewPostgresWriter(const std::string& dir);

}  // namespace flatbench::baselines
