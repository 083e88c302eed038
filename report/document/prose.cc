// Long generated sentences ("... of 21 checks: a; b; c; and 3 more.") as a
// lead and a list, so the report has no paragraph a reader must parse.
#include "report/document/document_parts.h"

namespace flatbench::report {
namespace {

// `text` split at each top-level occurrence of any of `separators` (not
// inside parentheses or brackets); the separators are dropped.
std::vector<std::string> SplitTopLevel(
    const std::string& text, const std::vector<std::string>& separators) {
  std::vector<std::string> out;
  std::string part;
  int depth = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    depth += (c == '(' || c == '[') ? 1 : (c == ')' || c == ']') ? -1 : 0;
    bool split = false;
    for (const auto& sep : separators) {
      if (depth == 0 && text.compare(i, sep.size(), sep) == 0) {
        out.push_back(part);
        part.clear();
        i += sep.size();
        split = true;
        break;
      }
    }
    if (!split) part += text[i++];
  }
  out.push_back(part);
  return out;
}

}  // namespace

std::vector<Block> Prose(const std::string& text) {
  const size_t colon = text.find(": ");
  if (text.size() <= kMaxParagraph || colon == std::string::npos) {
    return {Paragraph(text)};
  }
  std::string rest = text.substr(colon + 2);
  if (!rest.empty() && rest.back() == '.') rest.pop_back();
  // A list of lists ("a; b; and 2 more"), else of items ("a, b and c");
  // a part still too long is split as a list of items.
  std::vector<std::string> items;
  for (std::string& part : SplitTopLevel(rest, {"; "})) {
    if (part.size() <= kMaxParagraph) {
      items.push_back(std::move(part));
      continue;
    }
    for (std::string& item : SplitTopLevel(part, {", and ", " and ", ", "})) {
      items.push_back(std::move(item));
    }
  }
  for (auto& item : items) {
    if (item.rfind("and ", 0) == 0) item.erase(0, 4);
  }
  return {Paragraph(text.substr(0, colon + 1)), List(std::move(items))};
}

}  // namespace flatbench::report
