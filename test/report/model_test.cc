// The geometric model (report/prediction/model.h) against figures computed by
// hand for a small dataset's geometry.
#include "report/prediction/model.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace flatbench::report {
namespace {

using Catch::Detail::Approx;

// A small dataset as each backend would lay it out: 10,000 accounts and
// 20,000 storage pairs.
BackendGeometry Arena() {
  BackendGeometry g;
  // 250 and 600 4 KiB blocks; 8 bytes of index per block; a bloom filter
  // of 10 bits per key with a 1% false-positive rate.
  g.tables[0] = {10'000, 250, 250 * 4096, true, 2'000, 12'500, 1, 0.01};
  g.tables[1] = {20'000, 600, 600 * 4096, true, 4'800, 25'000, 1, 0.01};
  return g;
}

BackendGeometry Rocks() {
  BackendGeometry g;
  // 4,096-byte blocks, unaligned: read with a 5-byte trailer.
  g.tables[0] = {10'000, 100, 100 * 4096, false, 3'000, 9'000, 1, 0.008};
  g.tables[1] = {20'000, 300, 300 * 7000, false, 9'000, 18'000, 1, 0.008};
  return g;
}

BackendGeometry Lmdb() {
  BackendGeometry g;
  // 4 KiB leaf pages, 2 branch pages per table, depth 3 (2 branch levels).
  g.tables[0] = {10'000, 300, 300 * 4096, true, 2 * 4096, 0, 2, 1.0};
  g.tables[1] = {20'000, 700, 700 * 4096, true, 2 * 4096, 0, 2, 1.0};
  return g;
}

TEST_CASE("metadata that fits: one data read per hit, fp reads per miss",
          "[report][model]") {
  const ModelPrediction a = Predict(Arena(), kRequiredRamBytes, 0);
  CHECK(a.metadata_bytes == 2'000 + 12'500 + 4'800 + 25'000);
  CHECK(a.resident_fraction == 1.0);
  CHECK(a.at(flatbench::Table::kAccount).hit_reads == Approx(1.0));
  CHECK(a.at(flatbench::Table::kAccount).miss_reads == Approx(0.01));
  CHECK(a.at(flatbench::Table::kStorage).hit_reads == Approx(1.0));

  // RocksDB: 1 + (4096 + 5 - 1) / 4096 = 2.0009765625 pages per block read;
  // 1 + (7000 + 4) / 4096 = 2.7099609375 for the storage blocks.
  const ModelPrediction r = Predict(Rocks(), kRequiredRamBytes, 0);
  CHECK(r.at(flatbench::Table::kAccount).data_pages == Approx(2.0009765625));
  CHECK(r.at(flatbench::Table::kAccount).hit_reads == Approx(2.0009765625));
  CHECK(r.at(flatbench::Table::kAccount).miss_reads ==
        Approx(0.008 * 2.0009765625));
  CHECK(r.at(flatbench::Table::kStorage).hit_reads == Approx(2.7099609375));

  // LMDB has no filter: a miss reads the leaf that would hold the key.
  const ModelPrediction l = Predict(Lmdb(), kRequiredRamBytes, 0);
  CHECK(l.at(flatbench::Table::kAccount).hit_reads == Approx(1.0));
  CHECK(l.at(flatbench::Table::kAccount).miss_reads == Approx(1.0));
}

TEST_CASE("metadata that does not fit adds index and filter reads",
          "[report][model]") {
  // RAM leaving room for exactly a quarter of LMDB's 16 KiB of branch
  // pages: f = 0.25, so 0.75 of the bottom branch reads go to storage.
  const uint64_t ram = kRamReserveBytes + 4096;
  const ModelPrediction l = Predict(Lmdb(), ram, 0);
  CHECK(l.resident_fraction == Approx(0.25));
  CHECK(l.at(flatbench::Table::kAccount).hit_reads == Approx(1.75));
  CHECK(l.at(flatbench::Table::kAccount).miss_reads == Approx(1.75));

  // The arena's 44,300 bytes with 4,430 of room: f = 0.1. A hit adds an
  // index and a filter read, 0.9 each; a miss 0.9 for the filter and
  // 0.01 x 0.9 for the index, plus 0.01 of a block.
  const ModelPrediction a = Predict(Arena(), kRamReserveBytes + 4'430, 0);
  CHECK(a.resident_fraction == Approx(0.1));
  CHECK(a.at(flatbench::Table::kStorage).hit_reads == Approx(1.0 + 0.9 * 2));
  CHECK(a.at(flatbench::Table::kStorage).miss_reads ==
        Approx(0.01 + 0.9 + 0.009));
  // No RAM beyond the reserve: nothing resident.
  CHECK(Predict(Arena(), kRamReserveBytes / 2, 0).resident_fraction == 0.0);
}

TEST_CASE("a pass re-reads no page an earlier read of it brought in",
          "[report][model]") {
  // The arena's 250 account blocks, 100 reads a pass: they touch
  // 250 (1 - e^-0.4) = 82.42 distinct blocks, 0.8242 per read.
  const ModelPrediction a = Predict(Arena(), kRequiredRamBytes, 100);
  CHECK(a.at(flatbench::Table::kAccount).hit_reads ==
        Approx(250 * (1 - std::exp(-0.4)) / 100));
  // Misses: 1% of 100 reads reach a block, hardly ever the same one.
  CHECK(a.at(flatbench::Table::kAccount).miss_reads ==
        Approx(250 * (1 - std::exp(-1.0 / 250)) / 100));
  // RocksDB, unaligned: 100 x 4096 bytes = 100 pages, 2.0009765625 pages a
  // read, 50 reads: 100 (1 - e^-(50 x 2.0009765625 / 100)) / 50 per read.
  const ModelPrediction r = Predict(Rocks(), kRequiredRamBytes, 50);
  CHECK(r.at(flatbench::Table::kAccount).hit_reads ==
        Approx(100 * (1 - std::exp(-50 * 2.0009765625 / 100)) / 50));
  // A large table: the share tends to one.
  const ModelPrediction big =
      Predict(ScaleTo(Arena(), 1'000'000'000, 1'000'000'000), kRequiredRamBytes,
              20'000);
  CHECK(big.at(flatbench::Table::kAccount).hit_reads ==
        Approx(1.0).epsilon(1e-3));
}

TEST_CASE("geometry grows with pairs, LMDB's depth with the log of its leaves",
          "[report][model]") {
  const BackendGeometry big = ScaleTo(Arena(), 1'000'000, 4'000'000);
  CHECK(big.at(flatbench::Table::kAccount).data_units == 25'000);
  CHECK(big.at(flatbench::Table::kStorage).filter_bytes == 5'000'000);
  CHECK(big.at(flatbench::Table::kAccount).index_levels == 1);
  // 300 leaves under 2 branch pages: fan-out 150. 30,000 leaves need
  // ceil(log(30000) / log(150)) = ceil(2.057) = 3 branch levels.
  const BackendGeometry deep = ScaleTo(Lmdb(), 1'000'000, 2'000'000);
  CHECK(deep.at(flatbench::Table::kAccount).data_units == 30'000);
  CHECK(deep.at(flatbench::Table::kAccount).index_bytes == 200 * 4096);
  CHECK(deep.at(flatbench::Table::kAccount).index_levels == 3);
  // 44,300 metadata bytes per 30,000 pairs; 4,430 bytes of room hold the
  // metadata of 3,000 pairs.
  CHECK(PairsWhereMetadataStopsFitting(Arena(), kRamReserveBytes + 4'430) ==
        Approx(3'000));
  CHECK(std::isinf(PairsWhereMetadataStopsFitting(BackendGeometry(), 1)));
}

}  // namespace
}  // namespace flatbench::report
