#pragma once
// Reads a rendered SVG chart back for tests: its texts with where they
// are drawn, a bar's height, and whether every label lies inside it.

#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "report/document/svg.h"

namespace flatbench::report::testing {

inline double Attr(const std::string& tag, const std::string& name) {
  std::smatch m;
  const std::regex re(" " + name + "=\"([-0-9.]+)\"");
  REQUIRE(std::regex_search(tag, m, re));
  return std::stod(m[1]);
}

// The characters a text element shows: entities count as one, UTF-8
// sequences as one.
inline size_t Shown(const std::string& escaped) {
  const std::string text =
      std::regex_replace(escaped, std::regex("&[#a-z0-9]+;"), "x");
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

struct SvgText {
  double x = 0, y = 0;  // Its anchor, translated if it is turned.
  double font = 11;
  std::string anchor = "start";
  bool turned = false;
  std::string text;
};

// Every <text> of class `cls` in `svg`.
inline std::vector<SvgText> Texts(const std::string& svg,
                                  const std::string& cls) {
  std::vector<SvgText> out;
  const std::regex re("<text ([^>]*class=\"" + cls + "\"[^>]*)>([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end;
       ++it) {
    const std::string tag = " " + (*it)[1].str();
    SvgText t;
    t.text = (*it)[2];
    std::smatch m;
    if (std::regex_search(tag, m,
                          std::regex("translate\\(([-0-9.]+),([-0-9.]+)\\)"))) {
      t.x = std::stod(m[1]);
      t.y = std::stod(m[2]);
      t.turned = true;
    } else {
      t.x = Attr(tag, "x");
      t.y = Attr(tag, "y");
    }
    if (std::regex_search(tag, m, std::regex(" font-size=\"([0-9.]+)\""))) {
      t.font = std::stod(m[1]);
    }
    if (std::regex_search(tag, m, std::regex(" text-anchor=\"([a-z]+)\""))) {
      t.anchor = m[1];
    }
    out.push_back(t);
  }
  return out;
}

inline double SvgWidth(const std::string& svg) {
  return Attr(svg.substr(0, svg.find('>')), "width");
}
inline double SvgHeight(const std::string& svg) {
  return Attr(svg.substr(0, svg.find('>')), "height");
}

// Every flat legend, title and group label lies wholly inside the picture
// (its width estimated at kCharEm per character); turned group labels
// (45 degrees down to the right) too.
inline void CheckTextInside(const std::string& svg, bool page_wide = true) {
  const double width = SvgWidth(svg), height = SvgHeight(svg);
  if (page_wide) CHECK(width >= kChartWidth);
  for (const char* cls : {"legend", "title", "group-label", "column-label"}) {
    for (const SvgText& t : Texts(svg, cls)) {
      CAPTURE(cls, t.text, t.x, width);
      const double w = static_cast<double>(Shown(t.text)) * kCharEm * t.font;
      if (t.turned) {
        CHECK(t.x + 0.7072 * w <= width);
        CHECK(t.y + 0.7072 * w <= height);
        continue;
      }
      const double left = t.anchor == "middle" ? t.x - w / 2
                          : t.anchor == "end"  ? t.x - w
                                               : t.x;
      CHECK(left >= 0);
      CHECK(left + w <= width);
      CHECK(t.y <= height);
    }
  }
}

// The tooltip-titled bar whose title starts with `prefix`: its height.
inline double BarHeight(const std::string& svg, const std::string& prefix) {
  const size_t at = svg.find("<title>" + prefix);
  REQUIRE(at != std::string::npos);
  const size_t open = svg.rfind("<rect ", at);
  return Attr(svg.substr(open, at - open), "height");
}

}  // namespace flatbench::report::testing
