// --ranks above the config's interconnect.ranks (docs/cli.md): a topology
// that scales (ring, switch, two_level, a torus whose width divides the rank
// count) grows to the rank count, and both reports say so; where it cannot
// (a full mesh, a torus of the wrong width, an explicit --set
// interconnect.ranks, -d), the error names the --set flags that would run it.
// Pins a past failure: --ranks above interconnect.ranks was refused on every
// topology, with an error that did not say how to run it.
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct Grow {
  const char *name;
  std::vector<std::string> flags;  // the topology
  uint32_t from;                   // the config's interconnect.ranks
};

void PrintTo(const Grow &g, std::ostream *os) {
  *os << g.name;
}

class GrowsToTheRankCount : public ::testing::TestWithParam<Grow> {};

TEST_P(GrowsToTheRankCount, RunsAndTheReportsSaySo) {
  const Grow &g = GetParam();
  const std::vector<std::string> run =
      Args({"run", "--algo", "allreduce_ring", "--ranks", "16", "--size", "1KiB"}, g.flags);
  JsonDoc d;
  ASSERT_TRUE(RunJson(run, &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["ranks"].Int(), 16);
  EXPECT_EQ(d["interconnect_ranks"].Int(), 16);
  EXPECT_EQ(d["interconnect_ranks_grown_from"].Int(), (long long)g.from);
  for (int q = 0; q < 16; q++) EXPECT_GT(d["per_rank"][q]["remote_read_bytes"].Int(), 0) << q;
  CliResult text = RunCli(run);
  ASSERT_EQ(text.exit_code, 0) << text;
  EXPECT_NE(text.out.find("note: the " + std::string(g.name) + " grown from the config's " +
                          std::to_string(g.from) +
                          " NPUs to 16 for --ranks 16 (interconnect.ranks=16)\n"),
            std::string::npos)
      << text;
}

INSTANTIATE_TEST_SUITE_P(
    Topologies, GrowsToTheRankCount,
    ::testing::Values(Grow{"ring", {"--set", "interconnect.topology=ring"}, 8},
                      Grow{"switch", {"--set", "interconnect.topology=switch"}, 8},
                      Grow{"two_level", {"--set", "interconnect.topology=two_level"}, 8},
                      Grow{"torus",
                           {"--set", "interconnect.topology=torus", "--set",
                            "interconnect.torus_width=4"},
                           8}),
    [](const ::testing::TestParamInfo<Grow> &i) { return std::string(i.param.name); });

// The cluster config's own count, read from its report (not hard-coded).
TEST(GrowsToTheRankCountCluster, NamesTheConfigsCount) {
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--algo", "allreduce_ring", "--ranks", "2", "--config",
                       A2_SOURCE_DIR "/configs/a2-cluster.yaml"},
                      &d));
  const long long own = d["interconnect_ranks"].Int();
  ASSERT_GT(own, 2);
  JsonDoc g;
  ASSERT_TRUE(RunJson(
      {"run", "--algo", "allreduce_ring", "--ranks", std::to_string(own + 8), "--size",
       std::to_string(16 * (own + 8)), "--config", A2_SOURCE_DIR "/configs/a2-cluster.yaml"},
      &g));
  EXPECT_EQ(g["interconnect_ranks_grown_from"].Int(), own);
  EXPECT_EQ(g["interconnect_ranks"].Int(), own + 8);
}

TEST(GrowsToTheRankCountNot, WithinTheConfigNothingGrowsOrIsSaid) {
  JsonDoc d;
  CliResult r;
  ASSERT_TRUE(RunJson(
      {"run", "--algo", "allreduce_ring", "--ranks", "4", "--set", "interconnect.topology=ring"},
      &d, &r));
  EXPECT_EQ(d["interconnect_ranks"].Int(), 8);
  yajl_val root = d.root().raw();
  ASSERT_TRUE(root && YAJL_IS_OBJECT(root));
  for (size_t k = 0; k < root->u.object.len; k++)
    EXPECT_STRNE(root->u.object.keys[k], "interconnect_ranks_grown_from");
  CliResult text = RunCli({"run", "--algo", "allreduce_ring", "--ranks", "4"});
  EXPECT_EQ(text.out.find("note:"), std::string::npos) << text;
}

// Where it cannot grow: the error names the flags that would run it, and
// running with them works.
struct Refused {
  const char *name;
  std::vector<std::string> flags;
  std::string needle;              // in the error
  std::vector<std::string> fixed;  // the flags the error names, added to the run
};

void PrintTo(const Refused &r, std::ostream *os) {
  *os << r.name;
}

class CannotGrow : public ::testing::TestWithParam<Refused> {};

TEST_P(CannotGrow, TheErrorNamesTheSetThatRunsIt) {
  const Refused &c = GetParam();
  const std::vector<std::string> run =
      Args({"run", "--algo", "allreduce_ring", "--size", "4800"}, c.flags);
  EXPECT_TRUE(RunFailsWithUsage(run, {c.needle}));
  JsonDoc d;
  EXPECT_TRUE(RunJson(Args(run, c.fixed), &d)) << "the named flags run it";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CannotGrow,
    ::testing::Values(
        Refused{"FullMesh",
                {"--ranks", "10"},
                "--ranks: 10 ranks requested but the config's full_mesh has 8 NPUs "
                "(interconnect.ranks): run it with --set interconnect.ranks=10",
                {"--set", "interconnect.ranks=10"}},
        Refused{"TorusOfTheWrongWidth",
                {"--ranks", "15", "--set", "interconnect.topology=torus", "--set",
                 "interconnect.torus_width=4"},
                "run it with --set interconnect.ranks=15 --set interconnect.torus_width=3",
                {"--set", "interconnect.ranks=15", "--set", "interconnect.torus_width=3"}},
        Refused{"ExplicitSetRanks",
                {"--ranks", "12", "--set", "interconnect.topology=ring", "--set",
                 "interconnect.ranks=8"},
                "run it with --set interconnect.ranks=12",
                {"--set", "interconnect.ranks=12"}},
        Refused{"DeviceList",
                {"-d", "0,9", "--set", "interconnect.topology=switch"},
                "-d: device 9 outside 0..7 (interconnect.ranks is 8): run it with --set "
                "interconnect.ranks=10",
                {"--set", "interconnect.ranks=10"}}),
    [](const ::testing::TestParamInfo<Refused> &i) { return std::string(i.param.name); });

}  // namespace
}  // namespace a2test
