#pragma once
// Hex encoding for keys and values on the command line and in TSV dumps.

#include <cstdint>
#include <string>
#include <string_view>

namespace flatbench {

std::string ToHex(std::string_view bytes);
// Decodes lowercase or uppercase hex with an optional "0x" prefix. Returns
// false on an odd length or a non-hex character.
bool FromHex(std::string_view hex, std::string* out);
// Sixteen lowercase hex digits: fingerprints, digests, hashed identities.
std::string Hex64(uint64_t value);

}  // namespace flatbench
