#pragma once
// Sanity check of an open backend against regenerated expected data: a
// sample of hit keys must return their exact bytes, and miss keys of every
// kind must be absent, on both tables.

#include <cstdint>
#include <string>

#include "common/backend.h"
#include "datagen/sampler.h"
#include "datagen/spec.h"

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
Status CheckSample(Backend& backend, const Spec& spec,
                   const CheckOptions& options, CheckReport* report);

}  // namespace flatbench::datagen
