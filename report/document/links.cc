#include "report/document/links.h"

#include <array>
#include <cctype>
#include <utility>

namespace flatbench::report {
namespace {

// RESEARCH.md's numbered sections (test/report/links_test.cc holds them to
// the file's headings).
constexpr std::array<std::pair<std::string_view, std::string_view>, 13>
    kResearchSections = {{
        {"1", "The question and the decision it feeds"},
        {"2", "The dataset"},
        {"3", "The backends and every option"},
        {"4", "Modes"},
        {"5", "Metrics"},
        {"6", "The cold full-scale procedure"},
        {"7", "Thresholds and validity gates"},
        {"8", "Caveats that shape the numbers"},
        {"8a", "Storage that is not uniform"},
        {"8b", "Batched lookups (`ReadSession::MultiGet`)"},
        {"9", "Reading an INCONCLUSIVE report"},
        {"10", "Predicting full scale from a scale sweep"},
        {"11", "The live node: aged stores and the arena's upkeep"},
    }};

// The documents a report names, longest first so "RESULTS_FORMAT.md" is
// never read as "FORMAT.md", each with its path in the tree.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7>
    kDocuments = {{
        {"bench/RESULTS_FORMAT.md", "bench/RESULTS_FORMAT.md"},
        {"bench/SWEEP_FORMAT.md", "bench/SWEEP_FORMAT.md"},
        {"RESULTS_FORMAT.md", "bench/RESULTS_FORMAT.md"},
        {"arena/FORMAT.md", "arena/FORMAT.md"},
        {"SWEEP_FORMAT.md", "bench/SWEEP_FORMAT.md"},
        {"RESEARCH.md", "RESEARCH.md"},
        {"FORMAT.md", "arena/FORMAT.md"},
    }};

bool WordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/';
}

// After "RESEARCH.md" at `at`: the length of a section reference that
// follows (" §7", ", section 11", " section 8a", ", <a section's title>")
// and the section's number; {0, ""} when none follows.
std::pair<size_t, std::string> SectionReference(const std::string& text,
                                                size_t at) {
  const std::string_view rest = std::string_view(text).substr(at);
  for (std::string_view lead : {" §", ", section ", " section "}) {
    if (rest.substr(0, lead.size()) != lead) continue;
    size_t n = lead.size();
    while (n < rest.size() && std::isalnum(static_cast<unsigned char>(rest[n])))
      ++n;
    const std::string number(rest.substr(lead.size(), n - lead.size()));
    if (!ResearchSection(number).empty()) return {n, number};
  }
  for (const auto& [number, title] : kResearchSections) {
    const std::string lead = ", " + std::string(title);
    if (rest.substr(0, lead.size()) == lead) {
      return {lead.size(), std::string(number)};
    }
  }
  return {0, ""};
}

// Calls `link(text, target)` for each reference in `text` and copies the
// rest; the shared scan of both formats.
template <typename LinkFn>
std::string LinkDocs(const std::string& text, const std::string& docs_root,
                     LinkFn link) {
  if (docs_root.empty()) return text;
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    bool matched = false;
    for (const auto& [name, path] : kDocuments) {
      if (text.compare(i, name.size(), name) != 0) continue;
      if (i > 0 && WordChar(text[i - 1])) break;  // Part of a longer path.
      size_t length = name.size();
      std::string target = docs_root + std::string(path);
      if (name == "RESEARCH.md") {
        auto [more, number] = SectionReference(text, i + length);
        if (more > 0) {
          length += more;
          target += "#" + Anchor(number + ". " + ResearchSection(number));
        }
      }
      out += link(text.substr(i, length), target);
      i += length;
      matched = true;
      break;
    }
    if (!matched) out += text[i++];
  }
  return out;
}

}  // namespace

std::string Anchor(std::string_view heading) {
  std::string out;
  for (char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_') {
      out += static_cast<char>(std::tolower(u));
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

std::string ResearchSection(std::string_view number) {
  for (const auto& [n, title] : kResearchSections) {
    if (n == number) return std::string(title);
  }
  return "";
}

std::string LinkDocsMarkdown(const std::string& text,
                             const std::string& docs_root) {
  return LinkDocs(text, docs_root,
                  [](const std::string& shown, const std::string& target) {
                    return "[" + shown + "](" + target + ")";
                  });
}

std::string LinkDocsHtml(const std::string& text,
                         const std::string& docs_root) {
  return LinkDocs(text, docs_root,
                  [](const std::string& shown, const std::string& target) {
                    return "<a href=\"" + target + "\">" + shown + "</a>";
                  });
}

std::string CodeSpansHtml(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('`', i);
    const size_t close =
        open == std::string::npos ? open : text.find('`', open + 1);
    if (close == std::string::npos) break;
    out.append(text, i, open - i)
        .append("<code>")
        .append(text, open + 1, close - open - 1)
        .append("</code>");
    i = close + 1;
  }
  return out.append(text, i);
}

}  // namespace flatbench::report
