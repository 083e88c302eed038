// The extrapolation (report/prediction/trend.h) on synthetic sweeps with a
// known trend.
#include "report/prediction/trend.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "report/prediction/trend_chart.h"
#include "test/doc_table.h"

namespace flatbench::report {
namespace {

using flatbench::testing::Count;

using Catch::Detail::Approx;

// ratio = 2 x (pairs / 1M)^-0.05, the trend every case below starts from.
double Known(double pairs) { return 2.0 * std::pow(pairs / 1e6, -0.05); }

TrendPoint Point(double pairs, double ratio, double rel_halfwidth) {
  return {pairs,
          ratio,
          {ratio * std::exp(-1.959964 * rel_halfwidth),
           ratio * std::exp(1.959964 * rel_halfwidth)}};
}

TEST_CASE("a known power-law trend is recovered and extrapolated",
          "[report][trend]") {
  const double full = 1.5e9;
  std::vector<TrendPoint> pts;
  for (double pairs : {5e6, 15e6, 50e6}) {
    pts.push_back(Point(pairs, Known(pairs), 0.02));
  }
  auto t = FitTrend(pts, full);
  REQUIRE(t.ok());
  CHECK(t->points == 3);
  CHECK(t->predicted == Approx(Known(full)).epsilon(1e-9));
  CHECK(t->per_decade == Approx(std::pow(10.0, -0.05)).epsilon(1e-9));
  CHECK(t->interval.low < Known(full));
  CHECK(t->interval.high > Known(full));
  CHECK_FALSE(t->widened);  // Exact points: no scatter.
  // Extrapolating 30x past the data widens the 2% per-point uncertainty.
  CHECK(t->interval.high / t->interval.low > std::exp(2 * 1.96 * 0.02));
}

TEST_CASE("points that scatter more than their intervals widen the interval",
          "[report][trend]") {
  std::vector<TrendPoint> exact, scattered;
  const double wiggle[] = {1.10, 0.90, 1.10};
  int i = 0;
  for (double pairs : {5e6, 15e6, 50e6}) {
    exact.push_back(Point(pairs, Known(pairs), 0.01));
    scattered.push_back(Point(pairs, Known(pairs) * wiggle[i++], 0.01));
  }
  auto a = FitTrend(exact, 1.5e9);
  auto b = FitTrend(scattered, 1.5e9);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(b->widened);
  CHECK(b->reduced_chi2 > 1);
  CHECK(b->interval.high / b->interval.low >
        3 * (a->interval.high / a->interval.low));
}

TEST_CASE("a zero-width interval (one repetition) still gets 1% weight",
          "[report][trend]") {
  std::vector<TrendPoint> pts = {{1e6, 1.5, {1.5, 1.5}},
                                 {1e7, 1.2, {1.2, 1.2}}};
  auto t = FitTrend(pts, 1e9);
  REQUIRE(t.ok());
  // Two points: the line through them, 0.8x per decade, two decades on.
  CHECK(t->predicted == Approx(1.2 * 0.8 * 0.8));
  CHECK(t->interval.low < t->predicted);
  CHECK(t->interval.high > t->predicted);
}

TEST_CASE("fewer than two sizes or a non-positive ratio cannot be fitted",
          "[report][trend]") {
  CHECK_FALSE(FitTrend({}, 1e9).ok());
  CHECK_FALSE(FitTrend({Point(1e6, 1, 0.01), Point(1e6, 1.1, 0.01)}, 1e9).ok());
  CHECK_FALSE(FitTrend({Point(1e6, 1, 0.01), {1e7, 0, {0, 0}}}, 1e9).ok());
}

}  // namespace
}  // namespace flatbench::report

namespace flatbench::report {
namespace {

TEST_CASE("the trend chart draws every size, the fit and the prediction",
          "[report][trend]") {
  TrendChart c;
  c.title = "<script>alert(1)</script> ratio";
  c.y_label = "ratio";
  c.target_x = 1.5e9;
  c.bound = 1.8;
  TrendSeries s;
  s.name = "8 threads";
  s.x = {5e6, 15e6, 50e6};
  s.y = {1.2, 1.1, 1.0};
  s.low = {1.1, 1.0, 0.9};
  s.high = {1.3, 1.2, 1.1};
  s.fitted = true;
  s.predicted = 0.8;
  s.predicted_low = 0.5;
  s.predicted_high = 1.2;
  s.per_decade = 0.9;
  c.series = {s};
  const std::string inline_svg = RenderTrendSvg(c, false);
  const std::string file_svg = RenderTrendSvg(c, true);
  CHECK(inline_svg.find("<script") == std::string::npos);
  CHECK(inline_svg.find("xmlns") == std::string::npos);
  CHECK(inline_svg.find("http") == std::string::npos);
  CHECK(file_svg.find("xmlns=") != std::string::npos);
  // Three measured points, the hollow prediction, and the legend's dot.
  CHECK(Count(inline_svg, "<circle") == 5);
  CHECK(Count(inline_svg, "fill=\"white\"") == 1);
  CHECK(inline_svg.find("log scale") != std::string::npos);
  // Without a fit: only the measured points and the legend.
  c.series[0].fitted = false;
  CHECK(Count(RenderTrendSvg(c, false), "<circle") == 4);
}

}  // namespace
}  // namespace flatbench::report
