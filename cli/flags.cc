#include "cli/flags.h"

#include <cstdint>

namespace flatbench::cli {

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

void AddStreamOptions(CLI::App* sub, dataset::StreamSpec* s) {
  const std::string group = "The stream of blocks";
  auto per_mille = [&](const std::string& name, uint32_t* out,
                       const std::string& what) {
    sub->add_option(name, *out, what + ", per-mille of a block's changes")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000))
        ->group(group);
  };
  sub->add_option("--blocks", s->blocks,
                  "Blocks of the stream applied on top of the bulk load "
                  "(0: the bulk-loaded dataset alone)")
      ->capture_default_str()
      ->group(group);
  sub->add_option("--stream-seed", s->seed, "The stream's seed")
      ->capture_default_str()
      ->group(group);
  sub->add_option("--changes-per-block", s->changes_per_block,
                  "Key changes per block (RESEARCH.md, \"The live node\")")
      ->capture_default_str()
      ->check(CLI::Range(1, 10'000'000))
      ->group(group);
  per_mille("--account-updates", &s->account_updates,
            "Overwrites of live accounts");
  per_mille("--new-accounts", &s->new_accounts, "New accounts");
  per_mille("--slot-updates", &s->slot_updates, "Overwrites of live slots");
  per_mille("--new-slots", &s->new_slots, "New slots of live accounts");
  per_mille("--slot-deletes", &s->slot_deletes, "Deletions of live slots");
  sub->add_option("--hot-share", s->hot_share,
                  "Per-mille of updates, deletions and new slots drawn from "
                  "the hot accounts (0: uniform over the live keys)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000))
      ->group(group);
  sub->add_option("--hot-accounts", s->hot_accounts,
                  "The hot set, per-mille of the bulk-loaded accounts")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000))
      ->group(group);
}

}  // namespace flatbench::cli
