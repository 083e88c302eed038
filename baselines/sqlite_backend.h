#pragma once
// SQLite reference backend: one database file, one table per flatbench
// table, `(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID`, 4 KiB pages, WAL
// journal. A reference row, as in the seed studies: measured like the
// others, never gated unless thresholds.json names it. Settings and their
// reasons: RESEARCH.md, "SQLite (reference row)".

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// The database file inside a backend folder.
inline constexpr char kSqliteFile[] = "data.sqlite";

// Opens DIR/data.sqlite read-only. kMissingInput if there is none;
// kNotOurFormat if it is not a SQLite database; kCorruption if SQLite
// reports damage or a table is missing. Each session is its own read-only
// connection (SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, no shared cache)
// holding one read transaction for its whole life, with one prepared
// statement per table for Get and one for Scan. A value view from Get stays
// valid until the next Get or Scan on that session or its destruction
// (SQLite's column views last until the statement's next step or reset).
// Unless options.lazy_metadata, the open reads every interior B-tree page
// of both tables into the page cache (sqlite_pages.h).
Result<std::unique_ptr<Backend>> OpenSqlite(const std::string& dir,
                                            const OpenOptions& options);

// A loader that inserts ascending pairs in large transactions into
// DIR/data.sqlite. Until Finish the database lives under a temporary name,
// so an unfinished load leaves nothing that OpenSqlite accepts.
Result<std::unique_ptr<BulkLoader>> NewSqliteLoader(const std::string& dir);

// The backend's OpenScan walks `table` on its own read-only connection; its
// CheckIntegrity is SQLite's own whole-file PRAGMA integrity_check,
// kCorruption with SQLite's first findings.

}  // namespace flatbench::baselines
