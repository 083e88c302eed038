// CheckFull against an in-memory "backend": the generator's own stream with
// one defect planted at a time.
#include <catch2/catch.hpp>
#include <map>
#include <memory>

#include "common/hex.h"
#include "datagen/check.h"
#include "datagen/stream.h"
#include "test/datagen/collect_sink.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

struct FakeStore {
  Pairs tables[kNumTables];
  // The walk of `error_table` fails after `error_after` pairs.
  int error_table = -1;
  size_t error_after = 0;

  ScanOpener Opener() {
    return [this](Table t) -> Result<NextPairFn> {
      int ti = static_cast<int>(t);
      auto pos = std::make_shared<size_t>(0);
      return NextPairFn([this, ti, pos](bool* valid, std::string_view* key,
                                        std::string_view* value) {
        if (ti == error_table && *pos == error_after) {
          return Status::Corruption("block checksum mismatch");
        }
        *valid = *pos < tables[ti].size();
        if (*valid) {
          *key = tables[ti][*pos].first;
          *value = tables[ti][*pos].second;
          ++*pos;
        }
        return Status::Ok();
      });
    };
  }
};

// Lookups answered from a map, so they can disagree with the walk.
class MapSession : public ReadSession {
 public:
  explicit MapSession(const FakeStore& store) {
    for (int t = 0; t < kNumTables; ++t) {
      for (const auto& [k, v] : store.tables[t]) map_[t][k] = v;
    }
  }
  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    auto& m = map_[static_cast<int>(table)];
    auto it = m.find(std::string(key));
    *found = it != m.end();
    if (*found) *value = it->second;
    return Status::Ok();
  }
  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    auto& m = map_[static_cast<int>(table)];
    *count = 0;
    for (auto it = m.lower_bound(std::string(start));
         it != m.end() && *count < limit; ++it, ++*count) {
      visitor->Visit(it->first, it->second);
    }
    return Status::Ok();
  }
  std::map<std::string, std::string> map_[kNumTables];
};

FakeStore Model(const Spec& spec) {
  testing::CollectSink sink;
  REQUIRE(GenerateSorted(spec, &sink).ok());
  FakeStore s;
  for (int t = 0; t < kNumTables; ++t) s.tables[t] = sink.pairs[t];
  return s;
}

Status Check(const Spec& spec, FakeStore& store, ReadSession* lookups,
             FullCheckReport* report) {
  FullCheckOptions o;
  o.progress = false;
  o.lookups = lookups;
  return CheckFull(spec, "fake", store.Opener(), o, report);
}

bool Has(const Status& st, const std::string& text) {
  return st.message().find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("CheckFull passes an exact copy and counts every pair") {
  Spec spec = MakeSpec("custom", 500, 3, 7).value();
  FakeStore store = Model(spec);
  MapSession lookups(store);
  FullCheckReport report;
  REQUIRE(Check(spec, store, &lookups, &report).ok());
  CHECK(report.pairs[0] == 500);
  CHECK(report.pairs[1] == 1500);
  CHECK(report.lookups == 2000);
}

TEST_CASE("CheckFull names the first difference with both values") {
  Spec spec = MakeSpec("custom", 500, 3, 7).value();
  FakeStore store = Model(spec);
  const int t = GENERATE(0, 1);
  const size_t i = GENERATE(size_t{0}, size_t{123});
  CAPTURE(t, i);
  Pairs& pairs = store.tables[t];
  const std::string key_hex = ToHex(pairs[i].first);
  const std::string value_hex = ToHex(pairs[i].second);
  const std::string table = TableName(static_cast<Table>(t));
  FullCheckReport report;
  Status st;

  SECTION("a wrong value") {
    pairs[i].second[pairs[i].second.size() / 2] ^= 0x10;
    st = Check(spec, store, nullptr, &report);
    CHECK(
        Has(st, "value " + ToHex(pairs[i].second) + ", expected " + value_hex));
  }
  SECTION("a missing key") {
    pairs.erase(pairs.begin() + static_cast<long>(i));
    st = Check(spec, store, nullptr, &report);
    CHECK(Has(st, "missing"));
    CHECK(Has(st, value_hex));
  }
  SECTION("a key the dataset does not have") {
    // Just below key i: its last non-zero byte decremented, the rest 0xff.
    std::string extra = pairs[i].first;
    size_t b = extra.size() - 1;
    while (extra[b] == 0) extra[b--] = '\xff';
    --extra[b];
    pairs.insert(pairs.begin() + static_cast<long>(i), {extra, "zz"});
    st = Check(spec, store, nullptr, &report);
    CHECK(Has(st, ToHex(extra) + ": not in the dataset"));
    CHECK(Has(st, "expected key " + key_hex));
  }
  SECTION("a walk error") {
    store.error_table = t;
    store.error_after = i;
    st = Check(spec, store, nullptr, &report);
    CHECK(Has(st, "block checksum mismatch"));
  }
  SECTION("a lookup that disagrees with the walk") {
    MapSession lookups(store);
    lookups.map_[t][pairs[i].first] = "other";
    st = Check(spec, store, &lookups, &report);
    CHECK(Has(st, "lookup returns " + ToHex("other")));
  }
  CHECK(st.code() == Code::kCorruption);
  CHECK(Has(st, "fake " + table + " key "));
  if (!Has(st, "not in the dataset")) CHECK(Has(st, key_hex));
}

TEST_CASE("CheckFull catches a truncated table and trailing extra pairs") {
  Spec spec = MakeSpec("custom", 300, 2, 7).value();
  FakeStore store = Model(spec);
  const int t = GENERATE(0, 1);
  CAPTURE(t);
  FullCheckReport report;
  SECTION("the last pair is missing") {
    std::string last = store.tables[t].back().first;
    store.tables[t].pop_back();
    Status st = Check(spec, store, nullptr, &report);
    CHECK(st.code() == Code::kCorruption);
    CHECK(Has(st, ToHex(last) + ": missing (the table ends after"));
  }
  SECTION("a pair after the last") {
    store.tables[t].push_back({std::string(KeySize(Table(t)), '\xff'), "v"});
    Status st = Check(spec, store, nullptr, &report);
    CHECK(st.code() == Code::kCorruption);
    CHECK(Has(st, "after the last expected key"));
  }
}

TEST_CASE("CheckFull requires an empty storage table when there are no slots") {
  Spec spec = MakeSpec("custom", 200, 0, 7).value();
  FakeStore store = Model(spec);
  FullCheckReport report;
  REQUIRE(Check(spec, store, nullptr, &report).ok());
  store.tables[1].push_back({std::string(kStorageKeySize, '\x01'), "v"});
  Status st = Check(spec, store, nullptr, &report);
  CHECK(st.code() == Code::kCorruption);
  CHECK(Has(st, "fake storage key"));
}
