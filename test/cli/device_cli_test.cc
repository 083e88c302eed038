// flatbench device: a short profile of a temporary directory, and its
// errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "test/run_command.h"

using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;

TEST_CASE("device profiles a directory and leaves nothing behind") {
  TempDir tmp;
  const std::string out = tmp / "p.json";
  auto r = RunFlatbench("device --dir " + tmp.path() + " --file-mib 1 " +
                        "--seconds 0.6 --rounds 2 --out " + out);
  if (r.exit_code == 74) {
    // A filesystem without direct I/O (tmpfs) has no device to profile;
    // the error says so.
    CHECK(r.err.find("direct I/O") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(tmp / ".flatbench-device-scratch"));
    return;
  }
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(tmp / ".flatbench-device-scratch"));
  CHECK(r.err.find("ETA") != std::string::npos);
  CHECK(r.out.find("p99.9 us") != std::string::npos);
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  CHECK(doc["flatbench_device_profile"] == 1);
  CHECK(doc["file_bytes"] == 1 << 20);
  CHECK(doc["rounds"] == 2);
  const auto& cells = doc["cells"];
  REQUIRE(cells.size() == 12);
  for (int d : {1, 8, 32}) {
    for (int b : {4096, 8192, 12288, 16384}) {
      bool found = false;
      for (const auto& c : cells) {
        if (c["queue_depth"] != d || c["read_bytes"] != b) continue;
        found = true;
        CHECK(c["reads"].get<uint64_t>() > 0);
        CHECK(c["reads_per_s_low"] <= c["reads_per_s"]);
        CHECK(c["reads_per_s"] <= c["reads_per_s_high"]);
        CHECK(c["lat_p50_ns"] <= c["lat_p99_ns"]);
        // Every read costs its reader some CPU; the rest of the host's is
        // never negative.
        CHECK(c["cpu_ns_per_read"].get<double>() > 0);
        CHECK(c["host_cpu_ns_per_read"].get<double>() >= 0);
      }
      CHECK(found);
    }
  }
  // An existing --out is not overwritten without --force.
  r = RunFlatbench("device --dir " + tmp.path() +
                   " --file-mib 1 --seconds 0.1 --out " + out);
  CHECK(r.exit_code == 73);
  CHECK(r.err.find("p.json") != std::string::npos);
}

TEST_CASE("device refuses a missing directory and impossible sizes") {
  TempDir tmp;
  auto r = RunFlatbench("device --dir " + (tmp / "nope") + " --seconds 0.1");
  CHECK(r.exit_code == 66);
  CHECK(r.err.find("nope") != std::string::npos);
  r = RunFlatbench("device --dir " + tmp.path() + " --seconds 0");
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("--seconds") != std::string::npos);
  // A plain file is not a directory: 66, the directory is missing, as for
  // get --dir (README's exit table).
  std::ofstream(tmp / "file") << "x";
  r = RunFlatbench("device --dir " + (tmp / "file") + " --seconds 0.1");
  CHECK(r.exit_code == 66);
  CHECK(r.err == "flatbench: " + (tmp / "file") + ": not a directory\n");
  r = RunFlatbench("get --dir " + (tmp / "file") + " --key " +
                   std::string(40, '0'));
  CHECK(r.exit_code == 66);
  CHECK(r.err == "flatbench: " + (tmp / "file") + ": not a directory\n");
}

TEST_CASE("device never writes through a link at its scratch name") {
  TempDir tmp;
  const std::string victim = tmp / "victim";
  std::ofstream(victim) << "precious";
  std::filesystem::create_directory(tmp / "d");
  std::filesystem::create_symlink(victim, tmp / "d/.flatbench-device-scratch");
  auto r = RunFlatbench("device --dir " + (tmp / "d") +
                        " --file-mib 1 --seconds 0.2 --rounds 1 --quiet");
  INFO(r.err);
  CHECK((r.exit_code == 0 || r.exit_code == 74));
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  CHECK(text == "precious");
  CHECK_FALSE(std::filesystem::exists(tmp / "d/.flatbench-device-scratch"));
}
