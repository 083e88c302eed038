#pragma once
// Keccak-256 (the Ethereum hash, not NIST SHA3-256) from Crypto++.

#include <array>
#include <cstdint>
#include <string_view>

namespace flatbench::datagen {

using Hash256 = std::array<uint8_t, 32>;

Hash256 Keccak256(std::string_view data);

}  // namespace flatbench::datagen
