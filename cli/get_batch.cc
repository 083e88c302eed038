#include "cli/get_batch.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/exit.h"
#include "common/hex.h"

namespace flatbench::cli {

Result<std::vector<BatchKey>> ReadKeysFile(const std::string& path,
                                           Table default_table) {
  std::ifstream in(path);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return Status::MissingInput("--keys: " + path + " does not exist");
    }
    return Status::FromErrno("--keys: open " + path);
  }
  std::vector<BatchKey> keys;
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::string first;
    std::string second;
    std::string extra;
    words >> first >> second >> extra;
    if (first.empty() || first[0] == '#') continue;
    const std::string where = "--keys: " + path + ":" + std::to_string(n);
    BatchKey k{default_table, {}, first};
    if (!second.empty()) {
      if (!ParseTable(first, &k.table) || !extra.empty()) {
        return Status::Usage(where +
                             ": expected 'HEX' or 'account|storage HEX'");
      }
      k.hex = second;
    }
    if (!FromHex(k.hex, &k.key)) {
      return Status::Usage(where + ": '" + k.hex + "' is not even-length hex");
    }
    if (k.key.size() != KeySize(k.table)) {
      return Status::Usage(where + ": " + std::to_string(k.key.size()) +
                           " bytes, a " + TableName(k.table) + " key has " +
                           std::to_string(KeySize(k.table)));
    }
    keys.push_back(std::move(k));
  }
  if (in.bad()) return Status::FromErrno("--keys: read " + path);
  if (keys.empty()) return Status::Usage("--keys: " + path + " has no keys");
  return keys;
}

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
