#include "report/numbers.h"

#include <cmath>
#include <cstdio>

#include "common/text.h"

namespace flatbench::report {
namespace {

const char kDash[] = "–";

std::string Printf(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::string Count(double v) {
  if (!std::isfinite(v)) return kDash;
  const uint64_t n = static_cast<uint64_t>(std::llround(std::fabs(v)));
  return (v < 0 && n != 0 ? "-" : "") + Thousands(n);
}

std::string Ratio(double v) {
  if (!std::isfinite(v)) return kDash;
  return Printf("%.3f", v);
}

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return kDash;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Sig(double v, int digits) {
  if (!std::isfinite(v)) return kDash;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string Micros(double ns) {
  if (!std::isfinite(ns)) return kDash;
  if (std::fabs(ns) >= 1e6) return Sig(ns / 1e6) + " ms";
  return Sig(ns / 1000.0) + " µs";
}

std::string Bytes(double bytes) {
  if (!std::isfinite(bytes)) return kDash;
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return (u == 0 ? Sig(v, 4) : Sig(v, 3)) + " " + kUnits[u];
}

std::string Percent(double fraction) {
  if (!std::isfinite(fraction)) return kDash;
  return Sig(fraction * 100, 3) + "%";
}

std::string Seconds(double s) {
  if (!std::isfinite(s)) return kDash;
  if (std::fabs(s) >= 100) return Count(s) + " s";
  return Sig(s, 3) + " s";
}

std::string Millis(double s) {
  if (!std::isfinite(s)) return kDash;
  const double ms = s * 1e3;
  if (std::fabs(ms) >= 100) return Count(ms) + " ms";
  if (ms != 0 && std::fabs(ms) < 1e-3) return "< 0.001 ms";
  return Sig(ms, 3) + " ms";
}

std::string Mebibytes(double bytes) {
  if (!std::isfinite(bytes)) return kDash;
  constexpr double kMiB = 1024.0 * 1024, kGiB = kMiB * 1024;
  if (std::fabs(bytes) >= kGiB) return Fixed(bytes / kGiB, 2) + " GiB";
  return Sig(bytes / kMiB, 3) + " MiB";
}

std::string Short(double v) {
  if (!std::isfinite(v)) return kDash;
  double a = std::fabs(v);
  if (a >= 1e9) return Sig(v / 1e9, 3) + "G";
  if (a >= 1e6) return Sig(v / 1e6, 3) + "M";
  if (a >= 1e4) return Sig(v / 1e3, 3) + "k";
  if (a >= 1e3) return Sig(v, 4);  // "1000", not "1e+03".
  return Sig(v, 3);
}

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      // Input text renders the same but can never read as a reference
      // ("http://", "src=", "@import") to a scan of the page.
      case ':':
        out += "&#58;";
        break;
      case '=':
        out += "&#61;";
        break;
      case '@':
        out += "&#64;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace flatbench::report
