#pragma once
// Two runs of the same logical content in two shapes: bulk-loaded fresh
// (gen --blocks N) and aged through each store's write path (age --blocks
// N). report compares them cell by cell instead of merging them.

#include "common/status.h"
#include "report/document/document.h"
#include "report/run_data.h"
#include "report/verdict/verdict.h"

namespace flatbench::report {

// Whether two result sets look like such a pair: the same spec and
// fingerprint, one with fresh stores and one with aged ones.
bool LooksLikeShapePair(const ResultSet& a, const ResultSet& b);

// Ok when `fresh` and `aged` may be compared: every provenance key agrees
// but the dataset's folder, and their stores are fresh and aged. Else
// kCorruption naming both files and the first key that differs.
Status ComparableShapes(const ResultSet& fresh, const ResultSet& aged);

// The comparison: each shape's verdict, per backend and cell aged reads/s
// over fresh with pages per read and own-file device rates, and the aged
// stores' upkeep. Its outcome is the aged shape's.
Document BuildShapeComparison(const ResultSet& fresh, const Verdict& vf,
                              const ResultSet& aged, const Verdict& va,
                              const DocumentOptions& options = {});

}  // namespace flatbench::report
