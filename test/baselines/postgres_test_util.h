#pragma once
// The PostgreSQL tests' tools: the processes a cluster leaves (by pid,
// start time and the folder they name), a store built in a temp folder,
// and the page a scan should return.

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/table.h"
#include "baselines/postgres_conn.h"
#include "baselines/postgres_copy.h"
#include "baselines/postgres_server.h"
#include "datagen/check.h"
#include "datagen/dataset_dir.h"
#include "test/datagen/collect_sink.h"
#include "test/temp_dir.h"
#include "test/wait_until.h"

namespace flatbench::pg_test {

using namespace flatbench::datagen;
using namespace flatbench::dataset;
namespace fs = std::filesystem;

using Pairs = std::vector<std::pair<std::string, std::string>>;

inline bool Alive(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  size_t close = line.rfind(')');
  return close != std::string::npos && line[close + 2] != 'Z';
}

// A process's start time (field 22 of its stat), so that a pid reused
// by another process after the server's exit is not taken for it; "" when
// the pid is gone or a zombie.
inline std::string StartTime(int pid) {
  if (!Alive(pid)) return "";
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
  }
  return field;
}

// Live processes whose command line names `dir` (a postmaster's -D).
inline std::vector<int> ProcessesNaming(const std::string& dir) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (!std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
    if (cmd.find(dir) != std::string::npos && Alive(std::stoi(name))) {
      out.push_back(std::stoi(name));
    }
  }
  return out;
}

// The processes naming `dir` once every one has exited, or those still
// alive when the deadline passes: a stopped server's processes take their
// own time to exit on a busy machine.
inline std::vector<int> ProcessesLeft(const std::string& dir) {
  testing::WaitUntil([&] { return ProcessesNaming(dir).empty(); });
  return ProcessesNaming(dir);
}

// Whether `pid` is gone (or another process by now), waiting for it.
inline bool Exited(int pid, const std::string& start_time = "") {
  return testing::WaitUntil([&] {
    const std::string now = StartTime(pid);
    return now.empty() || (!start_time.empty() && now != start_time);
  });
}

// Regular files under `dir`, as the benchmark lists a backend's files.
inline std::vector<std::string> RegularFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Builds `spec` into the postgres backend of tmp/ds; returns its folder.
// The tests keep their clusters in memory (TempDir::Where::kMemory): they
// read nothing cold, and on disk initdb's and the server's fsyncs, and
// removing a cluster's files, waited on every other writer of the disk
// (a build beside the tests) for most of each case's time.
inline std::string Build(const testing::TempDir& tmp, const Spec& spec) {
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = spec;
  o.backends = {"postgres"};
  o.progress = false;
  REQUIRE(Generate(o, backends::NewLoader).ok());
  return fs::absolute(o.dir + "/postgres").lexically_normal().string();
}

struct PageCollector : ScanVisitor {
  void Visit(std::string_view k, std::string_view v) override {
    got.emplace_back(std::string(k), std::string(v));
  }
  Pairs got;
};

// The page the model holds from the first key >= `seek`.
inline Pairs ExpectedPage(const Pairs& model, const std::string& seek,
                          size_t n) {
  auto it = std::lower_bound(
      model.begin(), model.end(), seek,
      [](const auto& p, const std::string& k) { return p.first < k; });
  Pairs out;
  for (; it != model.end() && out.size() < n; ++it) out.push_back(*it);
  return out;
}

}  // namespace flatbench::pg_test
