#include "datagen/keccak.h"

#include <catch2/catch.hpp>

#include "common/hex.h"
#include "datagen/keys.h"

using flatbench::ToHex;
using flatbench::datagen::Keccak256;

static std::string HexOf(const flatbench::datagen::Hash256& h) {
  return ToHex({reinterpret_cast<const char*>(h.data()), h.size()});
}

TEST_CASE("Keccak-256 known answers (Ethereum Keccak, not SHA3)") {
  // Empty input: the well-known Ethereum empty-code hash.
  CHECK(HexOf(Keccak256("")) ==
        "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  CHECK(HexOf(Keccak256("abc")) ==
        "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
  // NIST SHA3-256("") would be a7ffc6f8...; make sure we are not that.
  CHECK(HexOf(Keccak256("")).rfind("a7ffc6f8", 0) != 0);
  // The empty-trie root is keccak256(rlp("")) = keccak256(0x80).
  CHECK(HexOf(Keccak256("\x80")) ==
        "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
}

TEST_CASE("account key is the first 20 bytes of keccak(BE counter)") {
  std::string be(8, '\0');
  be[7] = 7;
  auto full = Keccak256(be);
  auto key = flatbench::datagen::MakeAccountKey(7);
  CHECK(ToHex(flatbench::datagen::View(key)) == HexOf(full).substr(0, 40));
}
