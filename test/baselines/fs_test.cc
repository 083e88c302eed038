// The filesystem store: scan pages and the ordered walk against the
// dataset, an interrupted load, a damaged tree, and its scale limit. Built
// only with the fs store.
#include "baselines/fs_backend.h"
#include "test/baselines/store_test_util.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
using namespace flatbench::store_test;
namespace fs = std::filesystem;

// The tiny dataset of the other stores' tests leaves the file store out
// (test/tiny_dataset.h): its round trip is here.
TEST_CASE("fs: every key round-trips, every sampled miss is absent") {
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
  CheckRoundTrip("fs", BuildOne(tmp, "fs"), SmallSpec(), Model());
}

TEST_CASE("fs: scans, the full walk and an interrupted load") {
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
  const std::string dir = BuildOne(tmp, "fs");
  auto backend = backends::Open("fs", dir, {});
  REQUIRE(backend.ok());
  CheckScanPages(*backend.value());
  CheckWalk(*backend.value());
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
  CHECK(backends::Open("fs", partial, {}).status().code() ==
        Code::kMissingInput);
}

TEST_CASE("fs: a damaged tree is an error naming the path, not a crash") {
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
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
  auto backend = backends::Open("fs", dir, {});
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
  testing::TempDir tmp(testing::TempDir::Where::kMemory);
  const Spec medium = MakeSpec("medium", 0, 0, kDefaultSeed).value();
  const std::string dir = tmp / "ds";
  Status st = backends::CheckBuildable("fs", medium, dir);
  CHECK(st.code() == Code::kUsage);
  CHECK(st.ExitCode() == 64);
  CHECK(st.message().find("50000000 files") != std::string::npos);
  CHECK(st.message().find("inodes") != std::string::npos);
  CHECK(st.message().find("GiB of disk") != std::string::npos);
  CHECK(st.message().find("free at " + dir) != std::string::npos);
  CHECK_FALSE(fs::exists(dir));
  // Smoke fits; the default backend lists follow the same limit.
  const Spec smoke = MakeSpec("smoke", 0, 0, kDefaultSeed).value();
  CHECK(backends::CheckBuildable("fs", smoke, dir).ok());
  auto big = backends::DefaultStores(medium);
  auto small = backends::DefaultStores(smoke);
  CHECK(std::find(big.begin(), big.end(), "fs") == big.end());
  CHECK(std::find(small.begin(), small.end(), "fs") != small.end());
}
