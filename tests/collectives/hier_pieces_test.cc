// The two-level hierarchical all-reduce moves data in pieces of the server
// chunk N/G up to the tile T (docs/collectives.md, "The hierarchical
// collectives"): its server meshes read each peer's chunk in ceil(C/T)
// pieces and every level step reads its block (N/P <= T here) as one
// piece. With a level-1 ring on configs/a2-cluster.yaml (servers of G = 8),
// every rank's remote reads are then 2 (G-1) ceil(C/T) + 2 (M-1) ceil(b/T),
// written out here; checked and race-checked at each point.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "builtins.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const uint64_t kG = 8;         // configs/a2-cluster.yaml: servers of 8
const uint64_t kT = 64 << 10;  // the tile: a2_coll_chunk_bytes of the default UB

uint64_t Pieces(uint64_t len, uint64_t T) {
  return (len + T - 1) / T;
}

struct Point {
  uint32_t P;
  uint64_t N;
};

void PrintTo(const Point &c, std::ostream *os) {
  *os << "allreduce_hier_ring P=" << c.P << " N=" << c.N;
}

class HierPieces : public ::testing::TestWithParam<Point> {};

TEST_P(HierPieces, ServerChunkPiecesAndOneReadALevelStep) {
  const Point &c = GetParam();
  const std::vector<std::string> cluster = {"--config",
                                            std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml",
                                            "--set", "interconnect.ranks=" + std::to_string(c.P)};
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs("allreduce_hier_ring", c.P, c.N, cluster), &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  const uint64_t M = c.P / kG, C = c.N / kG, b = c.N / c.P;
  const uint64_t T = C < kT ? C : kT;
  const uint64_t ops = 2 * (kG - 1) * Pieces(C, T) + 2 * (M - 1) * Pieces(b, T);
  for (uint32_t r = 0; r < c.P; r++) {
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(d["per_rank"][r]["remote_ops"].Int(), (long long)ops);
    EXPECT_EQ(d["per_rank"][r]["remote_read_bytes"].Int(),
              (long long)(2 * (kG - 1) * C + 2 * (M - 1) * b));
  }
}

// chunks below, at and above the tile; blocks of a few KiB
INSTANTIATE_TEST_SUITE_P(Sizes, HierPieces,
                         ::testing::Values(Point{16, 64 << 10}, Point{16, 512 << 10},
                                           Point{16, 1 << 20}, Point{32, 1 << 20},
                                           Point{64, 1 << 20}),
                         [](const ::testing::TestParamInfo<Point> &i) {
                           return "P" + std::to_string(i.param.P) + "_N" +
                                  std::to_string(i.param.N);
                         });

}  // namespace
}  // namespace a2test
