// The sweep contract (common/sweep_schema.h): bench/SWEEP_FORMAT.md
// against it, and the report's refusal of sweep documents it cannot trust.
#include "common/sweep_schema.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>

#include "report/prediction/sweep_input.h"

namespace flatbench::sweep {
namespace {

using Rows = std::set<std::pair<std::string, std::string>>;

template <size_t N>
Rows FromHeader(const Key (&keys)[N]) {
  Rows out;
  for (const auto& k : keys)
    out.insert({std::string(k.name), TypeName(k.type)});
  return out;
}

TEST_CASE("SWEEP_FORMAT.md lists exactly the contract's keys and types",
          "[report][schema]") {
  std::ifstream in(FLATBENCH_SOURCE_ROOT "/bench/SWEEP_FORMAT.md");
  REQUIRE(in);
  std::map<std::string, Rows> doc;
  std::string section, line;
  const std::regex row(R"(^\| `([a-z0-9_]+)` \| ([a-z]+) \|)");
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) section = line.substr(3);
    std::smatch m;
    if (std::regex_search(line, m, row))
      doc[section].insert({m[1].str(), m[2].str()});
  }
  CHECK(doc["Run-wide keys"] == FromHeader(kTopKeys));
  CHECK(doc["Size keys"] == FromHeader(kSizeKeys));
  CHECK(doc["Geometry keys"] == FromHeader(kGeometryKeys));
  CHECK(doc["Optional run-wide keys"] == FromHeader(kOptionalTopKeys));
  CHECK(doc["Device profile keys"] == FromHeader(kProfileKeys));
  CHECK(doc["Device profile cell keys"] == FromHeader(kProfileCellKeys));
  CHECK(doc["Optional device profile cell keys"] ==
        FromHeader(kProfileCellOptionalKeys));
}

nlohmann::json MinimalSweep() {
  return {{"flatbench_sweep", 1},
          {"slots_per_account", 4},
          {"seed", 1},
          {"planned_accounts", {1000, 2000}},
          {"backends", "arena"},
          {"bench_args", nlohmann::json::array()},
          {"created_datasets", nlohmann::json::array()},
          {"finished", false},
          {"sizes", nlohmann::json::array()}};
}

TEST_CASE("a malformed sweep document is refused naming the key",
          "[report][schema]") {
  REQUIRE(report::ParseSweep(MinimalSweep().dump(), "s.json").ok());
  CHECK(report::LooksLikeSweep(MinimalSweep().dump()));
  CHECK_FALSE(report::LooksLikeSweep(R"({"context": {}, "benchmarks": []})"));

  auto refused = [](const nlohmann::json& d, const std::string& word) {
    auto r = report::ParseSweep(d.dump(), "s.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kCorruption);
    CHECK(r.status().message().find("s.json") != std::string::npos);
    CHECK(r.status().message().find(word) != std::string::npos);
  };
  auto d = MinimalSweep();
  d.erase("sizes");
  refused(d, "sizes");
  d = MinimalSweep();
  d["flatbench_sweep"] = 99;
  refused(d, "format 99");
  d = MinimalSweep();
  d["slots_per_account"] = "four";
  refused(d, "slots_per_account");
  d = MinimalSweep();
  d["sizes"].push_back({{"accounts", 1000}});
  refused(d, "pairs");
  CHECK_FALSE(report::ParseSweep("{not json", "s.json").ok());
  // The device profile is optional, and checked when present.
  d = MinimalSweep();
  d["device_profile"] = {{"flatbench_device_profile", 1}};
  refused(d, "device_profile: missing \"dir\"");
  d["device_profile"] = "fast";
  refused(d, "device_profile: not an object");
}

}  // namespace
}  // namespace flatbench::sweep
