// The backends table: every built entry opens its store's files under its
// own name; its stores are the dataset's; its queries follow its entries;
// it holds one entry per backend of the facts, and every fact is given.
#include "backends/table.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>
#include <string>
#include <vector>

#include "datagen/dataset_dir.h"
#include "dataset/backend_facts.h"
#include "dataset/estimate.h"
#include "dataset/names.h"
#include "test/tiny_dataset.h"

using namespace flatbench;

namespace {

bool Has(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("every built entry opens its store's files under its own name") {
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  int opened = 0, not_held = 0;
  for (const backends::Entry& e : backends::All()) {
    const std::string name(e.name);
    CAPTURE(name);
    if (!e.built) {
      CHECK(e.open == nullptr);
      CHECK(e.load == nullptr);
      CHECK(backends::Open(name, ds->BackendDir(name), {}).status().code() ==
            Code::kUsage);
      continue;
    }
    REQUIRE(e.open != nullptr);
    CHECK((e.load != nullptr) == e.is_store());
    CHECK(dataset::StoreOf(name) == e.store);
    if (!testing::TinyHolds(name)) {  // The file store, left out of it.
      ++not_held;
      continue;
    }
    auto b = backends::Open(name, ds->BackendDir(name), {});
    INFO(b.status().message());
    REQUIRE(b.ok());
    CHECK(b.value()->Name() == name);
    ++opened;
  }
  CHECK(opened + not_held == static_cast<int>(backends::Names().size()));
  CHECK(opened > not_held);
}

TEST_CASE("the table's stores are the dataset's and the estimates'") {
  std::vector<std::string> stores;
  for (const backends::Entry& e : backends::All()) {
    if (e.is_store()) stores.emplace_back(e.store);
  }
  std::vector<std::string> dataset_stores(std::begin(dataset::kStores),
                                          std::end(dataset::kStores));
  CHECK(stores == dataset_stores);
  std::vector<std::string> figures;
  for (const dataset::BackendFacts* f : dataset::kStoreFacts) {
    figures.emplace_back(f->name);
  }
  CHECK(figures == dataset_stores);
  // Every read variant reads a store of the table.
  for (const backends::Entry& e : backends::All()) {
    CAPTURE(e.name);
    CHECK(Has(stores, e.store));
  }
}

TEST_CASE("the table's queries follow its entries") {
  const std::vector<std::string> names = backends::Names();
  const std::vector<std::string> stores = backends::Stores();
  // Stores first, then the read variants, each built entry once.
  REQUIRE(names.size() >= stores.size());
  CHECK(std::equal(stores.begin(), stores.end(), names.begin()));
  for (const backends::Entry& e : backends::All()) {
    CAPTURE(e.name);
    CHECK(Has(names, e.name) == e.built);
    CHECK(Has(stores, e.name) == (e.built && e.is_store()));
    CHECK(backends::Find(e.name) == &e);
  }
  CHECK(backends::Find("nope") == nullptr);
  for (const std::string& v : backends::DefaultVariants()) {
    CAPTURE(v);
    REQUIRE(backends::Find(v) != nullptr);
    CHECK(backends::Find(v)->default_variant);
    CHECK_FALSE(backends::Find(v)->is_store());
  }
  // A store with a pair limit leaves the defaults above it.
  const auto tiny = dataset::MakeSpec("tiny", 0, 0, 1).value();
  const auto full = dataset::MakeSpec("full", 0, 0, 1).value();
  for (const backends::Entry& e : backends::All()) {
    if (!e.built || !e.is_store()) continue;
    CAPTURE(e.name);
    CHECK(Has(backends::DefaultStores(tiny), e.name));
    CHECK(Has(backends::DefaultStores(full), e.name) == (e.max_pairs == 0));
  }
  for (const auto& [library, version] : backends::LibraryVersions()) {
    CAPTURE(library);
    CHECK_FALSE(version.empty());
  }
  // A linked library's version has its own key in the results' context.
  for (const dataset::BackendFacts& f : dataset::kBackends) {
    if (f.library.empty()) continue;
    CAPTURE(f.name);
    bool listed = false;
    for (const results::ContextKey& k : results::AllContextKeys()) {
      listed = listed || k.name == f.library_key.name;
    }
    CHECK(listed);
    CHECK(f.library_key.name == "flatbench.lib." + std::string(f.library));
  }
}

TEST_CASE("unknown names and read variants are refused with kUsage") {
  auto unknown = backends::Built("nope", "--backend");
  CHECK(unknown.status().code() == Code::kUsage);
  CHECK(unknown.status().message().find("--backend: unknown backend 'nope'") ==
        0);
  const auto tiny = dataset::MakeSpec("tiny", 0, 0, 1).value();
  for (const backends::Entry& e : backends::All()) {
    if (!e.built || e.is_store()) continue;
    CAPTURE(e.name);
    Status st = backends::CheckBuildable(std::string(e.name), tiny, "unused");
    CHECK(st.code() == Code::kUsage);
    CHECK(st.message().find("reads the files of '" + std::string(e.store)) !=
          std::string::npos);
    CHECK(backends::NewLoader(std::string(e.name), "unused", tiny, 1)
              .status()
              .code() == Code::kUsage);
  }
}

TEST_CASE("the table holds one entry per backend of the facts, in order") {
  REQUIRE(backends::All().size() == std::size(dataset::kBackends));
  size_t i = 0;
  for (const backends::Entry& e : backends::All()) {
    const dataset::BackendFacts& f = dataset::kBackends[i++];
    CAPTURE(f.name);
    CHECK(e.name == f.name);
    CHECK(e.store == f.store);
    CHECK(dataset::FindFacts(e.name) == &f);
    CHECK(e.built == (e.open != nullptr));
  }
  // The arena and its read paths are this project's: always built.
  for (const backends::Entry& e : backends::All()) {
    CAPTURE(e.name);
    if (e.store == "arena") CHECK(e.built);
  }
  CHECK(dataset::FindFacts("nope") == nullptr);
}

TEST_CASE("every backend's facts are complete") {
  std::vector<std::string> names;
  for (const dataset::BackendFacts& f : dataset::kBackends) {
    CAPTURE(f.name);
    CHECK_FALSE(Has(names, f.name));  // Each name once.
    names.emplace_back(f.name);
    CHECK(dataset::StoreOf(f.name) == f.store);
    const dataset::BackendFacts* store = dataset::FindFacts(f.store);
    REQUIRE(store != nullptr);
    CHECK(store->is_store());
    if (!f.is_store()) {
      CHECK(f.name.find('+') != std::string_view::npos);
      continue;
    }
    const dataset::StoreFigures& g = f.figures;
    CHECK(g.disk_factor >= 0);
    CHECK(g.pairs_per_second > 0);
    CHECK(g.pairs_per_second_2 > 0);
    CHECK(g.age_seconds_per_block > 0);
    CHECK(g.merge_pairs_per_second >= 0);
    CHECK_FALSE(g.rates_from.empty());
    // A server's start is what its setup time is.
    CHECK(f.needs_server == (g.setup_seconds > 0));
    CHECK(&dataset::FiguresOf(f.name) == &g);
    const dataset::PassCost& c = f.cost;
    CHECK(c.open_s > 0);
    CHECK(c.open_s_per_pair >= 0);
    CHECK(c.hit_reads > 0);
    CHECK(c.miss_reads >= 0);
    CHECK(c.cpu_read_s > 0);
    CHECK(c.warm_read_s > 0);
    CHECK(c.scan_reads > 0);
    CHECK(c.probe_s > 0);
    CHECK(c.per_file_s > 0);
  }
  // A name that is no store is priced as the fallback store.
  CHECK(&dataset::FiguresOf("nope") ==
        &dataset::FindFacts(dataset::kFallbackStore)->figures);
  CHECK(&dataset::FiguresOf("arena+cache") ==
        &dataset::FindFacts(dataset::kFallbackStore)->figures);
}
