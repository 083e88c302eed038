#pragma once
// Checks of an open backend against regenerated expected data.
//
// CheckSample: a sample of hit keys must return their exact bytes, and miss
// keys of every kind must be absent, on both tables.
// CheckFull: every pair of every table, in key order, must equal the
// generator's ordered stream, with nothing missing and nothing extra.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/backend.h"
#include "datagen/sampler.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

struct CheckOptions {
  uint64_t samples = 10'000;  // Per table and key kind.
  uint64_t seed = 0x636865636bULL;
  // Test hook: flips a byte of every expected value, so the check must fail.
  bool corrupt_expectations = false;
};

struct CheckReport {
  uint64_t checked = 0;  // Keys looked up, all tables and kinds.
  uint64_t hits_verified = 0;
  uint64_t misses_verified = 0;
};

// kCorruption naming the backend, table, key kind and key on the first
// wrong answer; lookup errors are returned as they are.
Status CheckSample(Backend& backend, const dataset::Spec& spec,
                   const CheckOptions& options, CheckReport* report);

// Pulls the next pair of one table, in ascending key order, from a backend:
// sets *valid, and when true *key and *value, which stay valid until the
// next call. A non-ok status (read error, corruption) ends the walk.
using NextPairFn = std::function<Status(bool* valid, std::string_view* key,
                                        std::string_view* value)>;
// Starts an ordered walk of `table`.
using ScanOpener = std::function<Result<NextPairFn>(Table table)>;

struct FullCheckOptions {
  bool progress = true;  // Progress lines on stderr.
  // When set, every expected key is also looked up through this session and
  // must return the same value.
  ReadSession* lookups = nullptr;
};

struct FullCheckReport {
  uint64_t pairs[kNumTables] = {0, 0};  // Pairs compared per table.
  uint64_t lookups = 0;
  double seconds = 0;
};

// Regenerates `spec` in key order and compares it pair by pair with the
// walk `open_scan` gives of each table (and with a lookup of every key when
// options.lookups is set). kCorruption on the first difference: a wrong
// value, a missing key or a key the dataset does not have, naming
// `backend`, the table, the key and both values in hex. Errors of the walk
// or the lookups are returned with the same context.
Status CheckFull(const dataset::Spec& spec, const std::string& backend,
                 const ScanOpener& open_scan, const FullCheckOptions& options,
                 FullCheckReport* report);

}  // namespace flatbench::datagen
