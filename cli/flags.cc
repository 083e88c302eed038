#include "cli/flags.h"

#include <cstdint>

namespace flatbench::cli {

std::string JoinCsv(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::string JoinCsv(const std::vector<int>& items) {
  std::vector<std::string> text;
  for (int item : items) text.push_back(std::to_string(item));
  return JoinCsv(text);
}

CLI::Validator AtLeastOne() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        uint64_t v = 0;
        // strtoull, beneath lexical_cast, wraps "-3" around to 2^64 - 3.
        if (input.find('-') == std::string::npos &&
            CLI::detail::lexical_cast(input, v) && v >= 1) {
          return "";
        }
        return "'" + input + "' is not a whole number of at least 1";
      },
      "AT LEAST 1");
}

std::vector<std::string> Names(std::span<const std::string_view> names) {
  return {names.begin(), names.end()};
}

void AddDirOrFile(CLI::App* sub, std::string* dir, std::string* file) {
  CLI::Option_group* source =
      sub->add_option_group("source", "What to read: exactly one of");
  source->add_option("--dir", *dir, "Dataset directory");
  source->add_option("--file", *file, "A single arena file");
  source->require_option(1);
}

}  // namespace flatbench::cli
