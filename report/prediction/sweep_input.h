#pragma once
// A sweep document (common/sweep_schema.h) as the prediction report reads
// it: every key checked for presence and type, each size's embedded bench
// results parsed through the results contract (run_data.h), and each
// backend's read geometry (model.h).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "report/prediction/model.h"
#include "report/prediction/structural.h"
#include "report/run_data.h"

namespace flatbench::report {

struct SweepSize {
  uint64_t accounts = 0;
  uint64_t pairs = 0;
  std::string spec;
  std::map<std::string, BackendGeometry> geometry;  // Modelled backends.
  ResultSet results;
};

struct SweepInput {
  std::string file;
  uint32_t slots_per_account = 0;
  uint64_t seed = 0;
  std::string backends;
  std::vector<uint64_t> planned_accounts;
  bool finished = false;
  std::vector<SweepSize> sizes;  // Ascending accounts.
  // The profile the prediction is priced on: the sweep directory's, when
  // the sweep measured one, or the one the report was given.
  std::optional<DeviceProfile> device_profile;
  // The sweep directory's own profile (the device it measured on), kept
  // when the report prices on another; c moves between the two
  // (structural.h, OnDevice).
  std::optional<DeviceProfile> own_device_profile;
  const DeviceProfile* MeasuredOn() const {
    return own_device_profile ? &*own_device_profile : nullptr;
  }
};

// Whether `text` is a sweep document (a JSON object with the version key),
// as opposed to bench results.
bool LooksLikeSweep(std::string_view text);

// Parses a sweep document; `file` names it in errors. kCorruption for
// malformed JSON, another version, a missing or mistyped key (named), sizes
// out of order, results the results contract refuses, or a malformed
// device profile.
Result<SweepInput> ParseSweep(std::string_view text, const std::string& file);

}  // namespace flatbench::report
