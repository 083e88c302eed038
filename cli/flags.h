#pragma once
// Flags that several subcommands share: comma-separated lists, checked by
// CLI11 as it parses, and the choice of a dataset directory or one file.

#include <CLI/CLI.hpp>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/text.h"
#include "dataset/spec.h"

namespace flatbench::cli {

// Adds `name`, a comma-separated list stored into `out`: CLI11 splits it,
// the caller's ->check() validates each item, and an item given twice is a
// usage error naming it. A non-empty `*out` is the default shown in --help.
template <typename T>
CLI::Option* AddListOption(CLI::App* sub, const std::string& name,
                           std::vector<T>* out, const std::string& help) {
  static_assert(std::is_same_v<T, std::string> || std::is_same_v<T, int>);
  CLI::Option* opt = sub->add_option_function<std::vector<T>>(
      name,
      [name, out](const std::vector<T>& items) {
        for (size_t i = 0; i < items.size(); ++i) {
          for (size_t j = 0; j < i; ++j) {
            if (items[i] != items[j]) continue;
            if constexpr (std::is_same_v<T, int>) {
              throw CLI::ValidationError(
                  name, "'" + std::to_string(items[i]) + "' given twice");
            } else {
              throw CLI::ValidationError(name,
                                         "'" + items[i] + "' given twice");
            }
          }
        }
        *out = items;
      },
      help);
  opt->delimiter(',');
  if (!out->empty()) opt->default_str(Join(*out));
  return opt;
}

// The contract's names (results::kTables, kModes, ...) as strings, for
// CLI11's choices and defaults.
std::vector<std::string> Names(std::span<const std::string_view> names);

// A whole number of at least 1 (CLI11's ranges print 2^64 - 1 as the top).
CLI::Validator AtLeastOne();

// The stream of blocks (dataset::StreamSpec): --blocks and the stream's
// parameters, for gen (the state after N blocks, bulk-loaded) and age (the
// same state, reached through each store's write path). Defaults are the
// StreamSpec's.
void AddStreamOptions(CLI::App* sub, dataset::StreamSpec* stream);

// `--dir DIR` or `--file F`, exactly one of them (a CLI11 option group).
void AddDirOrFile(CLI::App* sub, std::string* dir, std::string* file);

}  // namespace flatbench::cli
