#include "cli/get_batch.h"

#include <cstdio>

#include "cli/exit.h"
#include "common/hex.h"

namespace flatbench::cli {

std::vector<std::optional<std::string>> CheckedWalks(
    const backends::Entry& entry, const std::string& dir,
    const std::vector<BatchKey>& keys, std::vector<Status>* failures) {
  std::vector<std::optional<std::string>> walks(keys.size());
  failures->assign(keys.size(), Status::Ok());
  for (size_t i = 0; i < keys.size(); ++i) {
    auto walk = entry.checked_get(dir, keys[i].table, keys[i].key);
    if (!walk.ok()) {
      (*failures)[i] = walk.status();
    } else if (walk->found) {
      walks[i] = std::move(walk->value);
    }
  }
  return walks;
}

int LookupBatch(Backend& backend, const std::vector<BatchKey>& keys,
                const std::vector<std::optional<std::string>>* checked,
                const std::vector<Status>* failed) {
  auto session = backend.NewSession();
  if (!session.ok()) return Fail(session.status());
  // Each key's answer, in the file's order: found, absent, or its error.
  std::vector<GetResult> answers(keys.size());
  std::vector<std::string> values(keys.size());
  for (const Table table : {Table::kAccount, Table::kStorage}) {
    std::vector<size_t> at;
    std::vector<std::string_view> batch;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].table != table) continue;
      if (failed != nullptr && !(*failed)[i].ok()) {
        answers[i].status = (*failed)[i];
        continue;
      }
      at.push_back(i);
      batch.push_back(keys[i].key);
    }
    if (batch.empty()) continue;
    std::vector<GetResult> results(batch.size());
    Status st = session.value()->MultiGet(table, batch, results);
    if (!st.ok()) return Fail(st);
    for (size_t j = 0; j < at.size(); ++j) {
      GetResult& r = answers[at[j]];
      r.status = std::move(results[j].status);
      r.found = results[j].found;
      // Copied: the next table's batch replaces the session's values.
      if (r.status.ok() && r.found) values[at[j]] = results[j].value;
    }
  }
  int exit_code = 0;
  bool missing = false;
  for (size_t i = 0; i < keys.size(); ++i) {
    const BatchKey& k = keys[i];
    const std::string what =
        std::string("get ") + TableName(k.table) + " key " + k.hex;
    Status st = answers[i].status;
    if (st.ok() && checked != nullptr) {
      const auto& walk = (*checked)[i];
      if (answers[i].found != walk.has_value() ||
          (answers[i].found && values[i] != *walk)) {
        st = Status::Corruption(backend.Name() +
                                " and the checked walk of its pages disagree");
      }
    }
    if (!st.ok()) {
      const int code = Fail(st.WithContext(what));
      if (exit_code == 0) exit_code = code;
      continue;
    }
    if (answers[i].found) {
      std::printf("%s %s %s\n", TableName(k.table), k.hex.c_str(),
                  ToHex(values[i]).c_str());
    } else {
      std::printf("%s %s not-found\n", TableName(k.table), k.hex.c_str());
      missing = true;
    }
  }
  std::fflush(stdout);
  if (exit_code != 0) return exit_code;
  return missing ? ExitCodeFor(Code::kNotFound) : 0;
}

}  // namespace flatbench::cli
