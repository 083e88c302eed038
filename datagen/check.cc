#include "datagen/check.h"

#include <algorithm>
#include <chrono>

#include "common/hex.h"
#include "datagen/progress.h"
#include "datagen/stream.h"

namespace flatbench::datagen {

Status CheckSample(Backend& backend, const dataset::Spec& spec,
                   const CheckOptions& options, CheckReport* report) {
  FLATBENCH_ASSIGN_OR_RETURN(std::unique_ptr<ReadSession> session,
                             backend.NewSession());
  for (Table table : {Table::kAccount, Table::kStorage}) {
    for (KeyKind kind :
         {KeyKind::kHit, KeyKind::kMissAbsent, KeyKind::kMissLiveAccount}) {
      if (table == Table::kAccount && kind == KeyKind::kMissLiveAccount) {
        continue;
      }
      if (table == Table::kStorage && spec.slots_per_account == 0) continue;
      Sampler sampler(spec, table, kind,
                      options.seed + static_cast<uint64_t>(kind) * 31 +
                          static_cast<uint64_t>(table));
      uint64_t n = std::min<uint64_t>(options.samples, sampler.space());
      for (uint64_t i = 0; i < n; ++i) {
        SampledKey k = sampler.Draw(i);
        if (options.corrupt_expectations && k.expect_found) {
          k.expected_value[0] ^= 1;
        }
        bool found = false;
        std::string_view value;
        Status st = session->Get(table, k.key, &found, &value);
        std::string where = backend.Name() + " " + TableName(table) + " " +
                            KeyKindName(kind) + " key " + ToHex(k.key);
        if (!st.ok()) return st.WithContext(where);
        if (found != k.expect_found) {
          return Status::Corruption(
              where + (found
                           ? ": found, expected absent"
                           : ": absent, expected " + ToHex(k.expected_value)));
        }
        if (found && value != k.expected_value) {
          return Status::Corruption(where + ": value " + ToHex(value) +
                                    ", expected " + ToHex(k.expected_value));
        }
        ++report->checked;
        ++(found ? report->hits_verified : report->misses_verified);
      }
    }
  }
  return Status::Ok();
}

}  // namespace flatbench::datagen

namespace flatbench::datagen {
namespace {

// Hex of a pair's bytes for a message; a corrupt length may be huge, so
// only the start is printed.
std::string ShortHex(std::string_view bytes) {
  constexpr size_t kMaxShown = 128;
  if (bytes.size() <= kMaxShown) return ToHex(bytes);
  return ToHex(bytes.substr(0, kMaxShown)) + "... (" +
         std::to_string(bytes.size()) + " bytes)";
}

// Receives the generator's ordered stream and compares each pair with the
// next one the backend's walk of the same table yields.
class CompareSink final : public BulkLoader {
 public:
  CompareSink(const std::string& backend, const ScanOpener& open_scan,
              ReadSession* lookups, FullCheckReport* report)
      : backend_(backend),
        open_scan_(open_scan),
        lookups_(lookups),
        report_(report) {}

  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    if (static_cast<int>(table) != current_) {
      FLATBENCH_RETURN_IF_ERROR(EndTable());
      FLATBENCH_RETURN_IF_ERROR(StartTable(static_cast<int>(table)));
    }
    bool valid = false;
    std::string_view got_key, got_value;
    FLATBENCH_RETURN_IF_ERROR(next_(&valid, &got_key, &got_value)
                                  .WithContext(Where() + " key " + ToHex(key)));
    if (!valid) {
      return Status::Corruption(
          Where() + " key " + ToHex(key) + ": missing (the table ends after " +
          std::to_string(Count()) + " pairs), expected value " + ToHex(value));
    }
    if (got_key != key) {
      if (got_key < key) return Extra(got_key, got_value, key);
      return Status::Corruption(
          Where() + " key " + ToHex(key) + ": missing (next key held is " +
          ShortHex(got_key) + "), expected value " + ToHex(value));
    }
    if (got_value != value) {
      return Status::Corruption(Where() + " key " + ToHex(key) + ": value " +
                                ShortHex(got_value) + ", expected " +
                                ToHex(value));
    }
    ++Count();
    if (lookups_ != nullptr) FLATBENCH_RETURN_IF_ERROR(Lookup(key, value));
    return Status::Ok();
  }

  // Ends the last table and checks that every table never streamed (no
  // storage slots) is empty too.
  Status Finish() override {
    FLATBENCH_RETURN_IF_ERROR(EndTable());
    for (int t = 0; t < kNumTables; ++t) {
      if (seen_[t]) continue;
      FLATBENCH_RETURN_IF_ERROR(StartTable(t));
      FLATBENCH_RETURN_IF_ERROR(EndTable());
    }
    return Status::Ok();
  }

 private:
  std::string Where() const {
    return backend_ + " " + TableName(static_cast<Table>(current_));
  }
  uint64_t& Count() { return report_->pairs[current_]; }

  Status StartTable(int t) {
    current_ = t;
    seen_[t] = true;
    Result<NextPairFn> next = open_scan_(static_cast<Table>(t));
    if (!next.ok()) return next.status().WithContext(Where());
    next_ = std::move(next).value();
    return Status::Ok();
  }

  // The walk of the current table must hold nothing after its last pair.
  Status EndTable() {
    if (current_ < 0) return Status::Ok();
    bool valid = false;
    std::string_view key, value;
    FLATBENCH_RETURN_IF_ERROR(
        next_(&valid, &key, &value)
            .WithContext(Where() + " after the last key"));
    if (valid) return Extra(key, value, "");
    next_ = nullptr;
    return Status::Ok();
  }

  Status Extra(std::string_view key, std::string_view value,
               std::string_view expected_next) {
    return Status::Corruption(
        Where() + " key " + ShortHex(key) + ": not in the dataset (value " +
        ShortHex(value) + "), " +
        (expected_next.empty() ? "after the last expected key"
                               : "expected key " + ToHex(expected_next)));
  }

  Status Lookup(std::string_view key, std::string_view value) {
    bool found = false;
    std::string_view got;
    Table table = static_cast<Table>(current_);
    std::string where = Where() + " key " + ToHex(key);
    FLATBENCH_RETURN_IF_ERROR(
        lookups_->Get(table, key, &found, &got).WithContext(where));
    if (!found) {
      return Status::Corruption(where + ": in the walk but absent on lookup");
    }
    if (got != value) {
      return Status::Corruption(where + ": lookup returns " + ShortHex(got) +
                                ", expected " + ToHex(value));
    }
    ++report_->lookups;
    return Status::Ok();
  }

  const std::string& backend_;
  const ScanOpener& open_scan_;
  ReadSession* lookups_;
  FullCheckReport* report_;
  int current_ = -1;
  bool seen_[kNumTables] = {false, false};
  NextPairFn next_;
};

}  // namespace

Status CheckFull(const dataset::Spec& spec, const std::string& backend,
                 const ScanOpener& open_scan, const FullCheckOptions& options,
                 FullCheckReport* report) {
  auto start = std::chrono::steady_clock::now();
  CompareSink sink(backend, open_scan, options.lookups, report);
  // Steps as in gen: one per account to bucket it, then one per pair.
  Progress progress("verify " + backend, "steps", options.progress);
  FLATBENCH_ASSIGN_OR_RETURN(
      StreamDigest digest,
      GenerateSorted(spec, &sink, [&](uint64_t done, uint64_t total) {
        progress.Update(done, total);
      }));
  FLATBENCH_RETURN_IF_ERROR(sink.Finish());
  progress.Finish(2 * digest.pairs[0] + digest.pairs[1]);
  report->seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return Status::Ok();
}

}  // namespace flatbench::datagen
