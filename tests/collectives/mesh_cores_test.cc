// End-to-end: allreduce_mesh with --cores C (the built-in multi-core mesh:
// 256-element tiles block-cyclic over C vector cores, one barrier lane per
// core) keeps the per-rank card, is faster than one core where one core's
// reads in flight are the bottleneck, and refuses more cores than the chip
// has (as the other multi-core forms do); the single-core collectives refuse
// --cores > 1.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "builtins.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct CoreCase {
  uint32_t P, cores;
  uint64_t N;
  std::string op, dtype;
};

void PrintTo(const CoreCase &c, std::ostream *os) {
  *os << "P=" << c.P << " cores=" << c.cores << " N=" << c.N << " " << c.op << " " << c.dtype;
}

// 256 B: one tile, cores 1.. idle; 5000 B: four tiles and a partial one;
// 1 MiB fp16: 2048 tiles.
const CoreCase kCases[] = {
    {4, 2, 256, "sum", "fp32"},    {4, 3, 5000, "sum", "fp32"},     {3, 4, 5000, "max", "fp32"},
    {5, 3, 65536, "prod", "fp16"}, {8, 48, 1048576, "sum", "fp16"}, {2, 5, 20480, "min", "fp32"},
};

class MeshCores : public ::testing::TestWithParam<CoreCase> {};

TEST_P(MeshCores, RunsOkWithTheSameCardAsOneCore) {
  const CoreCase c = GetParam();
  JsonDoc d;
  ASSERT_TRUE(
      RunJson(RunArgs("allreduce_mesh", c.P, c.N,
                      {"--cores", std::to_string(c.cores), "--op", c.op, "--dtype", c.dtype}),
              &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  for (uint32_t r = 0; r < c.P; r++)
    EXPECT_EQ(d["per_rank"][r]["remote_read_bytes"].Int(), (long long)((c.P - 1) * c.N));
  EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].Num(), (double)((c.P - 1) * c.N));
  EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), 1);  // one round on every core
}

INSTANTIATE_TEST_SUITE_P(Shapes, MeshCores, ::testing::ValuesIn(kCases));

// P=8, 1 MiB: one core keeps two 64 KiB reads in flight, far from the seven
// links' bandwidth; four cores keep many tile reads in flight each.
TEST(MeshCoresSpeed, FourCoresSplitTheTrafficAndBeatOneCore) {
  JsonDoc one, four;
  ASSERT_TRUE(RunJson(RunArgs("allreduce_mesh", 8, 1048576, {"--cores", "1"}), &one));
  ASSERT_TRUE(RunJson(RunArgs("allreduce_mesh", 8, 1048576, {"--cores", "4"}), &four));
  EXPECT_EQ(four["status"].Str(), "OK");
  for (uint32_t r = 0; r < 8; r++) {
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(four["per_rank"][r]["remote_read_bytes"].Int(),
              one["per_rank"][r]["remote_read_bytes"].Int());
    // the split shows in the operations: one read per 256-element tile
    EXPECT_GT(four["per_rank"][r]["remote_ops"].Int(), one["per_rank"][r]["remote_ops"].Int());
  }
  EXPECT_EQ(four["measured"]["remote_read_bytes_per_rank"].Int(), 7 * 1048576);
  double t1 = one["time_ps"].Num(), t4 = four["time_ps"].Num();
  EXPECT_LT(t4, 0.75 * t1) << "cores 4: " << t4 << " ps, cores 1: " << t1 << " ps";
}

TEST(MeshCoresLimit, MoreCoresThanTheChipHasAreRefused) {
  // the default chip has 48 vector cores (configs/a2-8p-hccs.yaml)
  for (const std::string &algo : MultiCoreCollectives()) {
    SCOPED_TRACE(algo);
    EXPECT_TRUE(RunFailsWithUsage(RunArgs(algo, 4, 4096, {"--cores", "49"}), {"49", "48"}));
    EXPECT_TRUE(RunFailsWithUsage(RunArgs(algo, 4, 4096, {"--cores", "0"}), {"--cores"}));
    JsonDoc d;
    EXPECT_TRUE(RunJson(RunArgs(algo, 2, 4096, {"--cores", "48"}), &d));
  }
}

TEST(MeshCoresLimit, SingleCoreCollectivesRefuseSeveralCores) {
  for (const Builtin &l : AllCollectives()) {
    if (IsMultiCore(l.algo)) continue;
    SCOPED_TRACE(l.algo);
    EXPECT_TRUE(RunFailsWithUsage(RunArgs(l.algo, 4, 4096, {"--cores", "2"}), {"--cores"}));
  }
}

}  // namespace
}  // namespace a2test
