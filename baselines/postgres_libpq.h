#pragma once
// libpq, loaded when the PostgreSQL backend first connects rather than at
// every start of the binary (postgres_libpq.cc says why and how).

#include "common/status.h"

namespace flatbench::baselines {

// Loads libpq (its runtime soname, libpq.so.5) and resolves the functions
// this project calls; later calls return the first's answer. kMissingInput
// naming the library and the loader's message when it cannot be loaded.
// Every libpq call needs a connection, and PgConnect calls this first.
Status LoadLibpq();

}  // namespace flatbench::baselines
