// Every backend of this build round-trips every key of a tiny dataset, and
// every sampled miss key is absent (the file store: in fs_test.cc, on a
// smaller dataset).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "backends/table.h"
#include "datagen/check.h"
#include "datagen/dataset_dir.h"
#include "datagen/sampler.h"
#include "test/baselines/store_test_util.h"
#include "test/datagen/collect_sink.h"
#include "test/temp_dir.h"
#include "test/tiny_dataset.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;

using flatbench::store_test::SmallSpec;

TEST_CASE("every backend round-trips a tiny dataset") {
  Spec spec = MakeSpec("tiny", 0, 0, kDefaultSeed).value();
  testing::CollectSink model;
  REQUIRE(GenerateSorted(spec, &model).ok());

  auto backends = testing::TinyBackends();
  REQUIRE_FALSE(backends.empty());
  auto ds = Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& name : backends) {
    REQUIRE(ds->Build(name).ok());  // Complete, with its marker.
    store_test::CheckRoundTrip(name, ds->BackendDir(name), spec, model);
  }
}

TEST_CASE("CheckSample fails loudly on a wrong expected value") {
  testing::TempDir tmp;
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = SmallSpec();
  o.backends = {backends::Stores().front()};
  o.progress = false;
  REQUIRE(Generate(o, backends::NewLoader).ok());
  auto ds = Dataset::Open(o.dir);
  REQUIRE(ds.ok());
  auto backend =
      backends::Open(o.backends[0], ds->BackendDir(o.backends[0]), {});
  REQUIRE(backend.ok());
  CheckOptions check;
  check.samples = 50;
  check.corrupt_expectations = true;
  CheckReport report;
  Status st = CheckSample(*backend.value(), o.spec, check, &report);
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message().find("expected") != std::string::npos);
}

TEST_CASE("gen refuses another dataset, resumes, and rebuilds on request") {
  testing::TempDir tmp;
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = SmallSpec();
  o.backends = {backends::Stores().front()};
  o.progress = false;
  auto first = Generate(o, backends::NewLoader);
  REQUIRE(first.ok());
  const std::string fp = first->front().fingerprint;
  // The loaders Generate asks for: none for a skipped backend, one for a
  // rebuilt one. The fingerprint cannot tell them apart (it is the
  // generated stream's, the same either way).
  int loads = 0;
  const LoaderFactory counting = [&loads](const std::string& backend,
                                          const std::string& dir,
                                          const Spec& spec, unsigned jobs) {
    ++loads;
    return backends::NewLoader(backend, dir, spec, jobs);
  };
  const std::string bdir = Dataset::Open(o.dir)->BackendDir(o.backends[0]);
  const std::string stray = bdir + "/stray.txt";
  { std::ofstream(stray) << "not the backend's"; }

  SECTION("a finished backend is skipped: no loader, its files untouched") {
    // One of the backend's own files, with its inode and mtime.
    std::string file;
    for (const auto& e : std::filesystem::recursive_directory_iterator(bdir)) {
      if (e.is_regular_file() && e.path() != stray) file = e.path();
    }
    REQUIRE_FALSE(file.empty());
    struct stat before {};
    REQUIRE(::stat(file.c_str(), &before) == 0);
    auto again = Generate(o, counting);
    REQUIRE(again.ok());
    CHECK(loads == 0);
    CHECK(std::filesystem::exists(stray));
    struct stat after {};
    REQUIRE(::stat(file.c_str(), &after) == 0);
    CHECK(after.st_ino == before.st_ino);
    CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec);
    CHECK(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    CHECK(again->front().fingerprint == fp);
  }
  SECTION("another spec is refused with exit 73 and data kept") {
    GenOptions other = o;
    other.spec = MakeSpec("custom", 2000, 3, 5).value();
    auto r = Generate(other, backends::NewLoader);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kRefuseOverwrite);
    CHECK(r.status().ExitCode() == 73);
    CHECK(r.status().message().find("--rebuild") != std::string::npos);
    auto ds = Dataset::Open(o.dir);
    REQUIRE(ds.ok());
    CHECK(ds->spec() == o.spec);
    CHECK(ds->Build(o.backends[0]).ok());

    other.rebuild = true;
    auto rebuilt = Generate(other, backends::NewLoader);
    REQUIRE(rebuilt.ok());
    CHECK(rebuilt->front().pairs[0] == 2000);
  }
  SECTION("an interrupted backend (no marker) is rebuilt from scratch") {
    std::filesystem::remove(o.dir + "/" + o.backends[0] + ".complete");
    auto resumed = Generate(o, counting);
    REQUIRE(resumed.ok());
    CHECK(loads == 1);
    CHECK_FALSE(std::filesystem::exists(stray));  // The folder was replaced.
    CHECK(resumed->front().fingerprint == fp);
  }
  SECTION("a non-empty foreign directory is refused even with rebuild") {
    std::string foreign = tmp / "foreign";
    std::filesystem::create_directories(foreign);
    { std::ofstream(foreign + "/precious.txt") << "keep me"; }
    GenOptions f = o;
    f.dir = foreign;
    f.rebuild = true;
    auto r = Generate(f, backends::NewLoader);
    CHECK(r.status().code() == Code::kRefuseOverwrite);
    CHECK(std::filesystem::exists(foreign + "/precious.txt"));
  }
}
