#pragma once
// This host's identity without its secret, as results and dataset markers
// record it: XXH3-64 hex of /etc/machine-id's first line.

#include <string>

namespace flatbench {

// "unknown" hashed when /etc/machine-id cannot be read, as the results'
// flatbench.env.machine_id_hash has always recorded it.
std::string MachineIdHash();

}  // namespace flatbench
