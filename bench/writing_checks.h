#pragma once
// Internal to the writing pass (writing_pass.cc): the versions the writer
// wrote of the keys the readers read, and the check of each sampled answer
// against them.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bench/key_plan.h"
#include "common/backend.h"
#include "datagen/sampler.h"

namespace flatbench::bench {

// One sampled answer: thread `thread`'s key `index` read `found` / `value`
// while blocks [lo, hi] of the pass were possible (done when it began,
// begun when it ended).
struct WritingAnswer {
  uint32_t index = 0;
  uint32_t lo = 0, hi = 0;
  bool found = false;
  uint8_t size = 0;  // Bytes of value kept (at most sizeof(value)).
  uint32_t full_size = 0;
  char value[120];
};

class WritingVersions {
 public:
  explicit WritingVersions(const KeyPlan& plan, int threads,
                           uint64_t reads_per_thread);
  // The writer, after applying block `blocks_done - 1` of the pass: the
  // change of a watched key becomes its state after `blocks_done` blocks.
  void Record(const KeyChange& change, uint32_t blocks_done);
  // Checks thread `thread`'s answers; the state before the pass of key i is
  // sampler.Draw(first + thread * reads_per_thread + i), made wrong when
  // `corrupt`. Adds to *checked and *wrong; *first_wrong says what the
  // first wrong answer read and what the blocks allowed, when it is empty.
  void Check(int thread, const std::vector<WritingAnswer>& answers,
             const datagen::Sampler& sampler, uint64_t first, bool corrupt,
             uint64_t* checked, uint64_t* wrong,
             std::string* first_wrong) const;

 private:
  struct Version {
    uint32_t after = 0;  // The state after this many blocks.
    bool erase = false;
    std::string value;
  };
  const KeyPlan& plan_;
  uint64_t reads_per_thread_;
  std::unordered_map<std::string_view, std::vector<Version>> versions_;
};

}  // namespace flatbench::bench
