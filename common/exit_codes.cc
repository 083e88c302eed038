#include "common/exit_codes.h"

namespace flatbench {

std::string ExitCodeText(const ExitRow& row) {
  return row.code == kSignalExit ? "128 + N" : std::to_string(row.code);
}

std::string ExitMeaningText(const ExitRow& row) {
  std::string s(row.name);
  if (!row.detail.empty()) s += " (" + std::string(row.detail) + ")";
  return s;
}

bool RowApplies(const ExitRow& row, std::string_view command) {
  if (row.commands == kEveryCommand) return true;
  std::string_view rest = row.commands;
  while (!rest.empty()) {
    const size_t comma = rest.find(", ");
    if (rest.substr(0, comma) == command) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 2);
  }
  return false;
}

const ExitRow* DocumentedExit(std::string_view command, int code) {
  const bool by_signal = code > 128 && code <= 128 + 64;
  for (const ExitRow& row : kExitRows) {
    if (!RowApplies(row, command)) continue;
    if (row.code == code || (row.code == kSignalExit && by_signal)) {
      // Of two rows with one code (0: success and GO), the first.
      return &row;
    }
  }
  return nullptr;
}

std::string ExitCodesHelp(std::string_view command) {
  std::string out = "Exit codes:\n";
  for (const ExitRow& row : kExitRows) {
    if (!command.empty() && !RowApplies(row, command)) continue;
    std::string code = ExitCodeText(row);
    out += "  " + code +
           std::string(code.size() < 8 ? 8 - code.size() : 1, ' ') +
           ExitMeaningText(row);
    if (command.empty() && row.commands != kEveryCommand) {
      out += "; " + std::string(row.commands);
    }
    out += "\n";
  }
  return out;
}

}  // namespace flatbench
