#pragma once
// What each counter, context key and per-backend key of the results
// contract (results_schema.h, results_ops.h) means, in the words of
// bench/RESULTS_FORMAT.md's meaning column (tested equal), written once in
// results_meanings.cc. Each table holds every name of its kind exactly once.

#include <span>
#include <string_view>

#include "common/results_schema.h"

namespace flatbench::results {

struct Meaning {
  std::string_view name;
  std::string_view text;
};
std::span<const Meaning> CounterMeanings();
std::span<const Meaning> ContextKeyMeanings();
std::span<const Meaning> BackendKeyMeanings();
std::span<const Meaning> BackendCounterMeanings();
// The name's meaning; empty for a name the tables lack.
std::string_view MeaningOf(const Counter& counter);
std::string_view MeaningOf(const ContextKey& key);
std::string_view MeaningOf(const BackendContextKey& key);
std::string_view MeaningOf(const BackendCounter& counter);

}  // namespace flatbench::results
