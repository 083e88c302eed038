#include "common/text.h"

namespace flatbench {

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::string Join(const std::vector<int>& items, std::string_view sep) {
  std::vector<std::string> text;
  text.reserve(items.size());
  for (int x : items) text.push_back(std::to_string(x));
  return Join(text, sep);
}

std::string Thousands(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  const size_t size = digits.size();
  for (size_t i = 0; i < size; ++i) {
    if (i > 0 && (size - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string UtcTime(std::time_t t, const char* format) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof(buf), format, &tm);
  return std::string(buf, n);
}

}  // namespace flatbench
