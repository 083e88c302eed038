#pragma once
// What the per-store tests share: a small dataset built in a temp dir, the
// generator's model of it, and checks of a backend's ordered walk
// (Backend::OpenScan) and scan pages against that model.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "backends/table.h"
#include "datagen/check.h"
#include "datagen/dataset_dir.h"
#include "datagen/stream.h"
#include "test/datagen/collect_sink.h"
#include "test/temp_dir.h"

namespace flatbench::store_test {

using namespace flatbench::datagen;
using namespace flatbench::dataset;

inline Spec SmallSpec() { return MakeSpec("custom", 3000, 3, 5).value(); }

inline const testing::CollectSink& Model() {
  static testing::CollectSink* model = [] {
    auto* m = new testing::CollectSink();
    REQUIRE(GenerateSorted(SmallSpec(), m).ok());
    return m;
  }();
  return *model;
}

// Builds `backend` for SmallSpec() under `tmp`; returns its folder.
inline std::string BuildOne(const testing::TempDir& tmp,
                            const std::string& backend) {
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = SmallSpec();
  o.backends = {backend};
  o.progress = false;
  REQUIRE(Generate(o, backends::NewLoader).ok());
  return o.dir + "/" + backend;
}

// Backend `name`, built in `dir` for `spec` (`model`, its pairs), opened
// with its metadata loaded up front and lazily: it holds every pair's value
// and as many pairs as the model, and every sampled miss key is absent.
inline void CheckRoundTrip(const std::string& name, const std::string& dir,
                           const Spec& spec,
                           const testing::CollectSink& model) {
  CAPTURE(name);
  for (bool lazy : {false, true}) {
    CAPTURE(lazy);
    OpenOptions opts;
    opts.lazy_metadata = lazy;
    auto backend = backends::Open(name, dir, opts);
    REQUIRE(backend.ok());
    auto session = backend.value()->NewSession();
    REQUIRE(session.ok());
    for (int t = 0; t < kNumTables; ++t) {
      Table table = static_cast<Table>(t);
      auto count = backend.value()->CountPairs(table);
      REQUIRE(count.ok());
      CHECK(count.value() == model.pairs[t].size());
      for (const auto& [key, value] : model.pairs[t]) {
        bool found = false;
        std::string_view got;
        REQUIRE(session.value()->Get(table, key, &found, &got).ok());
        REQUIRE(found);
        REQUIRE(got == value);
      }
    }
    CheckOptions check;
    check.samples = 3000;
    CheckReport report;
    REQUIRE(CheckSample(*backend.value(), spec, check, &report).ok());
    CHECK(report.misses_verified == 3 * 3000);
  }
}

inline void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5a));
  REQUIRE(f);
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
inline void CheckScanPages(Backend& backend) {
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

// The full walk (verify's) returns exactly the model, then ends.
inline void CheckWalk(Backend& backend) {
  for (int t = 0; t < kNumTables; ++t) {
    auto scan = backend.OpenScan(static_cast<Table>(t));
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
inline void InterruptLoad(const std::string& name, const std::string& dir) {
  std::filesystem::create_directories(dir);
  auto loader = backends::NewLoader(name, dir, SmallSpec(), 1);
  REQUIRE(loader.ok());
  for (size_t i = 0; i < 500; ++i) {
    const auto& [k, v] = Model().pairs[0][i];
    REQUIRE(loader.value()->Add(Table::kAccount, k, v).ok());
  }
}

// Checks a backend's scans of both tables against the generator's stream,
// through CheckFull with a lookup of every key too.
inline void CheckScans(const std::string& name, const std::string& dir) {
  auto backend = backends::Open(name, dir, {});
  REQUIRE(backend.ok());
  testing::CollectSink model;
  REQUIRE(GenerateSorted(SmallSpec(), &model).ok());
  for (int t = 0; t < kNumTables; ++t) {
    auto scan = backend.value()->OpenScan(static_cast<Table>(t));
    REQUIRE(scan.ok());
    for (const auto& [key, value] : model.pairs[t]) {
      bool valid = false;
      std::string_view k, v;
      REQUIRE(scan.value()->Next(&valid, &k, &v).ok());
      REQUIRE(valid);
      REQUIRE(k == key);
      REQUIRE(v == value);
    }
    bool valid = true;
    std::string_view k, v;
    REQUIRE(scan.value()->Next(&valid, &k, &v).ok());
    CHECK_FALSE(valid);
  }
  auto session = backend.value()->NewSession();
  REQUIRE(session.ok());
  FullCheckOptions o;
  o.progress = false;
  o.lookups = session.value().get();
  FullCheckReport report;
  ScanOpener opener = [&](Table t) -> Result<NextPairFn> {
    auto scan = backend.value()->OpenScan(t);
    if (!scan.ok()) return scan.status();
    std::shared_ptr<TableScan> owned = std::move(scan).value();
    return NextPairFn(
        [owned](bool* valid, std::string_view* k, std::string_view* v) {
          return owned->Next(valid, k, v);
        });
  };
  REQUIRE(CheckFull(SmallSpec(), name, opener, o, &report).ok());
  CHECK(report.pairs[0] == 3000);
  CHECK(report.pairs[1] == 9000);
  CHECK(report.lookups == 12000);
}

}  // namespace flatbench::store_test
