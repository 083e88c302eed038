#pragma once
// The verdict's wording (verdict_text.cc), kept apart from the rules that
// decide it (verdict.cc).

#include <string>

#include "report/verdict/verdict.h"

namespace flatbench::report {

// The paragraph that says why `verdict` is what it is: the gates or checks
// that decide it, and the checks beyond this device's limit for any
// one-page format.
std::string VerdictReason(const Verdict& verdict);

}  // namespace flatbench::report
