// The thresholds file: the checked-in defaults, their digest, and every
// malformation rejected with the field named.
#include "report/thresholds.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test/temp_dir.h"

namespace flatbench::report {
namespace {

using nlohmann::json;

std::string CheckedInText() {
  std::ifstream in(FLATBENCH_SOURCE_ROOT "/thresholds.json", std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_CASE("the built-in thresholds are the checked-in file, byte for byte",
          "[report][thresholds]") {
  std::string text = CheckedInText();
  CHECK(BuiltInThresholdsText() == text);
  Result<Thresholds> t = BuiltInThresholds();
  REQUIRE(t.ok());
  CHECK(t->digest == Xxh3Hex(text));
  CHECK(t->digest.size() == 16);
  Result<Thresholds> f =
      LoadThresholdsFile(FLATBENCH_SOURCE_ROOT "/thresholds.json");
  REQUIRE(f.ok());
  CHECK(f->digest == t->digest);
}

TEST_CASE("XXH3-64 digests are 16 lowercase hex digits",
          "[report][thresholds]") {
  // XXH3_64bits of the empty input with seed 0.
  CHECK(Xxh3Hex("") == "2d06800538d394c2");
  CHECK(Xxh3Hex("a") != Xxh3Hex("b"));
}

struct Mutation {
  const char* field;  // Expected in the message.
  std::function<void(json&)> apply;
};

TEST_CASE("a malformed thresholds file is kCorruption naming the field",
          "[report][thresholds]") {
  json doc = json::parse(CheckedInText());
  auto m = GENERATE(
      Mutation{"flatbench_thresholds",
               [](json& d) { d["flatbench_thresholds"] = 2; }},
      Mutation{"gate.mode", [](json& d) { d["gate"]["mode"] = "lukewarm"; }},
      Mutation{"gate.scale", [](json& d) { d["gate"].erase("scale"); }},
      Mutation{"checks[0].min_ratio",
               [](json& d) { d["checks"][0]["min_ratio"] = "1.8"; }},
      Mutation{"checks[2].max_ratio",
               [](json& d) { d["checks"][2]["max_ratio"] = -1; }},
      Mutation{"checks[1].metric",
               [](json& d) { d["checks"][1]["metric"] = "speed"; }},
      Mutation{"checks[0].max_ratio",
               [](json& d) { d["checks"][0]["max_ratio"] = 2; }},
      Mutation{"checks[0].baseline",
               [](json& d) { d["checks"][0]["baseline"] = "arena"; }},
      Mutation{"checks", [](json& d) { d["checks"] = json::array(); }},
      Mutation{"validity.min_repetitions",
               [](json& d) { d["validity"]["min_repetitions"] = 0; }},
      Mutation{"validity.max_resident_fraction",
               [](json& d) { d["validity"]["max_resident_fraction"] = 2; }},
      Mutation{"validity.threads",
               [](json& d) {
                 d["validity"]["threads"] = {1, "8"};
               }},
      Mutation{"validity.cells.blocks",
               [](json& d) { d["validity"]["cells"]["blocks"] = {"hit"}; }},
      Mutation{"validity.cells.storage",
               [](json& d) { d["validity"]["cells"]["storage"] = {"hot"}; }},
      Mutation{"validity.cells.account",
               [](json& d) {
                 d["validity"]["cells"]["account"] = {"hit", "miss-live"};
               }},
      Mutation{"validity.require_asserts_off",
               [](json& d) { d["validity"]["require_asserts_off"] = "yes"; }},
      Mutation{"validity.require_sanity_passd",
               [](json& d) { d["validity"]["require_sanity_passd"] = false; }},
      Mutation{"validity.min_mean_inflight_share",
               [](json& d) { d["validity"]["min_mean_inflight_share"] = 1.5; }},
      Mutation{"validity.max_device_rate_spread",
               [](json& d) { d["validity"]["max_device_rate_spread"] = 0.9; }},
      Mutation{"validity.max_device_drift",
               [](json& d) { d["validity"].erase("max_device_drift"); }},
      Mutation{"validity", [](json& d) { d.erase("validity"); }});
  CAPTURE(m.field);
  m.apply(doc);
  Result<Thresholds> t = ParseThresholds(doc.dump(2), "mine.json");
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().ExitCode() == 65);
  CHECK(t.status().message().find("mine.json") != std::string::npos);
  CHECK(t.status().message().find(std::string("'") + m.field + "'") !=
        std::string::npos);
}

TEST_CASE("thresholds that are not JSON are kCorruption",
          "[report][thresholds]") {
  Result<Thresholds> t = ParseThresholds("{ \"gate\": ", "broken.json");
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().ExitCode() == 65);
  CHECK(t.status().message().find("broken.json") != std::string::npos);
}

TEST_CASE("a missing thresholds file is kMissingInput (66)",
          "[report][thresholds]") {
  flatbench::testing::TempDir tmp;
  Result<Thresholds> t = LoadThresholdsFile(tmp / "none.json");
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().ExitCode() == 66);
  CHECK(t.status().message().find("none.json") != std::string::npos);
}

TEST_CASE("another thresholds file changes the bounds and the digest",
          "[report][thresholds]") {
  json doc = json::parse(CheckedInText());
  doc["checks"][0]["min_ratio"] = 1.5;
  std::string text = doc.dump(2);
  Result<Thresholds> t = ParseThresholds(text, "mine.json");
  REQUIRE(t.ok());
  CHECK(t->checks[0].bound == 1.5);
  CHECK(t->digest == Xxh3Hex(text));
  CHECK(t->digest != BuiltInThresholds()->digest);
}

}  // namespace
}  // namespace flatbench::report
