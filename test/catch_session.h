#pragma once
// Runs the Catch2 tests linked into this executable with its command line,
// as Catch::Session().run() does. Catch2's single header declares Session
// only where it builds its implementation (catch_impl.cc), so the main()
// of catch_main.cc and the tests with their own main() call this.

namespace flatbench::testing {

int RunTests(int argc, char** argv);

}  // namespace flatbench::testing
