// A device profile's refusals (common/device_profile.h): each one line
// naming the file and the key at fault, one message per condition.
#include "common/device_profile.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "test/crafted_profile.h"
#include "test/temp_dir.h"

namespace flatbench {
namespace {

using nlohmann::json;

// Parses `doc` as the profile "p.json" and expects kCorruption (65) with a
// one-line message holding every one of `parts`.
void Refused(const json& doc, const std::vector<std::string>& parts) {
  auto r = ParseDeviceProfile(doc, "p.json");
  REQUIRE_FALSE(r.ok());
  const std::string& m = r.status().message();
  INFO(m);
  CHECK(r.status().ExitCode() == 65);
  CHECK(m.find('\n') == std::string::npos);
  CHECK(m.rfind("p.json: ", 0) == 0);
  for (const auto& p : parts) CHECK(m.find(p) != std::string::npos);
}

TEST_CASE("the crafted profile is accepted") {
  CHECK(ParseDeviceProfile(testing::CraftedDeviceProfile(), "p.json").ok());
}

TEST_CASE("another profile format names the version key") {
  json d = testing::CraftedDeviceProfile();
  d["flatbench_device_profile"] = 2;
  Refused(d, {"\"flatbench_device_profile\": format 2, this build reads "
              "format 1"});
}

TEST_CASE("each impossible cell figure is its own message naming its key") {
  json d = testing::CraftedDeviceProfile();
  json& c = d["cells"][3];
  const double rate = c["reads_per_s"].get<double>();
  std::vector<std::string> parts;
  SECTION("zero latency") {
    c["lat_mean_ns"] = 0;
    parts = {"cells[3]: \"lat_mean_ns\" is 0, must be above 0"};
  }
  SECTION("zero rate") {
    c["reads_per_s"] = 0;
    c["reads_per_s_low"] = 0;
    parts = {"cells[3]: \"reads_per_s\" is 0, must be above 0"};
  }
  SECTION("zero slowest round") {
    c["reads_per_s_low"] = 0;
    parts = {"cells[3]: \"reads_per_s_low\" is 0, must be above 0"};
  }
  SECTION("slowest round above the rate") {
    c["reads_per_s_low"] = rate * 3;
    parts = {"cells[3]: \"reads_per_s_low\" is ", "above \"reads_per_s\""};
  }
  SECTION("fastest round below the rate") {
    c["reads_per_s_high"] = rate / 3;
    parts = {"cells[3]: \"reads_per_s_high\" is ", "below \"reads_per_s\""};
  }
  Refused(d, parts);
}

TEST_CASE("cpus and a missing cell name their keys") {
  json d = testing::CraftedDeviceProfile();
  d["cpus"] = 0;
  Refused(d, {"\"cpus\" is 0, must be at least 1"});
  d = testing::CraftedDeviceProfile();
  d["cells"].erase(d["cells"].begin());
  Refused(d, {"\"cells\": no cell for queue depth 1 and 4096 bytes"});
}

TEST_CASE("a profile file's refusal names the file and the key") {
  testing::TempDir tmp;
  json d = testing::CraftedDeviceProfile();
  d["flatbench_device_profile"] = 2;
  const std::string path = tmp / "p.json";
  std::ofstream(path) << d.dump();
  auto r = LoadDeviceProfileFile(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().ExitCode() == 65);
  CHECK(r.status().message() == "device profile " + path +
                                    ": \"flatbench_device_profile\": format "
                                    "2, this build reads format 1");
}

}  // namespace
}  // namespace flatbench
