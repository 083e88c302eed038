#pragma once
// PostgreSQL reference backend: a real local server (see postgres_server.h)
// holding one table per flatbench table, (k bytea PRIMARY KEY, v bytea),
// loaded with binary COPY in key order. A reference row: never gated unless
// thresholds.json names it.

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Starts the server of the cluster in `dir` (a leftover server is stopped
// first, so the open includes a fresh start with empty shared buffers),
// connects and checks both tables. The backend's destruction stops the
// server. kMissingInput when `dir` holds no cluster, kCorruption when a
// table is missing, kIOError (with the server log's last lines) when the
// server does not start. Unless `options.lazy_metadata`, the open reads
// the root and internal pages of both primary keys into shared buffers
// (Describe's "preload" says how many); data-page checksums are verified
// on every read either way.
// Each session is one connection (one server process) with one prepared
// statement per table for Get and for Scan, binary parameters and results;
// a value view stays valid until the session's next Get or Scan.
Result<std::unique_ptr<Backend>> OpenPostgres(const std::string& dir,
                                              const OpenOptions& options);

// Creates a cluster in the empty `dir`, starts its server and loads the
// pairs with binary COPY ... FROM STDIN, each table then gets its primary
// key. With `jobs` 1: COPY (FREEZE) on one connection, one transaction per
// table. With more: COPY on min(jobs, 8) connections at once into the table
// created beforehand (see postgres_loader.cc); the first failing connection
// stops the others, and its error names the table and the connection.
// Finish vacuums (freezing every row) and analyzes both tables, checkpoints
// and stops the server; the tables hold the same rows at any `jobs`. A
// loader destroyed without Finish stops the server and leaves the cluster
// incomplete (no marker).
Result<std::unique_ptr<BulkLoader>> NewPostgresLoader(const std::string& dir,
                                                      unsigned jobs = 1);

// The backend's OpenScan walks `table` on its own connection, in
// key-ordered pages; the server checks each page's checksum as the walk
// reads it, which is what its CheckIntegrity reports.

}  // namespace flatbench::baselines
