#pragma once
// The journal tests' shared fixture: a two-step schedule and its header.

#include <string>
#include <vector>

#include "bench/journal.h"
#include "common/results_schema.h"

namespace flatbench::bench::journal_fixture {

inline std::vector<Phase> TwoSteps() {
  Step a;
  a.backend = "arena";
  a.mode = Mode::kCold;
  a.reads_per_thread = 10;
  Step b = a;
  b.repetition = 1;
  b.first_index = 10;
  return {Phase{Mode::kCold, {a, b}}};
}

inline JournalHeader Header() {
  JournalHeader h;
  h.request.reads = 200;
  h.request.repetitions = 2;
  h.identity = {{std::string(results::kDatasetDir.name), "/data/tiny"},
                {std::string(results::kSpec.name), "tiny"},
                {std::string(results::kFingerprint.name), "f00d"},
                {std::string(results::kRevision.name), "abc"}};
  h.schedule = TwoSteps();
  h.started = 1000;
  h.run_start = "2026-01-01T00:00:00Z";
  return h;
}

}  // namespace flatbench::bench::journal_fixture
