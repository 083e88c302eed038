#include "report/prediction/trend.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace flatbench::report {
namespace {

constexpr double kZ95 = 1.959964;
// The smallest relative uncertainty a size is given.
constexpr double kMinSigma = 0.01;

double Sigma(const TrendPoint& p) {
  const double lo = p.interval.low, hi = p.interval.high;
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi)) {
    return kMinSigma;
  }
  return std::max(kMinSigma, (std::log(hi) - std::log(lo)) / (2 * kZ95));
}

}  // namespace

Result<Trend> FitTrend(const std::vector<TrendPoint>& points,
                       double target_pairs) {
  std::set<double> sizes;
  for (const auto& p : points) {
    if (!(p.pairs > 0) || !(p.ratio > 0) || !std::isfinite(p.ratio)) {
      return Status::Usage("trend: a size without a positive ratio");
    }
    sizes.insert(p.pairs);
  }
  if (sizes.size() < 2) {
    return Status::Usage("trend: fewer than two dataset sizes");
  }
  // Weighted sums for the normal equations of y = a + b x.
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : points) {
    const double w = 1.0 / (Sigma(p) * Sigma(p));
    const double x = std::log10(p.pairs), y = std::log(p.ratio);
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
  }
  const double det = sw * sxx - sx * sx;
  if (!(det > 0)) return Status::Usage("trend: sizes too close to fit");
  const double b = (sw * sxy - sx * sy) / det;
  const double a = (sy - b * sx) / sw;
  // Covariance of (a, b): the inverse of [[sw, sx], [sx, sxx]].
  double var_a = sxx / det, var_b = sw / det, cov_ab = -sx / det;

  Trend t;
  t.points = static_cast<int>(points.size());
  if (points.size() > 2) {
    double chi2 = 0;
    for (const auto& p : points) {
      const double r =
          (std::log(p.ratio) - a - b * std::log10(p.pairs)) / Sigma(p);
      chi2 += r * r;
    }
    t.reduced_chi2 = chi2 / static_cast<double>(points.size() - 2);
    if (t.reduced_chi2 > 1) {
      var_a *= t.reduced_chi2;
      var_b *= t.reduced_chi2;
      cov_ab *= t.reduced_chi2;
      t.widened = true;
    }
  }
  const double x0 = std::log10(target_pairs);
  const double y0 = a + b * x0;
  const double var = var_a + 2 * x0 * cov_ab + x0 * x0 * var_b;
  const double half = kZ95 * std::sqrt(std::max(0.0, var));
  t.per_decade = std::exp(b);
  t.predicted = std::exp(y0);
  t.interval = {std::exp(y0 - half), std::exp(y0 + half)};
  return t;
}

}  // namespace flatbench::report
