// The shared text helpers: joined lists, grouped digits, UTC times.
#include "common/text.h"

#include <catch2/catch.hpp>

using flatbench::Join;
using flatbench::Thousands;
using flatbench::UtcTime;

TEST_CASE("Join puts the separator between items only") {
  CHECK(Join(std::vector<std::string>{}) == "");
  CHECK(Join(std::vector<std::string>{"a"}) == "a");
  CHECK(Join(std::vector<std::string>{"a", "", "c"}) == "a,,c");
  CHECK(Join(std::vector<std::string>{"a", "b"}, " + ") == "a + b");
  CHECK(Join(std::vector<int>{1, 8, -32}) == "1,8,-32");
}

TEST_CASE("Thousands groups digits in threes from the right") {
  CHECK(Thousands(0) == "0");
  CHECK(Thousands(999) == "999");
  CHECK(Thousands(1000) == "1,000");
  CHECK(Thousands(1234567) == "1,234,567");
  CHECK(Thousands(18446744073709551615ull) == "18,446,744,073,709,551,615");
}

TEST_CASE("UtcTime formats in UTC whatever the local zone") {
  // 2026-12-02 13:20:05 UTC.
  const std::time_t t = 1796217605;
  CHECK(UtcTime(t) == "2026-12-02T13:20:05Z");
  CHECK(UtcTime(t, "%Y%m%d-%H%M%S") == "20261202-132005");
  CHECK(UtcTime(0) == "1970-01-01T00:00:00Z");
}
