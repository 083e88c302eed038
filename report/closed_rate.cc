#include "report/closed_rate.h"

#include <algorithm>

namespace flatbench::report {

// Hand-written: a loop of a few lines that no package of this project's
// holds.
double ClosedRate(int threads, double demand, double cpus, double delay) {
  if (!(demand > 0)) return threads / delay;  // No queue forms.
  const double m = std::max(1.0, cpus);
  double queue = 0, rate = 0;
  for (int n = 1; n <= threads; ++n) {
    const double at_cpu = demand / m * (1 + queue);
    rate = n / (at_cpu + demand * (m - 1) / m + delay);
    queue = rate * at_cpu;
  }
  return rate;
}

}  // namespace flatbench::report
