#include "datagen/check.h"

#include <algorithm>

#include "common/hex.h"

namespace flatbench::datagen {

Status CheckSample(Backend& backend, const Spec& spec,
                   const CheckOptions& options, CheckReport* report) {
  Result<std::unique_ptr<ReadSession>> session = backend.NewSession();
  if (!session.ok()) return session.status();
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
        Status st = session.value()->Get(table, k.key, &found, &value);
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
