#pragma once
// Number formatting shared by the verdict text and the renderers. Every
// function prints "–" for NaN, so an absent counter never reads as zero.

#include <string>
#include <string_view>

namespace flatbench::report {

// "12,345" style for counts and rates (rounded to an integer).
std::string Count(double v);
// A ratio to three decimals: "1.832".
std::string Ratio(double v);
// `decimals` digits after the point: Fixed(0.934, 2) is "0.93".
std::string Fixed(double v, int decimals);
// A general value to `digits` significant digits: "0.0213", "41.5".
std::string Sig(double v, int digits = 3);
// Nanoseconds as microseconds with three significant digits: "88.4 µs";
// from 1 ms up as milliseconds: "4.23 ms".
std::string Micros(double ns);
// Bytes in binary units: "12.3 MiB".
std::string Bytes(double bytes);
// A fraction as a percentage: "0.42%".
std::string Percent(double fraction);
// Seconds: "1.23 s", "1,235 s".
std::string Seconds(double s);
// Seconds as milliseconds, for startup and open times: "50.8 ms",
// "0.0199 ms", "1,235 ms"; below a microsecond "< 0.001 ms".
std::string Millis(double s);
// Memory and sizes in MiB, from 1 GiB on in GiB: "21.5 MiB", "0 MiB",
// "1.20 GiB", so a column never mixes B, KiB and MiB.
std::string Mebibytes(double bytes);
// A compact axis label: "640k", "3.2M", "0.85".
std::string Short(double v);

// Escapes & < > " ' for HTML and SVG text and attributes, and : = @ as
// character references, so escaped input never looks like a URL, an
// attribute or a CSS import to a text scan of the page.
std::string HtmlEscape(std::string_view s);

}  // namespace flatbench::report
