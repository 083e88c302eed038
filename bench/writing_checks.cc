#include "bench/writing_checks.h"

#include "common/hex.h"

namespace flatbench::bench {

WritingVersions::WritingVersions(const KeyPlan& plan, int threads,
                                 uint64_t reads_per_thread)
    : plan_(plan), reads_per_thread_(reads_per_thread) {
  for (int t = 0; t < threads; ++t) {
    for (uint64_t i = 0; i < reads_per_thread; ++i) {
      versions_.emplace(plan.Key(t, i), std::vector<Version>());
    }
  }
}

void WritingVersions::Record(const KeyChange& change, uint32_t blocks_done) {
  auto it = versions_.find(change.key);
  if (it == versions_.end()) return;
  it->second.push_back(
      {blocks_done, change.erase,
       change.erase ? std::string() : std::string(change.value)});
}

namespace {

// What a key holds in one state: absent, or a value.
struct KeyState {
  bool found = false;
  std::string value;
};

bool Matches(const WritingAnswer& a, const KeyState& s) {
  if (a.found != s.found) return false;
  if (!a.found) return true;
  return a.full_size == s.value.size() &&
         std::string_view(a.value, a.size) ==
             std::string_view(s.value).substr(0, a.size);
}

std::string Describe(const KeyState& s) {
  return s.found ? ToHex(s.value) : "absent";
}

}  // namespace

void WritingVersions::Check(int thread,
                            const std::vector<WritingAnswer>& answers,
                            const datagen::Sampler& sampler, uint64_t first,
                            bool corrupt, uint64_t* checked, uint64_t* wrong,
                            std::string* first_wrong) const {
  for (const WritingAnswer& a : answers) {
    const std::string_view key = plan_.Key(thread, a.index);
    const datagen::SampledKey drawn = sampler.Draw(
        first + static_cast<uint64_t>(thread) * reads_per_thread_ + a.index);
    KeyState state{drawn.expect_found, drawn.expected_value};
    if (corrupt) {
      state.found = true;
      state.value.insert(state.value.begin(), '\x5a');
    }
    // The state after `lo` blocks, then each one a block in (lo, hi] made.
    std::vector<KeyState> allowed;
    const auto& versions = versions_.at(key);
    for (const Version& v : versions) {
      if (v.after > a.lo) break;
      state = {!v.erase, v.value};
    }
    allowed.push_back(state);
    for (const Version& v : versions) {
      if (v.after > a.lo && v.after <= a.hi) {
        allowed.push_back({!v.erase, v.value});
      }
    }
    ++*checked;
    bool ok = false;
    for (const KeyState& s : allowed) ok = ok || Matches(a, s);
    if (ok) continue;
    if (++*wrong > 1 || !first_wrong->empty()) continue;
    std::string want;
    for (const KeyState& s : allowed) {
      want += (want.empty() ? "" : " or ") + Describe(s);
    }
    const std::string got = a.found ? ToHex(std::string_view(a.value, a.size)) +
                                          (a.full_size > a.size ? "..." : "")
                                    : "absent";
    *first_wrong = "key " + ToHex(key) + " read " + got + " between " +
                   std::to_string(a.lo) + " and " + std::to_string(a.hi) +
                   " blocks of the pass, where the stream allows " + want;
  }
}

}  // namespace flatbench::bench
