// The main() of every test executable without its own; it holds no tests.
#include "test/catch_session.h"

int main(int argc, char** argv) {
  return flatbench::testing::RunTests(argc, argv);
}
