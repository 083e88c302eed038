#pragma once
// The grammar of backend names, which the dataset directory, the bench and
// the report share without linking any backend: a store's name ("arena",
// "rocksdb", ...), or a read variant "STORE+HOW" that reads STORE's files
// another way ("arena+pread"). Which names exist, and what each can do, is
// in the backends' facts (dataset/backend_facts.h, whose kStores lists the
// stores).

#include <string>
#include <string_view>
#include <vector>

#include "dataset/backend_facts.h"

namespace flatbench::dataset {

// The store whose files `name` reads: the part before a '+' ("arena" for
// "arena+pread"), else `name` itself.
std::string StoreOf(std::string_view name);
// The stores `names` read, each once, in the order first named.
std::vector<std::string> StoresOf(const std::vector<std::string>& names);

}  // namespace flatbench::dataset
