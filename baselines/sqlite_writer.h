#pragma once
// SQLite aged as an application writes it (flatbench age): the store's
// database opened read-write, one transaction per block of INSERT OR
// REPLACE and DELETE statements, each commit durable when it returns.

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Opens DIR/data.sqlite for writing, in the journal mode the load left
// (WAL), with synchronous=FULL as the load ends with. Checkpoint syncs
// nothing: every commit was durable already. Finish checkpoints the WAL
// into the database file (TRUNCATE, as the load does) and closes, so the
// folder holds what a load leaves. Upkeep: the file's page size, pages and
// free-list pages, and the journal mode. kMissingInput when DIR holds no
// database.
Result<std::unique_ptr<StoreWriter>> NewSqliteWriter(const std::string& dir);

}  // namespace flatbench::baselines
