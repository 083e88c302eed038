#pragma once
// Small text helpers that the command line, the bench and the report share:
// lists joined with commas, digits grouped in thousands, UTC times.

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace flatbench {

// "a,b,c" (with `sep` between the items; empty for no items).
std::string Join(const std::vector<std::string>& items,
                 std::string_view sep = ",");
std::string Join(const std::vector<int>& items, std::string_view sep = ",");

// "1,234,567": the decimal digits of `n` in groups of three.
std::string Thousands(uint64_t n);

// `t` in UTC, formatted by strftime's `format`; by default ISO 8601,
// "2026-12-02T13:20:05Z".
std::string UtcTime(std::time_t t, const char* format = "%Y-%m-%dT%H:%M:%SZ");

}  // namespace flatbench
