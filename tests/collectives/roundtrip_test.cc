// End-to-end: `gen` writes every built-in collective as a program file, and
// running that file reports exactly what running the built-in reports (the
// `builtin` line carries the generator's name and parameters), for a rooted,
// fp16, max-reduction case (sum for the collectives that only add) and for
// the multi-core forms (--cores).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "builtins.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

void ExpectSameReport(const std::vector<std::string> &flags, uint32_t P) {
  TempDir dir;
  std::string file = dir.path() + "/program.a2t";
  std::vector<std::string> gen = {"gen", "-o", file, "--ranks", std::to_string(P)};
  gen.insert(gen.end(), flags.begin(), flags.end());
  CliResult g = RunCli(gen);
  ASSERT_EQ(g.exit_code, 0) << g;
  JsonDoc built_in, traced;
  std::vector<std::string> run = {"run", "--ranks", std::to_string(P)};
  run.insert(run.end(), flags.begin(), flags.end());
  ASSERT_TRUE(RunJson(run, &built_in));
  ASSERT_TRUE(RunJson({"run", "--program", file, "--ranks", std::to_string(P)}, &traced));
  EXPECT_EQ(traced["algo"].Str(), built_in["algo"].Str());
  EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
}

class CollectiveRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(CollectiveRoundTrip, GeneratedTraceReportsLikeTheBuiltIn) {
  ExpectSameReport({"--algo", GetParam(), "--size", "4096", "--root", "2", "--op",
                    Find(GetParam()).sum_only ? "sum" : "max", "--dtype", "fp16"},
                   4);
}

std::vector<std::string> Names() {
  std::vector<std::string> v;
  for (const Builtin &l : AllCollectives()) v.push_back(l.algo);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Builtin, CollectiveRoundTrip, ::testing::ValuesIn(Names()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

TEST(CollectiveRoundTrip, MultiCoreMeshWithIdleCores) {
  // 5000 B = 5 tiles of 256 fp32 over 8 cores: cores 5..7 have no work
  ExpectSameReport({"--algo", "allreduce_mesh", "--cores", "8", "--size", "5000"}, 3);
}

class MultiCoreRoundTrip : public ::testing::TestWithParam<std::string> {};

// 5040 B = 1260 fp32 in 8 slices of 158 (the last 154) at P = 4 (the
// two-phase: chunks of 315 in slices of 40, the last 35); 24 B = 6 fp32
// over 8 cores at P = 3 (the two-phase: chunks of 2): idle cores.
TEST_P(MultiCoreRoundTrip, GeneratedTraceReportsLikeTheBuiltIn) {
  ExpectSameReport({"--algo", GetParam(), "--cores", "8", "--size", "5040", "--op", "max"}, 4);
  ExpectSameReport({"--algo", GetParam(), "--cores", "8", "--size", "24"}, 3);
}

INSTANTIATE_TEST_SUITE_P(Cores, MultiCoreRoundTrip,
                         ::testing::Values("allreduce_two_phase", "allgather", "reduce_scatter",
                                           "all_to_all"),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });

}  // namespace
}  // namespace a2test
