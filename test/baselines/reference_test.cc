// The reference stores (SQLite, the filesystem store): ordered walks and
// scan pages against the generator's stream, interrupted loads, damaged
// files, and the fs store's scale limit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "datagen/dataset.h"
#include "datagen/registry.h"
#include "flatbench_config.h"
#include "test/datagen/collect_sink.h"
#include "test/temp_dir.h"
#if FLATBENCH_HAVE_FS
#include "baselines/fs_backend.h"
#endif
#if FLATBENCH_HAVE_SQLITE
#include "baselines/sqlite_backend.h"
#endif

// Each test needs its store in this build.
#if FLATBENCH_HAVE_FS || FLATBENCH_HAVE_SQLITE

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
namespace fs = std::filesystem;

namespace {

Spec SmallSpec() { return MakeSpec("custom", 3000, 3, 5).value(); }

const testing::CollectSink& Model() {
  static testing::CollectSink* model = [] {
    auto* m = new testing::CollectSink();
    REQUIRE(GenerateSorted(SmallSpec(), m).ok());
    return m;
  }();
  return *model;
}

std::string BuildOne(const testing::TempDir& tmp, const std::string& backend) {
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = SmallSpec();
  o.backends = {backend};
  o.progress = false;
  REQUIRE(Generate(o, datagen::NewLoader).ok());
  return o.dir + "/" + backend;
}

class Collect : public ScanVisitor {
 public:
  void Visit(std::string_view key, std::string_view value) override {
    pairs.emplace_back(std::string(key), std::string(value));
  }
  std::vector<std::pair<std::string, std::string>> pairs;
};

// Scan pages from seek keys before, at, between and after the stored keys
// equal the model's lower_bound pages.
void CheckScanPages(Backend& backend) {
  auto session = backend.NewSession();
  REQUIRE(session.ok());
  for (int t = 0; t < kNumTables; ++t) {
    const Table table = static_cast<Table>(t);
    const auto& pairs = Model().pairs[t];
    std::vector<std::string> seeks = {std::string(KeySize(table), '\0'),
                                      std::string(KeySize(table), '\xff'),
                                      pairs.back().first};
    for (size_t i = 0; i < pairs.size(); i += 97) {
      seeks.push_back(pairs[i].first);
      std::string between = pairs[i].first;
      between.back() = static_cast<char>(between.back() + 1);
      seeks.push_back(between);
    }
    for (uint32_t limit : {1u, 100u, 1000u}) {
      // A page of 1,000 reads 1,000 files of the fs store: long pages start
      // from the three edge seeks and every fifth of the others.
      const size_t step = limit > 100 ? 5 : 1;
      for (size_t i = 0; i < seeks.size(); i += i < 3 ? 1 : step) {
        const std::string& seek = seeks[i];
        CAPTURE(t, limit, seek.size());
        Collect got;
        uint32_t count = 0;
        REQUIRE(session.value()->Scan(table, seek, limit, &got, &count).ok());
        auto from = std::lower_bound(
            pairs.begin(), pairs.end(), seek,
            [](const auto& p, const std::string& k) { return p.first < k; });
        const size_t want =
            std::min<size_t>(limit, static_cast<size_t>(pairs.end() - from));
        REQUIRE(count == want);
        REQUIRE(got.pairs.size() == want);
        for (size_t j = 0; j < want; ++j) REQUIRE(got.pairs[j] == from[j]);
      }
    }
  }
}

using ScanMaker = std::function<Result<std::unique_ptr<baselines::TableScan>>(
    Backend&, Table)>;

// The full walk (verify's) returns exactly the model, then ends.
void CheckWalk(Backend& backend, const ScanMaker& make) {
  for (int t = 0; t < kNumTables; ++t) {
    auto scan = make(backend, static_cast<Table>(t));
    REQUIRE(scan.ok());
    bool valid = false;
    std::string_view k, v;
    for (const auto& [key, value] : Model().pairs[t]) {
      REQUIRE(scan.value()->Next(&valid, &k, &v).ok());
      REQUIRE(valid);
      REQUIRE(k == key);
      REQUIRE(v == value);
    }
    REQUIRE(scan.value()->Next(&valid, &k, &v).ok());
    CHECK_FALSE(valid);
  }
}

// Loads part of the model and drops the loader without Finish.
void InterruptLoad(const std::string& name, const std::string& dir) {
  fs::create_directories(dir);
  auto loader = datagen::NewLoader(name, dir, SmallSpec());
  REQUIRE(loader.ok());
  for (size_t i = 0; i < 500; ++i) {
    const auto& [k, v] = Model().pairs[0][i];
    REQUIRE(loader.value()->Add(Table::kAccount, k, v).ok());
  }
}

}  // namespace

#if FLATBENCH_HAVE_FS
TEST_CASE("fs: scans, the full walk and an interrupted load") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "fs");
  auto backend = datagen::OpenBackend("fs", dir, {});
  REQUIRE(backend.ok());
  CheckScanPages(*backend.value());
  CheckWalk(*backend.value(), baselines::NewFsStoreScan);
  // Every file is named for its key, two folder levels deep.
  const std::string& key = Model().pairs[0][7].first;
  std::string hex;
  for (unsigned char c : key) {
    hex += "0123456789abcdef"[c >> 4];
    hex += "0123456789abcdef"[c & 15];
  }
  CHECK(fs::is_regular_file(dir + "/account/" + hex.substr(0, 2) + "/" +
                            hex.substr(2, 2) + "/" + hex));

  const std::string partial = tmp / "partial";
  InterruptLoad("fs", partial);
  CHECK(fs::is_empty(partial));
  CHECK(datagen::OpenBackend("fs", partial, {}).status().code() ==
        Code::kMissingInput);
}

TEST_CASE("fs: a damaged tree is an error naming the path, not a crash") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "fs");
  // Three keys, each damaged differently (one build for all three).
  auto leaf_of = [&](size_t i) {
    std::string hex;
    for (unsigned char c : Model().pairs[0][i].first) {
      hex += "0123456789abcdef"[c >> 4];
      hex += "0123456789abcdef"[c & 15];
    }
    return std::make_pair(
        dir + "/account/" + hex.substr(0, 2) + "/" + hex.substr(2, 2), hex);
  };
  auto backend = datagen::OpenBackend("fs", dir, {});
  REQUIRE(backend.ok());
  auto session = backend.value()->NewSession();
  REQUIRE(session.ok());
  bool found = false;
  std::string_view got;

  // A folder where the value file belongs.
  auto [leaf1, hex1] = leaf_of(11);
  fs::remove(leaf1 + "/" + hex1);
  fs::create_directory(leaf1 + "/" + hex1);
  Status st = session.value()->Get(Table::kAccount, Model().pairs[0][11].first,
                                   &found, &got);
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message().find(leaf1 + "/" + hex1) != std::string::npos);

  // A stray name in a folder stops a scan that reaches it.
  auto [leaf2, hex2] = leaf_of(1500);
  { std::ofstream(leaf2 + "/stray.tmp") << "x"; }
  Collect page;
  uint32_t count = 0;
  st = session.value()->Scan(Table::kAccount, Model().pairs[0][1500].first, 10,
                             &page, &count);
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message().find(leaf2 + "/stray.tmp") != std::string::npos);

  // A truncated value file reads as what it holds (verify's comparison
  // then names it).
  auto [leaf3, hex3] = leaf_of(2900);
  const std::string& value = Model().pairs[0][2900].second;
  fs::resize_file(leaf3 + "/" + hex3, value.size() / 2);
  REQUIRE(session.value()
              ->Get(Table::kAccount, Model().pairs[0][2900].first, &found, &got)
              .ok());
  CHECK(found);
  CHECK(got == std::string_view(value).substr(0, value.size() / 2));
}

TEST_CASE("fs: above smoke scale is refused before anything is written") {
  testing::TempDir tmp;
  const Spec medium = MakeSpec("medium", 0, 0, kDefaultSeed).value();
  const std::string dir = tmp / "ds";
  Status st = datagen::CheckBuildable("fs", medium, dir);
  CHECK(st.code() == Code::kUsage);
  CHECK(st.ExitCode() == 64);
  CHECK(st.message().find("50000000 files") != std::string::npos);
  CHECK(st.message().find("inodes") != std::string::npos);
  CHECK(st.message().find("GiB of disk") != std::string::npos);
  CHECK(st.message().find("free at " + dir) != std::string::npos);
  CHECK_FALSE(fs::exists(dir));
  // Smoke fits; the default backend lists follow the same limit.
  const Spec smoke = MakeSpec("smoke", 0, 0, kDefaultSeed).value();
  CHECK(datagen::CheckBuildable("fs", smoke, dir).ok());
  auto big = datagen::DefaultBackends(medium);
  auto small = datagen::DefaultBackends(smoke);
  CHECK(std::find(big.begin(), big.end(), "fs") == big.end());
  CHECK(std::find(small.begin(), small.end(), "fs") != small.end());
}

#endif  // FLATBENCH_HAVE_FS

#if FLATBENCH_HAVE_SQLITE
TEST_CASE("SQLite: scans, the full walk and an interrupted load") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "sqlite");
  auto backend = datagen::OpenBackend("sqlite", dir, {});
  REQUIRE(backend.ok());
  CheckScanPages(*backend.value());
  CheckWalk(*backend.value(), baselines::NewSqliteScan);
  CHECK(baselines::CheckSqliteIntegrity(*backend.value()).ok());
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
  CHECK(datagen::OpenBackend("sqlite", partial, {}).status().code() ==
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
      auto b = datagen::OpenBackend("sqlite", copy, o);
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
      if (failed.ok()) failed = baselines::CheckSqliteIntegrity(*b.value());
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
  auto b = datagen::OpenBackend("sqlite", copy, {});
  CHECK(b.status().code() == Code::kNotOurFormat);
  CHECK(b.status().message().find(copy) != std::string::npos);
}
#endif
#endif  // FLATBENCH_HAVE_FS || FLATBENCH_HAVE_SQLITE
