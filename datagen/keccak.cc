#include "datagen/keccak.h"

#include <crypto++/keccak.h>

namespace flatbench::datagen {

Hash256 Keccak256(std::string_view data) {
  // Crypto++'s Keccak_256 is the original Keccak padding that Ethereum uses.
  thread_local CryptoPP::Keccak_256 hasher;
  Hash256 out;
  hasher.Update(reinterpret_cast<const CryptoPP::byte*>(data.data()),
                data.size());
  hasher.Final(out.data());
  return out;
}

}  // namespace flatbench::datagen
