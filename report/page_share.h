#pragma once
// The geometric model's distinct-page share (RESEARCH.md §10): a pass of r
// reads at uniformly random keys, each reading k pages of a table of P
// pages, touches P (1 - e^(-rk/P)) distinct pages; pages an earlier read of
// the same pass brought in are not read again. The share of its page reads
// that go to storage is that over rk. Shared by the verdict's one-page
// ceiling and the sweep's geometric model, so both use one formula.

#include <cmath>

namespace flatbench::report {

// P (1 - e^(-rk/P)) / (rk); 1 when any figure is not positive (independent
// reads, the limit of a large table). expm1 keeps it exact for rk << P.
inline double PassShare(double table_pages, double pages_per_read,
                        double reads) {
  if (!(reads > 0) || !(table_pages > 0) || !(pages_per_read > 0)) return 1;
  const double touched = reads * pages_per_read;
  return table_pages * -std::expm1(-touched / table_pages) / touched;
}

}  // namespace flatbench::report
