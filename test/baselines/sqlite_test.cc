// SQLite: scan pages and the ordered walk against the dataset, its own
// integrity_check, an interrupted load and damaged files. Built only with
// SQLite.
#include "baselines/sqlite_backend.h"
#include "test/baselines/store_test_util.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
using namespace flatbench::store_test;
namespace fs = std::filesystem;

TEST_CASE("SQLite: scans, the full walk and an interrupted load") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "sqlite");
  auto backend = backends::Open("sqlite", dir, {});
  REQUIRE(backend.ok());
  CheckScanPages(*backend.value());
  CheckWalk(*backend.value());
  CHECK(backend.value()->CheckIntegrity().ok());
  // The settings say what the cold open read.
  std::string preload;
  for (const auto& [k, v] : backend.value()->Describe()) {
    if (k == "preload") preload = v;
    if (k == "journal_mode") CHECK(v == "wal");
    if (k == "page_size") CHECK(v == "4096");
  }
  CHECK(preload.find("interior B-tree pages read at open") !=
        std::string::npos);

  const std::string partial = tmp / "partial";
  InterruptLoad("sqlite", partial);
  CHECK(fs::is_empty(partial));
  CHECK(backends::Open("sqlite", partial, {}).status().code() ==
        Code::kMissingInput);
}

TEST_CASE("SQLite: a truncated or foreign file is an error, not a crash") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "sqlite");
  const std::string file = dir + "/" + baselines::kSqliteFile;
  const uint64_t size = fs::file_size(file);
  const std::string copy = tmp / "copy";
  for (uint64_t at :
       {uint64_t{0}, uint64_t{50}, uint64_t{4096}, size / 2, size - 4096}) {
    CAPTURE(at);
    fs::remove_all(copy);
    fs::create_directories(copy);
    fs::copy_file(file, copy + "/" + baselines::kSqliteFile);
    fs::resize_file(copy + "/" + baselines::kSqliteFile, at);
    Status failed;
    for (bool lazy : {false, true}) {
      OpenOptions o;
      o.lazy_metadata = lazy;
      auto b = backends::Open("sqlite", copy, o);
      if (!b.ok()) {
        failed = b.status();
        continue;
      }
      auto session = b.value()->NewSession();
      if (!session.ok()) {
        failed = session.status();
        continue;
      }
      for (int t = 0; t < kNumTables && failed.ok(); ++t) {
        for (const auto& [key, value] : Model().pairs[t]) {
          bool found = false;
          std::string_view got;
          Status st =
              session.value()->Get(static_cast<Table>(t), key, &found, &got);
          if (!st.ok()) {
            failed = st;
            break;
          }
          REQUIRE((!found || got == value));
          if (!found) {
            failed = Status::Corruption("a stored key not found");
            break;
          }
        }
      }
      if (failed.ok()) failed = b.value()->CheckIntegrity().status();
    }
    REQUIRE_FALSE(failed.ok());
    CHECK((failed.code() == Code::kCorruption ||
           failed.code() == Code::kNotOurFormat));
  }
  // Not a database at all.
  fs::remove_all(copy);
  fs::create_directories(copy);
  {
    std::ofstream(copy + "/" + baselines::kSqliteFile)
        << std::string(8192, 'x');
  }
  auto b = backends::Open("sqlite", copy, {});
  CHECK(b.status().code() == Code::kNotOurFormat);
  CHECK(b.status().message().find(copy) != std::string::npos);
}
