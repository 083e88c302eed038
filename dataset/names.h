#pragma once
// The grammar of backend names, which the dataset directory, the bench and
// the report share without linking any backend: a store's name ("arena",
// "rocksdb", ...), or a read variant "STORE+HOW" that reads STORE's files
// another way ("arena+pread"). What each name can do is in the backends
// table (backends/table.h).

#include <string>
#include <string_view>
#include <vector>

namespace flatbench::dataset {

// Every store a dataset directory may hold a folder and a marker for, in
// canonical order. The backends table's stores are these (a test checks).
inline constexpr std::string_view kStores[] = {"arena",    "rocksdb", "lmdb",
                                               "postgres", "sqlite",  "fs"};

// The store whose files `name` reads: the part before a '+' ("arena" for
// "arena+pread"), else `name` itself.
std::string StoreOf(std::string_view name);
// The stores `names` read, each once, in the order first named.
std::vector<std::string> StoresOf(const std::vector<std::string>& names);

}  // namespace flatbench::dataset
