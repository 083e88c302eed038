// gen's output does not depend on --jobs: a dataset built with 1 and with 2
// jobs has the same fingerprint in every backend, and byte-identical arena
// files (gen's loaders, as gen runs them: the arena's shards are built whole
// on the generator's threads, and its header records no build time).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "arena/backend.h"
#include "arena/loader.h"
#include "backends/table.h"
#include "datagen/dataset_dir.h"
#include "test/temp_dir.h"

using namespace flatbench;
using namespace flatbench::datagen;

namespace {

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("gen at 1 and 2 jobs: same fingerprint, identical arena files") {
  testing::TempDir tmp;
  std::vector<std::string> stores = {"arena"};
  for (const char* s : {"rocksdb", "lmdb", "sqlite"}) {
    const backends::Entry* e = backends::Find(s);
    if (e != nullptr && e->built) stores.push_back(s);
  }
  GenOptions o;
  o.spec = dataset::MakeSpec("custom", 6000, 3, 7).value();
  o.backends = stores;
  o.progress = false;
  std::vector<BackendBuild> built[2];
  for (unsigned jobs : {1u, 2u}) {
    o.jobs = jobs;
    o.dir = tmp / ("jobs" + std::to_string(jobs));
    auto r = Generate(o, backends::NewLoader);
    REQUIRE(r.ok());
    built[jobs - 1] = r.value();
  }
  REQUIRE(built[0].size() == stores.size());
  REQUIRE(built[1].size() == stores.size());
  for (size_t i = 0; i < stores.size(); ++i) {
    CAPTURE(stores[i]);
    CHECK(built[1][i].backend == stores[i]);
    CHECK(built[1][i].fingerprint == built[0][0].fingerprint);
    CHECK(built[0][i].fingerprint == built[0][0].fingerprint);
    CHECK(built[1][i].pairs[0] == built[0][i].pairs[0]);
    CHECK(built[1][i].pairs[1] == built[0][i].pairs[1]);
  }
  for (Table t : {Table::kAccount, Table::kStorage}) {
    const std::string one =
        ReadWholeFile(arena::ArenaPath(tmp / "jobs1/arena", t));
    const std::string two =
        ReadWholeFile(arena::ArenaPath(tmp / "jobs2/arena", t));
    CHECK(one.size() > 4096);
    CHECK(one == two);
  }
  // Every store opens at both, and passes its own whole-store check.
  for (const std::string& s : stores) {
    CAPTURE(s);
    auto a = backends::Open(s, tmp / ("jobs1/" + s), {});
    auto b = backends::Open(s, tmp / ("jobs2/" + s), {});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(b.value()->CheckIntegrity().ok());
  }
}
