// End-to-end: topology `levels` (docs/timing-model.md, "Levels") and a
// config's `jobs:` section (docs/cli.md, "Several jobs"). The A2 cluster
// written as levels reports exactly as the two_level one; --ranks alone
// sizes a levels config; the shipped levels configs run the ring and mesh
// all-reduce OK at a few P; a route between super-nodes crosses the RoCE
// level; the jobs of a config file give the report of the same --job flags,
// and their errors point at the file's line and column.
#include <map>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const std::string kConfigs = A2_SOURCE_DIR "/configs/";

TEST(Levels, TheA2ClusterByLevelsReportsAsTwoLevel) {
  for (const char *algo : {"allreduce_ring", "allreduce_mesh", "all_to_all"})
    for (const char *P : {"8", "24"}) {
      SCOPED_TRACE(std::string(algo) + " P=" + P);
      JsonDoc two, lv;
      std::vector<std::string> run = {"run", "--algo", algo, "--ranks", P, "--size", "96KiB"};
      ASSERT_TRUE(RunJson(Args(run, {"--config", kConfigs + "a2-cluster.yaml"}), &two));
      ASSERT_TRUE(RunJson(Args(run, {"--config", kConfigs + "a2-cluster-levels.yaml"}), &lv));
      EXPECT_TRUE(lv["ok"].Bool());
      EXPECT_EQ(lv["topology"].Str(), "levels");
      std::map<std::string, std::string> want = JsonScalars(two.root()),
                                         got = JsonScalars(lv.root());
      EXPECT_GT(want.size(), 20u);
      EXPECT_EQ(got, want);
    }
}

TEST(Levels, RanksAloneSizesALevelsConfig) {
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--config", kConfigs + "a2-cluster-levels.yaml", "--algo",
                       "allreduce_ring", "--ranks", "40", "--size", "160KiB"},
                      &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["interconnect_ranks_grown_from"].Int(), 16);
  CliResult r =
      RunCli({"run", "--config", kConfigs + "a3-cluster-roce.yaml", "--algo", "barrier", "--ranks",
              "1600", "--no-data", "--no-race-check", "--set", "interconnect.timing=reservation"},
             300);
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("grown from the config's 64 NPUs to 1600"), std::string::npos) << r.out;
}

TEST(Levels, TheShippedLevelsConfigsRunRingAndMeshOk) {
  for (const char *cfg :
       {"a3-supernode-levels.yaml", "a3-cluster-roce.yaml", "a2-cluster-levels.yaml"})
    for (const char *algo : {"allreduce_ring", "allreduce_mesh"})
      for (const char *P : {"2", "6", "16", "40"}) {
        SCOPED_TRACE(std::string(cfg) + " " + algo + " P=" + P);
        JsonDoc d;
        ASSERT_TRUE(RunJson(
            {"run", "--config", kConfigs + cfg, "--algo", algo, "--ranks", P, "--size", "480KiB"},
            &d));
        EXPECT_TRUE(d["ok"].Bool());
        EXPECT_EQ(d["race_check"]["races"].Int(), 0);
      }
}

// Dies 0 and 2 share a node; 768 and 770 another super-node: the ring's
// steps 2 -> 768 and 770 -> 0 cross the RoCE level (25 GB/s, 3.1 us), so the
// ring is slower than on four dies of one node.
TEST(Levels, ARingAcrossSuperNodesCrossesTheRoceLevel) {
  std::vector<std::string> run = {"run",
                                  "--config",
                                  kConfigs + "a3-cluster-roce.yaml",
                                  "--set",
                                  "interconnect.ranks=1536",
                                  "--algo",
                                  "allreduce_ring",
                                  "--size",
                                  "1MiB"};
  JsonDoc near, far;
  ASSERT_TRUE(RunJson(Args(run, {"-d", "0,2,4,6"}), &near));
  ASSERT_TRUE(RunJson(Args(run, {"-d", "0,2,768,770"}), &far));
  EXPECT_TRUE(far["ok"].Bool());
  // each die reads 1.5 MiB over the ring; across the RoCE level that is
  // >= 62.9 us at 25 GB/s, far longer than inside a node
  EXPECT_GT(far["time_ps"].Int(), 62900000);
  EXPECT_GT(far["time_ps"].Int(), 2 * near["time_ps"].Int());
}

// A failed die-to-die link: the two dies reach each other through their
// node ports (the run completes, slower); a fault on a port is refused.
TEST(Levels, ADieLinkDownIsRoutedThroughTheNodeLevel) {
  std::vector<std::string> run = {"run",    "--config",       kConfigs + "a3-supernode-levels.yaml",
                                  "--algo", "allreduce_mesh", "--ranks",
                                  "4",      "--size",         "1MiB"};
  JsonDoc up, down;
  ASSERT_TRUE(RunJson(run, &up));
  ASSERT_TRUE(RunJson(Args(run, {"--link-down", "0-1"}), &down));
  EXPECT_TRUE(down["ok"].Bool());
  EXPECT_GT(down["time_ps"].Int(), up["time_ps"].Int());
  EXPECT_TRUE(RunFailsWithUsage(Args(run, {"--link-down", "0-2"}),
                                {"--link-down", "no link joins NPU 0 and NPU 2", "levels"}));
}

// ---- jobs: in a config file ----

const char kJobs[] =
    "interconnect:\n"
    "  topology: ring\n"
    "  ranks: 8\n"
    "jobs:\n"
    "  - algo: allreduce_ring\n"
    "    ranks: 0+2+4+6\n"
    "    size: 1MiB\n"
    "  - algo: allreduce_mesh\n"
    "    ranks: 1+3+5+7\n"
    "    size: 1MiB\n"
    "    start: 5us\n"
    "    cores: 2\n";

TEST(Levels, ConfigJobsGiveTheReportOfTheSameJobFlags) {
  TempDir dir;
  std::string f = dir.Write("jobs.yaml", kJobs);
  std::vector<std::string> flags = {
      "--job", "algo=allreduce_ring,ranks=0+2+4+6,size=1MiB", "--job",
      "algo=allreduce_mesh,ranks=1+3+5+7,size=1MiB,start=5us,cores=2"};
  CliResult yaml = RunCli({"run", "--config", f});
  CliResult flag = RunCli(Args({"run", "--config", f}, flags));
  ASSERT_EQ(yaml.exit_code, 0) << yaml;
  ASSERT_EQ(flag.exit_code, 0) << flag;
  EXPECT_EQ(yaml.out, flag.out);
  EXPECT_NE(yaml.out.find("2 jobs on"), std::string::npos) << yaml.out;
  JsonDoc a, b;
  ASSERT_TRUE(RunJson({"run", "--config", f}, &a));
  ASSERT_TRUE(RunJson(Args({"run", "--config", f}, flags), &b));
  EXPECT_EQ(JsonScalars(a.root()), JsonScalars(b.root()));
  EXPECT_GT(a["jobs"][size_t{0}]["slowdown"].Num(), 1.0);  // they share the ring's links
}

struct BadJobs {
  const char *yaml;
  int line, col;
  const char *needle;
};

TEST(Levels, BadConfigJobsAreRefusedAtTheirPlace) {
  const std::string head = "interconnect:\n  topology: ring\n  ranks: 8\n";
  const BadJobs cases[] = {
      {"jobs: {algo: ring}\n", 4, 7, "jobs: expected a list of jobs"},
      {"jobs:\n  - algo: allreduce_ring\n    rank: 0-3\n", 6, 5, "unknown key 'rank' in jobs[0]"},
      {"jobs:\n  - ranks: 0-3\n", 5, 5, "jobs[0]: algo required"},
      {"jobs:\n  - algo: allreduce_ring\n    ranks: 0-x\n", 6, 12, "jobs[0]: ranks:"},
      {"jobs:\n  - algo: no_such\n    ranks: 0-3\n", 5, 11, "algo: unknown algorithm"},
      {"jobs:\n  - algo: allreduce_ring\n    ranks: 0-3\n  - algo: allreduce_ring\n"
       "    ranks: 3-5\n",
       8, 12, "NPU 3 is also in job 1"},
      {"jobs:\n  - algo: allreduce_ring\n    ranks: 0-3\n    size: 1,2\n", 7, 11,
       "without ',' or '='"},
  };
  for (const BadJobs &c : cases) {
    SCOPED_TRACE(c.yaml);
    TempDir dir;
    std::string f = dir.Write("j.yaml", head + c.yaml);
    std::string where = f + ":" + std::to_string(c.line) + ":" + std::to_string(c.col) + ":";
    EXPECT_TRUE(RunFailsWithUsage({"run", "--config", f}, {where, c.needle}));
  }
}

}  // namespace
}  // namespace a2test
