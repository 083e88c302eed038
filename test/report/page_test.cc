// The report as a page: no paragraph longer than kMaxParagraph characters
// in report.md, whatever the run; a table of contents whose links reach
// every section; long tables, the environment and the backend settings
// folded in HTML (never the card); references to the project's documents
// as links; and one unit per quantity, with "–" for a figure no pass
// recorded.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "report/document/document.h"
#include "report/document/html.h"
#include "report/document/links.h"
#include "report/document/markdown.h"
#include "report/numbers.h"
#include "test/doc_table.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using flatbench::testing::Count;
using testing::Judge;
using testing::Parse;
using testing::ResultsBuilder;

size_t Characters(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// report.md's prose as a reader meets it: each paragraph (lines between
// blank lines, joined) and each list item on its own; tables are not
// prose.
std::vector<std::string> Paragraphs(const std::string& md) {
  std::vector<std::string> out;
  std::istringstream in(md);
  std::string paragraph;
  auto end = [&] {
    if (!paragraph.empty()) out.push_back(paragraph);
    paragraph.clear();
  };
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("> ", 0) == 0) line.erase(0, 2);
    if (line.empty() || line == ">" || line[0] == '|' || line[0] == '#') {
      end();
    } else if (line.rfind("- ", 0) == 0) {
      end();
      out.push_back(line.substr(2));
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + line;
    }
  }
  end();
  return out;
}

std::string Markdown(const nlohmann::json& doc) {
  return RenderMarkdown(BuildDocument(Judge(doc), Parse(doc)));
}

std::string Html(const nlohmann::json& doc) {
  return RenderHtml(BuildDocument(Judge(doc), Parse(doc)));
}

// A run with everything a report can show: every read path, reference
// rows, scans, startup and batches, at smoke scale on a small host with
// noisy repetitions, one slow cell and one unverified eviction.
nlohmann::json Everything() {
  ResultsBuilder b;
  b.scale = "smoke";
  b.hardware_threads = 2;
  b.repetitions = 3;
  b.jitter = 0.08;
  b.scan_cells = b.startup_cells = b.batch_cells = true;
  b.backends = {"arena",   "arena+cache", "arena+direct", "arena+pread",
                "rocksdb", "lmdb",        "sqlite",       "postgres"};
  for (const char* p :
       {"arena+cache", "arena+direct", "arena+pread", "sqlite", "postgres"}) {
    b.hit_reads_per_s[p] = 15000;
    b.miss_reads_per_s[p] = 90000;
    b.device_reads_per_s[p] = 25000;
  }
  b.hit_reads_per_s["rocksdb"] = 19000;
  auto doc = b.Build();
  testing::SetRate(doc, "arena/account/hit/cold/threads:1/", 12000);
  testing::SetCounter(doc, "lmdb/storage/", "eviction_verified", 0);
  return doc;
}

TEST_CASE("no paragraph of report.md is longer than 600 characters",
          "[report][page]") {
  // The rule can fail: a long line is one paragraph.
  CHECK(Paragraphs(std::string(kMaxParagraph + 1, 'x'))[0].size() >
        kMaxParagraph);
  ResultsBuilder go;
  ResultsBuilder nogo;
  nogo.hit_reads_per_s["rocksdb"] = 20000;  // Beyond the device's limit.
  for (const auto& [name, doc] :
       std::vector<std::pair<std::string, nlohmann::json>>{
           {"GO", go.Build()},
           {"NO-GO", nogo.Build()},
           {"everything, INCONCLUSIVE", Everything()}}) {
    CAPTURE(name);
    const std::vector<std::string> paragraphs = Paragraphs(Markdown(doc));
    CHECK(paragraphs.size() > 40);
    for (const std::string& p : paragraphs) {
      CAPTURE(p);
      CHECK(Characters(p) <= kMaxParagraph);
    }
  }
}

TEST_CASE("a table of contents opens the page and reaches every section",
          "[report][page]") {
  const nlohmann::json doc = Everything();
  const std::string md = Markdown(doc);
  const std::string html = Html(doc);
  // Markdown: links in the first paragraphs, one per "## " heading, to
  // the heading's anchor.
  CHECK(md.find("# flatbench go/no-go report\n\nContents: [Verdict]("
                "#verdict-inconclusive) · [Findings](#what-the-run-says)") ==
        0);
  const std::regex heading("\n## ([^\n]+)\n");
  int headings = 0;
  for (std::sregex_iterator it(md.begin(), md.end(), heading), end; it != end;
       ++it) {
    ++headings;
    const std::string anchor = Anchor((*it)[1].str());
    CAPTURE(anchor);
    CHECK(md.find("](#" + anchor + ")") < md.find("\n## "));
  }
  CHECK(headings >= 15);
  // HTML: a nav of links before the first section, one per section, each
  // to a section's id.
  const size_t nav_end = html.find("</nav>");
  REQUIRE(nav_end < html.find("<section id="));
  const std::string nav = html.substr(0, nav_end);
  const std::regex link("<a href=\"#([^\"]+)\">");
  int links = 0;
  for (std::sregex_iterator it(nav.begin(), nav.end(), link), end; it != end;
       ++it) {
    ++links;
    CAPTURE((*it)[1].str());
    CHECK(html.find("<section id=\"" + (*it)[1].str() + "\"") !=
          std::string::npos);
  }
  CHECK(links == headings);
  CHECK(static_cast<int>(Count(html, "<section id=")) == headings);
}

TEST_CASE("long tables, the environment and the settings fold in HTML",
          "[report][page]") {
  const std::string html = Html(Everything());
  // The card is never folded, and comes before any <details>.
  const size_t card = html.find("<table class=\"card\">");
  REQUIRE(card != std::string::npos);
  CHECK(card < html.find("<details>"));
  // Every table of more than kFoldRows rows sits in a <details>. Found by
  // a plain scan: std::regex recurses per character and overflows the
  // stack on a page this long under the sanitizers.
  int folded = 0, open = 0;
  const std::string start = "<table>\n<thead>";
  for (size_t at = html.find(start); at != std::string::npos;
       at = html.find(start, at + 1)) {
    const size_t body = html.find("<tbody>", at);
    const size_t body_end = html.find("</tbody>", at);
    REQUIRE(body < body_end);
    const size_t rows = Count(html.substr(body, body_end - body), "<tr>");
    const bool inside =
        html.rfind("<details>", at) != std::string::npos &&
        html.rfind("<details>", at) > html.rfind("</details>", at);
    CHECK((rows > kFoldRows) <= inside);
    (inside ? folded : open) += 1;
  }
  CHECK(folded > 5);
  CHECK(open > 3);
  for (const char* section : {"environment", "backend-settings"}) {
    CAPTURE(section);
    const size_t at = html.find("<section id=\"" + std::string(section));
    REQUIRE(at != std::string::npos);
    CHECK(html.find("<details><summary>Show the section</summary>", at) <
          html.find("</section>", at));
  }
}

TEST_CASE("references to the project's documents are links", "[report][page]") {
  ResultsBuilder b;
  b.scale = "smoke";
  Document d = BuildDocument(Judge(b.Build()), Parse(b.Build()));
  // Without a known folder, plain text.
  CHECK(RenderMarkdown(d).find("](../") == std::string::npos);
  d.docs_root = "../../";
  const std::string md = RenderMarkdown(d);
  const std::string html = RenderHtml(d);
  CHECK(md.find("[RESEARCH.md §7](../../RESEARCH.md#7-thresholds-and-"
                "validity-gates)") != std::string::npos);
  CHECK(html.find("<a href=\"../../RESEARCH.md#7-thresholds-and-validity-"
                  "gates\">RESEARCH.md §7</a>") != std::string::npos);
  CHECK(
      LinkDocsMarkdown("see RESEARCH.md, Storage that is not uniform.", "r/") ==
      "see [RESEARCH.md, Storage that is not uniform](r/RESEARCH.md#8a-"
      "storage-that-is-not-uniform).");
  CHECK(LinkDocsMarkdown("bench/RESULTS_FORMAT.md and FORMAT.md", "r/") ==
        "[bench/RESULTS_FORMAT.md](r/bench/RESULTS_FORMAT.md) and "
        "[FORMAT.md](r/arena/FORMAT.md)");
  CHECK(LinkDocsMarkdown("RESEARCH.md section 99", "r/") ==
        "[RESEARCH.md](r/RESEARCH.md) section 99");
  CHECK(CodeSpansHtml("run `a` then `b` and ` alone") ==
        "run <code>a</code> then <code>b</code> and ` alone");
}

TEST_CASE("every RESEARCH.md section the report links to is a heading there",
          "[report][page]") {
  std::ifstream in(FLATBENCH_SOURCE_ROOT "/RESEARCH.md");
  REQUIRE(in.good());
  const std::string research((std::istreambuf_iterator<char>(in)), {});
  for (const char* n :
       {"1", "2", "3", "4", "5", "6", "7", "8", "8a", "8b", "9", "10", "11"}) {
    CAPTURE(n);
    const std::string title = ResearchSection(n);
    REQUIRE_FALSE(title.empty());
    CHECK(research.find("\n## " + std::string(n) + ". " + title + "\n") !=
          std::string::npos);
  }
  CHECK(ResearchSection("99").empty());
}

TEST_CASE("one unit per quantity, and a dash for an absent figure",
          "[report][page]") {
  CHECK(Millis(0.0508) == "50.8 ms");
  CHECK(Millis(1.99e-5) == "0.0199 ms");
  CHECK(Millis(2.5) == "2,500 ms");
  CHECK(Millis(NAN) == "–");
  CHECK(Mebibytes(0) == "0 MiB");
  CHECK(Mebibytes(64.0 * 1048576) == "64 MiB");
  CHECK(Mebibytes(1.5 * 1073741824) == "1.50 GiB");
  CHECK(Mebibytes(NAN) == "–");

  ResultsBuilder b;
  b.startup_cells = true;
  auto doc = b.Build();
  // LMDB's passes recorded no bytes read per read (an optional counter).
  for (auto& e : doc["benchmarks"]) {
    if (e["name"].get<std::string>().rfind("lmdb/", 0) == 0) {
      e.erase("bytes_read_per_read");
    }
  }
  const std::string md = Markdown(doc);
  const size_t row = md.find("| account | hit | 1 | lmdb | ");
  REQUIRE(row != std::string::npos);
  const std::vector<std::string> cells =
      flatbench::testing::TableCells(md.substr(row, md.find('\n', row) - row));
  REQUIRE(cells.size() > 8);
  CHECK(cells[8] == "–");  // bytes/read
  // Memory in MiB, open time in ms; LMDB's resident metadata (it holds
  // none) is 0 MiB, never "0 B (0 B–0 B)".
  CHECK(md.find("| arena | cold | 64 MiB | 96 MiB | 32 MiB | 520 ms (500 "
                "ms–540 ms) | ") != std::string::npos);
  CHECK(md.find("| lmdb | cold | 64 MiB | 96 MiB | 0 MiB | ") !=
        std::string::npos);
  CHECK(md.find(" B (") == std::string::npos);
  CHECK(md.find("0 B") == std::string::npos);
  // Startup and open time in ms, as the startup chart draws them; no
  // memory, startup or open time in seconds.
  const size_t startup = md.find("| mode | backend | startup (median) |");
  REQUIRE(startup != std::string::npos);
  const std::string ops =
      md.substr(startup, md.find("\n\n", startup) - startup);
  CAPTURE(ops);
  CHECK(
      ops.find("| cold | arena | 220 ms | 150 ms–400 ms | 50 ms | 64 MiB |") !=
      std::string::npos);
  const std::string memory = md.substr(md.find("## Memory and open time"));
  const std::regex seconds(R"(\| [0-9.e-]+ s \|)");
  CHECK_FALSE(std::regex_search(ops, seconds));
  CHECK_FALSE(
      std::regex_search(memory.substr(0, memory.find("\n## ", 3)), seconds));
}

}  // namespace
}  // namespace flatbench::report
