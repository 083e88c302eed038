// The generator's threads: the stream is the same whatever the jobs, and a
// build that fails while others run stops them and leaves nothing partial.
// Also in suite 'threads' (ThreadSanitizer).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "datagen/dataset_dir.h"
#include "datagen/stream.h"
#include "test/datagen/collect_sink.h"
#include "test/temp_dir.h"

using namespace flatbench;
using namespace flatbench::datagen;
namespace fs = std::filesystem;

namespace {

// Counts pairs into DIR/pairs; fails after `limit` pairs.
class CountingLoader : public BulkLoader {
 public:
  CountingLoader(const std::string& dir, uint64_t limit)
      : out_(dir + "/pairs"), limit_(limit) {}
  Status Add(Table, std::string_view key, std::string_view) override {
    out_ << key.size() << '\n';
    if (++added_ < limit_) return Status::Ok();
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
};

LoaderFactory Factory(const std::string& failing) {
  return [failing](const std::string& backend, const std::string& dir,
                   const dataset::Spec&,
                   unsigned) -> Result<std::unique_ptr<BulkLoader>> {
    const uint64_t limit = backend == failing ? 100 : UINT64_MAX;
    return std::unique_ptr<BulkLoader>(new CountingLoader(dir, limit));
  };
}

}  // namespace

TEST_CASE("the stream is the same pairs in the same order at any jobs") {
  const auto spec = dataset::MakeSpec("custom", 5000, 3, 9).value();
  testing::CollectSink one;
  auto d1 = GenerateSorted(spec, &one, nullptr, 1);
  REQUIRE(d1.ok());
  for (unsigned jobs : {2u, 3u, 16u}) {
    CAPTURE(jobs);
    testing::CollectSink many;
    uint64_t last = 0;
    bool ascending = true;
    auto d = GenerateSorted(
        spec, &many,
        [&](uint64_t done, uint64_t) {
          ascending = ascending && done >= last;
          last = done;
        },
        jobs);
    REQUIRE(d.ok());
    CHECK(d->fingerprint == d1->fingerprint);
    CHECK(d->pairs[0] == d1->pairs[0]);
    CHECK(d->pairs[1] == d1->pairs[1]);
    CHECK(many.pairs[0] == one.pairs[0]);
    CHECK(many.pairs[1] == one.pairs[1]);
    CHECK(ascending);
  }
}

TEST_CASE("a sink's error stops a stream made by several jobs") {
  const auto spec = dataset::MakeSpec("custom", 5000, 3, 9).value();
  struct Failing : BulkLoader {
    uint64_t n = 0;
    Status Add(Table, std::string_view, std::string_view) override {
      return ++n < 1000 ? Status::Ok() : Status::IOError("sink full (test)");
    }
    Status Finish() override { return Status::Ok(); }
  } sink;
  auto d = GenerateSorted(spec, &sink, nullptr, 4);
  REQUIRE_FALSE(d.ok());
  CHECK(d.status().message() == "sink full (test)");
  CHECK(sink.n == 1000);
}

TEST_CASE("backends built at once: one failure is reported, none partial") {
  testing::TempDir tmp;
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = dataset::MakeSpec("custom", 3000, 2, 3).value();
  o.progress = false;
  o.jobs = 2;
  o.backends = {"arena", "lmdb", "rocksdb"};
  auto r = Generate(o, Factory("lmdb"));
  REQUIRE_FALSE(r.ok());
  // One line, naming the backend that failed.
  CHECK(r.status().message().find("gen lmdb") != std::string::npos);
  CHECK(r.status().message().find("disk full (test)") != std::string::npos);
  CHECK(r.status().message().find('\n') == std::string::npos);
  CHECK_FALSE(fs::exists(o.dir + "/lmdb"));
  // Another build either finished before the failure or was stopped and
  // removed: never a folder without its marker.
  for (const char* b : {"arena", "rocksdb"}) {
    CAPTURE(b);
    CHECK(fs::exists(o.dir + "/" + b) ==
          fs::exists(o.dir + "/" + b + ".complete"));
  }

  // A rerun resumes: what completed is kept, the rest is built.
  auto again = Generate(o, Factory(""));
  REQUIRE(again.ok());
  REQUIRE(again->size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(again.value()[i].backend == o.backends[i]);
    CHECK(again.value()[i].fingerprint == again.value()[0].fingerprint);
    CHECK(fs::exists(o.dir + "/" + o.backends[i] + ".complete"));
  }
}

namespace {

// A sink that takes buckets: Prepare copies a run's pairs (on the making
// thread), Commit appends them; fails at the `fail_at`-th Commit.
class BucketSink : public testing::CollectSink {
 public:
  explicit BucketSink(int fail_at = -1) : fail_at_(fail_at) {}
  struct Part : LoadPart {
    BucketSink* sink = nullptr;
    Table table = Table::kAccount;
    std::vector<std::pair<std::string, std::string>> pairs;
    Status AppendTo(BulkLoader* loader) override {
      if (loader != sink) return Status::Usage("not this sink's part");
      auto& out = sink->pairs[static_cast<int>(table)];
      out.insert(out.end(), pairs.begin(), pairs.end());
      return Status::Ok();
    }
  };
  bool TakesBuckets() const override { return true; }
  Result<std::unique_ptr<LoadPart>> Prepare(Table table,
                                            const PairRun& run) override {
    auto p = std::make_unique<Part>();
    p->sink = this;
    p->table = table;
    for (size_t i = 0; i < run.size(); ++i) {
      p->pairs.emplace_back(std::string(run.key(i)), std::string(run.value(i)));
    }
    return std::unique_ptr<LoadPart>(std::move(p));
  }
  Status Commit(std::unique_ptr<LoadPart> part) override {
    if (commits++ == fail_at_) return Status::IOError("disk full (test)");
    return part->AppendTo(this);
  }
  int commits = 0;

 private:
  const int fail_at_;
};

}  // namespace

TEST_CASE("a sink that takes buckets gets the stream of one that takes pairs") {
  const auto spec = dataset::MakeSpec("custom", 5000, 3, 9).value();
  testing::CollectSink pairs;
  auto d1 = GenerateSorted(spec, &pairs, nullptr, 1);
  REQUIRE(d1.ok());
  REQUIRE(pairs.pairs[1].size() == 15000);
  for (unsigned jobs : {1u, 2u, 3u, 16u}) {
    CAPTURE(jobs);
    BucketSink buckets;
    uint64_t last = 0;
    auto d = GenerateSorted(
        spec, &buckets, [&](uint64_t done, uint64_t) { last = done; }, jobs);
    REQUIRE(d.ok());
    CHECK(d->fingerprint == d1->fingerprint);
    CHECK(buckets.pairs[0] == pairs.pairs[0]);
    CHECK(buckets.pairs[1] == pairs.pairs[1]);
    // One part per non-empty bucket of each table, and progress to the end.
    CHECK(buckets.commits <= 512);
    CHECK(buckets.commits > 256);
    CHECK(last == 2 * spec.accounts + spec.storage_slots());
  }
}

TEST_CASE("a failed Commit stops a stream made by several jobs") {
  const auto spec = dataset::MakeSpec("custom", 5000, 3, 9).value();
  const unsigned jobs = GENERATE(1u, 2u, 4u);
  CAPTURE(jobs);
  BucketSink sink(/*fail_at=*/300);
  auto d = GenerateSorted(spec, &sink, nullptr, jobs);
  REQUIRE_FALSE(d.ok());
  CHECK(d.status().message() == "disk full (test)");
  // Nothing is committed after the failure.
  CHECK(sink.commits == 301);
}
