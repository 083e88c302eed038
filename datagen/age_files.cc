#include "datagen/age_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/files.h"

namespace flatbench::datagen {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

uint64_t WriteBytes() {
  std::ifstream in("/proc/self/io");
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) {
    if (name == "write_bytes:") return value;
  }
  return 0;
}

double WriteRate(const std::string& dir, uint64_t bytes) {
  if (bytes == 0) return 0;
  const int fd = open(dir.c_str(), O_TMPFILE | O_WRONLY | O_DIRECT, 0600);
  if (fd < 0) return 0;
  UniqueFd owned(fd);
  constexpr size_t kChunk = 1 << 20;
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, kChunk) != 0) return 0;
  std::unique_ptr<void, decltype(&std::free)> hold(buf, &std::free);
  std::memset(buf, 0x5a, kChunk);
  const auto start = Clock::now();
  for (uint64_t done = 0; done < bytes; done += kChunk) {
    if (write(fd, buf, kChunk) != static_cast<ssize_t>(kChunk)) return 0;
  }
  if (fdatasync(fd) != 0) return 0;
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  return s > 0 ? static_cast<double>(bytes) / s : 0;
}

std::string AgingPath(const std::string& dir, const std::string& store) {
  return dir + "/" + store + ".aging";
}

Status SaveRecord(const std::string& path, const AgingRecord& r) {
  json j = {{"target", r.target},
            {"from_blocks", r.from_blocks},
            {"durable_blocks", r.durable},
            {"seconds", r.seconds},
            {"logical_bytes", r.logical_bytes},
            {"written_bytes", r.written_bytes},
            {"steady_at_block", r.steady_at},
            {"steady", r.steady_what}};
  return WriteFileAtomic(path, j.dump(2) + "\n");
}

Result<AgingRecord> LoadRecord(const std::string& path) {
  FLATBENCH_ASSIGN_OR_RETURN(const std::string text, ReadSmallFile(path));
  AgingRecord r;
  try {
    json j = json::parse(text);
    r.target = j.at("target").get<std::string>();
    r.from_blocks = j.at("from_blocks").get<uint64_t>();
    r.durable = j.at("durable_blocks").get<uint64_t>();
    r.seconds = j.at("seconds").get<double>();
    r.logical_bytes = j.at("logical_bytes").get<uint64_t>();
    r.written_bytes = j.at("written_bytes").get<uint64_t>();
    // Absent in records written before the steady state was tracked.
    r.steady_at = j.value("steady_at_block", uint64_t{0});
    r.steady_what = j.value("steady", std::string());
  } catch (const json::exception& e) {
    return Status::Corruption(path + ": malformed: " + e.what());
  }
  return r;
}

}  // namespace flatbench::datagen
