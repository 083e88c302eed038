// A journal whose header was written before it held the run request keeps
// the run's flags as text: it is read into the same request, so that run
// resumes, and a flag whose text does not read is refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bench/journal.h"
#include "test/bench/journal_fixture.h"
#include "test/temp_dir.h"

namespace flatbench::bench {
namespace {

using journal_fixture::Header;
using nlohmann::json;

// The flags a header held, as bench wrote them for a run of `threads`
// (given or not) and these values.
json Flags(const std::string& threads, const std::string& batch_threads) {
  return {{"--backends", "arena,rocksdb"},
          {"--modes", "warm,cold,cold-lazy"},
          {"--tables", "account,storage"},
          {"--kinds", "hit,miss-absent,miss-live"},
          {"--threads", threads},
          {"--reads", "200"},
          {"--repetitions", "2"},
          {"--device-reads", "as --reads"},
          {"--evict", "fadvise"},
          {"--scan-length", "100"},
          {"--scans", "0"},
          {"--startup-probes", "5"},
          {"--batch-size", "32 (batch threads " + batch_threads + ")"},
          {"--check-samples", "10000"},
          {"--cache-mib", "1024"},
          {"--full-reference", "no"},
          {"--thresholds", ""},
          {"--device-profile", ""}};
}

// The request a run of those flags records now.
RunRequest Request(const std::vector<int>& threads_given) {
  RunRequest r;
  r.backends = {"arena", "rocksdb"};
  r.threads = threads_given;
  r.reads = 200;
  r.repetitions = 2;
  r.evict = "fadvise";
  return r;
}

TEST_CASE("a journal header's flags read as the run's request",
          "[bench][journal]") {
  // --threads left out: the batch cells ran at their default.
  auto r = RequestFromFlags(Flags("1,8,32", "1,2"));
  REQUIRE(r.ok());
  CHECK(r.value() == Request({}));
  // --threads given: the batch cells ran at them too.
  r = RequestFromFlags(Flags("1,2", "1,2"));
  REQUIRE(r.ok());
  CHECK(r.value() == Request({1, 2}));
  // No device cells, or as many as given.
  json f = Flags("1,8,32", "1,2");
  f["--device-reads"] = "none (--no-device)";
  r = RequestFromFlags(f);
  REQUIRE(r.ok());
  CHECK(r->no_device);
  f["--device-reads"] = "77";
  r = RequestFromFlags(f);
  REQUIRE(r.ok());
  CHECK(r->device_reads == 77);
  CHECK_FALSE(r->no_device);
  f["--device-reads"] = "lots";
  CHECK(RequestFromFlags(f).status().message().find("--device-reads") !=
        std::string::npos);
}

TEST_CASE("a journal with flags in its header resumes the same run",
          "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  JournalHeader h = Header();
  h.request = Request({});
  REQUIRE(JournalWriter::Create(path, h).ok());
  // The same header as bench wrote it before it held the request.
  json payload = json::parse(
      testing::ReadAll(path).substr(testing::ReadAll(path).find('{')));
  payload.erase("request");
  payload["flags"] = Flags("1,8,32", "1,2");
  testing::WriteAll(path, JournalLine(payload));
  auto s = ReadJournal(path);
  REQUIRE(s.ok());
  CHECK(s->header.request == h.request);
  CHECK(CheckSameRun(path, s->header, h).ok());
  JournalHeader now = h;
  now.request.reads = 300;
  CHECK(CheckSameRun(path, s->header, now)
            .message()
            .find("--reads: 300 differs from the 200") != std::string::npos);
  // A flag whose text does not read: the header is damage.
  payload["flags"]["--reads"] = "many";
  testing::WriteAll(path, JournalLine(payload));
  s = ReadJournal(path);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Code::kCorruption);
  CHECK(s.status().message().find("--reads") != std::string::npos);
}

}  // namespace
}  // namespace flatbench::bench
