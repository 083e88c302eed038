// Catch2's implementation, compiled once for every test executable: the
// single header builds it where CATCH_CONFIG_RUNNER is defined, which takes
// longer than any test file. No main(): catch_main.cc has the usual one,
// and the tests with their own link this alone.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test/catch_session.h"

namespace flatbench::testing {

int RunTests(int argc, char** argv) { return Catch::Session().run(argc, argv); }

}  // namespace flatbench::testing
