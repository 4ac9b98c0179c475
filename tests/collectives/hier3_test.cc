// The three-level all-reduces (allreduce_hier3_*: HCCL's levels 0, 1 and 2)
// on configs/a3-cluster-roce.yaml with small super-nodes: servers of 16
// dies (the node level), super-nodes of F servers
// (interconnect.levels.2.fanout=F), P / (16 F) super-nodes. Each run is
// checked against the golden and race-checked; every rank's traffic and
// the rounds are the ones written out here from docs/collectives.md.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "builtins.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const uint32_t kNode = 16;  // the dies of an A3 node: 8 packages of 2

std::vector<std::string> SuperNodes(uint32_t F) {
  return {"--config", std::string(A2_SOURCE_DIR) + "/configs/a3-cluster-roce.yaml", "--set",
          "interconnect.levels.2.fanout=" + std::to_string(F)};
}

uint64_t CeilLog2(uint64_t n) {
  uint64_t k = 0;
  while ((1ull << k) < n) k++;
  return k;
}

// steps of one level's reduce-scatter (or all-gather) among n members
uint64_t Steps(const std::string &algo, uint64_t n) {
  if (n < 2) return 0;
  return algo == "ring" ? n - 1 : CeilLog2(n);
}

struct Point {
  const char *algo;  // level 1: ring, rhd or nhr
  uint32_t F, P, cores;
};

void PrintTo(const Point &c, std::ostream *os) {
  *os << "allreduce_hier3_" << c.algo << " F=" << c.F << " P=" << c.P << " cores=" << c.cores;
}

class Hier3 : public ::testing::TestWithParam<Point> {};

TEST_P(Hier3, ChecksAndMovesWhatEachLevelMoves) {
  const Point &c = GetParam();
  const uint32_t G = kNode, M1 = c.F, M2 = c.P / (kNode * c.F);
  const uint64_t N = 96ull * c.P * 4 * c.cores;  // 96 fp32 elements a rank's block, a core
  std::vector<std::string> flags = SuperNodes(c.F);
  flags.insert(flags.end(), {"--cores", std::to_string(c.cores)});
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs(std::string("allreduce_hier3_") + c.algo, c.P, N, flags), &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  EXPECT_TRUE(d["race_check"]["checked"].Bool());
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  // mesh reduce-scatter and all-gather of chunks of N/G in the server, level 1
  // on blocks of M2 N / P among the M1 servers, level 2 on blocks of N / P
  // among the M2 super-nodes (RHD at a power of two of them, else Ring)
  const uint64_t b = N / c.P, C = N / G;
  const uint64_t want = 2 * (G - 1) * C + 2 * (M1 - 1) * M2 * b + 2 * (M2 - 1) * b;
  for (uint32_t r = 0; r < c.P; r++) {
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(d["per_rank"][r]["remote_read_bytes"].Int(), (long long)want);
    EXPECT_EQ(d["per_rank"][r]["remote_write_bytes"].Int(), 0);
  }
  const bool pow2 = (M2 & (M2 - 1)) == 0;
  const uint64_t rounds = 2 + 2 * Steps(c.algo, M1) + 2 * Steps(pow2 ? "rhd" : "ring", M2);
  EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), (long long)rounds);
  EXPECT_EQ(d["analytic"]["barrier_rounds"].Int(), (long long)rounds);
  EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].Num(), (double)want);
  EXPECT_GT(d["hccl_cost"]["time_ps"].Num(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Levels, Hier3,
    ::testing::Values(Point{"ring", 2, 64, 1}, Point{"nhr", 2, 64, 1}, Point{"rhd", 2, 64, 1},
                      Point{"ring", 4, 192, 1},  // three super-nodes: level 2 is Ring
                      Point{"nhr", 4, 192, 2}, Point{"rhd", 4, 256, 1},
                      Point{"nhr", 3, 192, 1},  // three servers a super-node: NHR at any count
                      Point{"nhr", 4, 64, 1}),  // one super-node: level 2 is empty
    [](const ::testing::TestParamInfo<Point> &i) {
      return std::string(i.param.algo) + "_F" + std::to_string(i.param.F) + "_P" +
             std::to_string(i.param.P) + "_C" + std::to_string(i.param.cores);
    });

// Without a node level below the super-node (a two-level topology) a
// three-level row is its two-level row: the same times and traffic.
TEST(Hier3, OnTwoLevelsIsTheTwoLevelRow) {
  const std::vector<std::string> cluster = {"--config",
                                            std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml",
                                            "--set", "interconnect.ranks=32"};
  for (const char *a : {"ring", "rhd", "nhr"}) {
    SCOPED_TRACE(a);
    JsonDoc three, two;
    ASSERT_TRUE(
        RunJson(RunArgs(std::string("allreduce_hier3_") + a, 32, 1 << 20, cluster), &three));
    ASSERT_TRUE(RunJson(RunArgs(std::string("allreduce_hier_") + a, 32, 1 << 20, cluster), &two));
    EXPECT_EQ(three["status"].Str(), "OK");
    EXPECT_EQ(three["time_ps"].Int(), two["time_ps"].Int());
    EXPECT_EQ(three["measured"]["remote_read_bytes_per_rank"].Int(),
              two["measured"]["remote_read_bytes_per_rank"].Int());
    EXPECT_EQ(three["measured"]["barrier_rounds"].Int(), two["measured"]["barrier_rounds"].Int());
  }
}

TEST(Hier3, RefusesPartialServersOrSuperNodesAndRhdOnOtherCounts) {
  std::vector<std::string> f4 = SuperNodes(4);
  EXPECT_TRUE(
      RunFailsWithUsage(RunArgs("allreduce_hier3_nhr", 96, 96 * 4 * 96, f4),
                        {"--ranks", "not whole super-nodes of 64 ranks", "multiple of 64"}));
  // inside one super-node: whole servers (nodes) still
  EXPECT_TRUE(
      RunFailsWithUsage(RunArgs("allreduce_hier3_nhr", 40, 40 * 4 * 40, f4),
                        {"--ranks", "not whole servers of 16 ranks", "interconnect.levels"}));
  std::vector<std::string> f3 = SuperNodes(3);
  EXPECT_TRUE(RunFailsWithUsage(RunArgs("allreduce_hier3_rhd", 96, 96 * 4 * 96, f3),
                                {"--ranks", "3 servers in a super-node", "power of two"}));
}

}  // namespace
}  // namespace a2test
