// The one translation unit that defines Catch2's main; it holds no tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
