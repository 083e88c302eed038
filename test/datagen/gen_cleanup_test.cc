// Generate leaves no partial backend behind: on a loader error, on a stop
// request, and from an earlier killed run; and never touches a complete
// backend or a file that is not the dataset's.
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "datagen/dataset_dir.h"
#include "datagen/dataset_files.h"
#include "test/temp_dir.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
namespace fs = std::filesystem;

namespace {

// Writes each pair's key to a file in its folder; fails, or raises the stop
// flag, after `limit` pairs.
class FileLoader : public BulkLoader {
 public:
  FileLoader(const std::string& dir, uint64_t limit,
             volatile std::sig_atomic_t* stop)
      : out_(dir + "/pairs"), limit_(limit), stop_(stop) {}
  Status Add(Table, std::string_view key, std::string_view) override {
    out_ << key.size() << '\n';
    if (++added_ < limit_) return Status::Ok();
    if (stop_ != nullptr) {
      *stop_ = 1;
      return Status::Ok();
    }
    return Status::IOError("disk full (test)");
  }
  Status Finish() override {
    out_.close();
    return Status::Ok();
  }

 private:
  std::ofstream out_;
  uint64_t added_ = 0;
  uint64_t limit_;
  volatile std::sig_atomic_t* stop_;
};

// "arena" loads fine; "lmdb" fails (or asks to stop) after 100 pairs.
LoaderFactory Factory(volatile std::sig_atomic_t* stop) {
  return [stop](const std::string& backend, const std::string& dir, const Spec&,
                unsigned) -> Result<std::unique_ptr<BulkLoader>> {
    uint64_t limit = backend == "lmdb" ? 100 : UINT64_MAX;
    return std::unique_ptr<BulkLoader>(new FileLoader(dir, limit, stop));
  };
}

GenOptions Options(const std::string& dir) {
  GenOptions o;
  o.dir = dir;
  o.spec = MakeSpec("custom", 500, 2, 3).value();
  o.progress = false;
  return o;
}

}  // namespace

TEST_CASE("a failed or stopped build removes its partial backend only") {
  testing::TempDir tmp;
  GenOptions o = Options(tmp / "ds");
  o.backends = {"arena"};
  REQUIRE(Generate(o, Factory(nullptr)).ok());
  { std::ofstream(o.dir + "/notes.txt") << "not ours"; }

  volatile std::sig_atomic_t stop = 0;
  const bool stopped = GENERATE(false, true);
  o.jobs = GENERATE(1u, 2u);
  CAPTURE(stopped, o.jobs);
  o.backends = {"arena", "lmdb"};
  if (stopped) o.stop = &stop;
  auto r = Generate(o, Factory(stopped ? &stop : nullptr));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find(stopped ? "interrupted" : "disk full") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(o.dir + "/lmdb"));
  CHECK_FALSE(fs::exists(o.dir + "/lmdb.complete"));
  CHECK(fs::exists(o.dir + "/arena/pairs"));
  CHECK(fs::exists(o.dir + "/arena.complete"));
  CHECK(fs::exists(o.dir + "/notes.txt"));
  CHECK(Dataset::Open(o.dir).ok());
}

TEST_CASE("gen removes what a killed gen left, and nothing complete") {
  testing::TempDir tmp;
  GenOptions o = Options(tmp / "ds");
  o.backends = {"arena"};
  REQUIRE(Generate(o, Factory(nullptr)).ok());
  // As a kill -9 mid-build leaves them: a folder without a marker and
  // half-written marker and identity files.
  fs::create_directories(o.dir + "/rocksdb/ingest-staging");
  { std::ofstream(o.dir + "/rocksdb/000001.sst") << "partial"; }
  { std::ofstream(o.dir + "/lmdb.complete.tmp") << "{"; }
  { std::ofstream(o.dir + "/dataset.json.tmp") << "{"; }
  { std::ofstream(o.dir + "/notes.txt") << "not ours"; }

  REQUIRE(Generate(o, Factory(nullptr)).ok());  // arena: already complete.
  CHECK_FALSE(fs::exists(o.dir + "/rocksdb"));
  CHECK_FALSE(fs::exists(o.dir + "/lmdb.complete.tmp"));
  CHECK_FALSE(fs::exists(o.dir + "/dataset.json.tmp"));
  CHECK(fs::exists(o.dir + "/arena/pairs"));
  CHECK(fs::exists(o.dir + "/notes.txt"));
}

TEST_CASE("a second gen on a directory being built is refused") {
  testing::TempDir tmp;
  GenOptions o = Options(tmp / "ds");
  o.backends = {"arena"};
  REQUIRE(Generate(o, Factory(nullptr)).ok());
  fs::create_directories(o.dir + "/lmdb");  // Another gen's build.
  DirLock other;
  REQUIRE(other.Lock(o.dir).ok());
  auto r = Generate(o, Factory(nullptr));
  CHECK(r.status().code() == Code::kRefuseOverwrite);
  CHECK(r.status().message().find("another flatbench process") !=
        std::string::npos);
  CHECK(fs::exists(o.dir + "/lmdb"));
}

TEST_CASE("readers share a dataset; a writer waits for none of them") {
  testing::TempDir tmp;
  GenOptions o = Options(tmp / "ds");
  o.backends = {"arena"};
  REQUIRE(Generate(o, Factory(nullptr)).ok());
  {
    // Two readers (bench, verify, get) at once: a gen is refused.
    DirLock bench, verify;
    REQUIRE(bench.LockShared(o.dir).ok());
    REQUIRE(verify.LockShared(o.dir).ok());
    auto r = Generate(o, Factory(nullptr));
    CHECK(r.status().code() == Code::kRefuseOverwrite);
    CHECK(r.status().message().find(o.dir) != std::string::npos);
  }
  {
    // A writer (gen, age, merge) at work: a reader is refused, naming it.
    DirLock writer;
    REQUIRE(writer.Lock(o.dir).ok());
    DirLock reader;
    Status st = reader.LockShared(o.dir);
    CHECK(st.code() == Code::kRefuseOverwrite);
    CHECK(st.message() ==
          o.dir +
              ": another flatbench gen, age or merge is writing this "
              "dataset");
  }
  // Both let go: the dataset is free again.
  CHECK(Generate(o, Factory(nullptr)).ok());
}

TEST_CASE("RemovePartialBackend never removes a complete backend") {
  testing::TempDir tmp;
  fs::create_directories(tmp / "b");
  { std::ofstream(tmp / "b.complete") << "{}"; }
  auto r = RemovePartialBackend(tmp / "b", tmp / "b.complete");
  REQUIRE(r.ok());
  CHECK_FALSE(r.value());
  CHECK(fs::exists(tmp / "b"));
  fs::remove(tmp / "b.complete");
  r = RemovePartialBackend(tmp / "b", tmp / "b.complete");
  REQUIRE(r.ok());
  CHECK(r.value());
  CHECK_FALSE(fs::exists(tmp / "b"));
}
