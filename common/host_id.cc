#include "common/host_id.h"

#include <xxhash.h>

#include <fstream>

#include "common/hex.h"

namespace flatbench {

std::string MachineIdHash() {
  std::ifstream in("/etc/machine-id");
  std::string id;
  if (!in || !std::getline(in, id)) id = "unknown";
  if (id.empty()) return "unknown";
  return Hex64(XXH3_64bits(id.data(), id.size()));
}

}  // namespace flatbench
