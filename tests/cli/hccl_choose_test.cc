// `run --algo allreduce` chooses as HCCL does (docs/collectives.md,
// "Choosing as HCCL does"): the rule's thresholds through the C API, the
// choice a run reports on the A2 server, the A2 cluster and the A3
// super-node, --hccl-algo forcing one, --explain's candidates.
#include "collectives/hccl_choose.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "configs/config.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

std::string Chosen(const a2_config &cfg, a2_hccl_device dev, uint32_t P, uint64_t N,
                   a2_reduce_op op = A2_RED_SUM) {
  a2_coll_params p{};
  p.nranks = P;
  p.size_bytes = N;
  p.cores = 1;
  p.op = op;
  p.dtype = A2_FP32;
  p.ub_bytes = cfg.ub_bytes;
  a2_hccl_choice c;
  a2_err e{};
  EXPECT_EQ(a2_hccl_choose("allreduce", &cfg, dev, 0, &p, nullptr, &c, &e), A2_OK) << e.msg;
  return c.algo ? c.algo : "";
}

a2_config Cluster(uint32_t ranks) {
  a2_config cfg;
  a2_err e{};
  EXPECT_EQ(
      a2_config_load((std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml").c_str(), &cfg, &e),
      A2_OK)
      << e.msg;
  EXPECT_EQ(a2_config_set(&cfg, "interconnect.ranks", std::to_string(ranks).c_str(), &e), A2_OK);
  return cfg;
}

TEST(HcclChoose, OneA2ServerSmallCountMeshUpTo256KiBThenTheLoopedSdmaMesh) {
  a2_config cfg;
  a2_config_default(&cfg);
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A2, 8, 4096), "allreduce_mesh");
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A2, 8, 256 * 1024), "allreduce_mesh");
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A2, 8, 256 * 1024 + 32), "allreduce_sdma_mesh");
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A2, 4, 4 << 20), "allreduce_sdma_mesh");
  // no SDMA inline reduce for max: the mesh executor with a local reduce
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A2, 8, 4 << 20, A2_RED_MAX), "allreduce_two_phase");
  // the SDMA mesh needs N in P chunks of whole elements: the one-shot mesh runs it
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A2, 3, 300 * 1024 + 4), "allreduce_mesh");
}

TEST(HcclChoose, AcrossA2ServersTheLevelOneCostsPickRingUpToThreeServersNhrBeyond) {
  // the hierarchical all-reduce with the level-1 algorithm between the servers
  EXPECT_EQ(Chosen(Cluster(16), A2_HCCL_A2, 16, 1 << 20), "allreduce_hier_ring");  // tie: Ring
  EXPECT_EQ(Chosen(Cluster(64), A2_HCCL_A2, 64, 1 << 20), "allreduce_hier_nhr");   // NHR
  // 3 servers: Ring's 2 steps each way tie NHR's ceil(log2 3) = 2; 4: NHR's 2 beat Ring's 3
  EXPECT_EQ(Chosen(Cluster(24), A2_HCCL_A2, 24, 3 << 20), "allreduce_hier_ring");
  // 1 MiB is not 24 chunks of whole elements: neither ring runs it, the mesh does
  EXPECT_EQ(Chosen(Cluster(24), A2_HCCL_A2, 24, 1 << 20), "allreduce_mesh");
  EXPECT_EQ(Chosen(Cluster(32), A2_HCCL_A2, 32, 1 << 20), "allreduce_hier_nhr");  // tie: NHR > HD
  // a last, partial server: no hierarchy, the flat level-1 algorithm
  EXPECT_EQ(Chosen(Cluster(36), A2_HCCL_A2, 36, 36 << 16), "allreduce_nhr");
  // within one server of the cluster: the server rule
  EXPECT_EQ(Chosen(Cluster(16), A2_HCCL_A2, 8, 4096), "allreduce_mesh");
}

TEST(HcclChoose, A3RulesOfSelectAlgfor91093) {
  a2_config cfg;
  a2_err e{};
  ASSERT_EQ(
      a2_config_load((std::string(A2_SOURCE_DIR) + "/configs/a3-supernode.yaml").c_str(), &cfg, &e),
      A2_OK);
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A3, 64, 1 << 20), "allreduce_nhr");  // multi-server small
  // NHR needs N in P chunks: 128 KiB is not 48 of whole elements, RHD's 32 are
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A3, 48, 128 << 10), "allreduce_rhd");
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A3, 64, 64 << 20), "allreduce_double_ring");
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A3, 16, 256 * 1024), "allreduce_mesh");  // one server small
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A3, 16, 16 << 20), "allreduce_double_ring");
  // 16 MiB + 64 B is not 2P blocks of whole elements: the single ring's P are
  EXPECT_EQ(Chosen(cfg, A2_HCCL_A3, 16, (16 << 20) + 64), "allreduce_ring");
}

TEST(HcclChoose, ARunReportsTheChosenBuiltIn) {
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--algo", "allreduce", "--ranks", "8", "--size", "1MiB"}, &d));
  EXPECT_EQ(d["algo"].Str(), "allreduce_sdma_mesh");
  EXPECT_EQ(d["status"].Str(), "OK");
  ASSERT_TRUE(RunJson({"run", "--algo", "allreduce", "--ranks", "8", "--size", "1MiB",
                       "--hccl-algo", "allreduce_rhd"},
                      &d));
  EXPECT_EQ(d["algo"].Str(), "allreduce_rhd");
}

TEST(HcclChoose, BadChooserFlagsAreUsageErrors) {
  EXPECT_TRUE(
      RunFailsWithUsage({"run", "--algo", "allreduce", "--ranks", "4", "--hccl-algo", "broadcast"},
                        {"--hccl-algo", "not an all-reduce built-in"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--algo", "allreduce_ring", "--ranks", "4", "--explain"},
                                {"--explain", "only with --algo allreduce"}));
  EXPECT_TRUE(
      RunFailsWithUsage({"run", "--algo", "allreduce", "--ranks", "4", "--hccl-device", "a9"},
                        {"--hccl-device", "a2, a3"}));
}

TEST(HcclChoose, AivModeRunsTheChosenBuiltInOnTheExecutorsCores) {
  // 1 MiB at P = 8: AllGatherMeshAivExecutor, P + 1 = 9 vector cores
  JsonDoc aiv, cores;
  ASSERT_TRUE(RunJson(
      {"run", "--algo", "allgather", "--ranks", "8", "--size", "1MiB", "--hccl-aiv"}, &aiv));
  ASSERT_TRUE(RunJson(
      {"run", "--algo", "allgather", "--ranks", "8", "--size", "1MiB", "--cores", "9"}, &cores));
  EXPECT_EQ(aiv["algo"].Str(), "allgather");
  EXPECT_EQ(aiv["status"].Str(), "OK");
  EXPECT_EQ(aiv["time_ps"].Int(), cores["time_ps"].Int());
  CliResult r = RunCli({"run", "--algo", "reduce_scatter", "--ranks", "4", "--size", "4MiB",
                        "--hccl-aiv", "--no-data", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("HCCL picks reduce_scatter --cores 8: ReduceScatterMeshAivExecutor"),
            std::string::npos)
      << r;
  EXPECT_NE(r.out.find("<- HCCL's choice --cores 8"), std::string::npos) << r;
  EXPECT_NE(r.out.find("  reduce_scatter_nb"), std::string::npos) << r;  // others on 1 core
}

TEST(HcclChoose, AivModeOfTheA3ExplainsItsChoice) {
  // one A3 server of 8 dies, 64 KiB: AllReduceMeshAivSmallCountExecutor on P = 8 cores
  CliResult r =
      RunCli({"run", "--algo", "allreduce", "--config",
              std::string(A2_SOURCE_DIR) + "/configs/a3-supernode.yaml", "--ranks", "8", "--size",
              "64KiB", "--hccl-aiv", "--hccl-device", "a3", "--no-data", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("HCCL picks allreduce_mesh --cores 8: AllReduceMeshAivSmallCountExecutor"),
            std::string::npos)
      << r;
  EXPECT_NE(r.out.find("--hccl-device a3, --hccl-aiv"), std::string::npos) << r;
}

TEST(HcclChoose, DeterministicFlagChoosesTheDeterministicExecutors) {
  CliResult r = RunCli({"run", "--algo", "allreduce", "--ranks", "8", "--size", "64KiB",
                        "--hccl-aiv", "--hccl-deterministic", "--no-data", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("HCCL picks allreduce_two_phase --cores 16: AllReduceAivDeterSmallExecutor"),
            std::string::npos)
      << r;
  EXPECT_NE(r.out.find("--hccl-aiv, --hccl-deterministic"), std::string::npos) << r;
  EXPECT_TRUE(
      RunFailsWithUsage({"run", "--algo", "allreduce_ring", "--ranks", "4", "--hccl-deterministic"},
                        {"--hccl-deterministic", "only with --algo allreduce"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"gen", "--algo", "allreduce", "--ranks", "2", "--hccl-deterministic", "-o", "x.a2t"},
      {"--hccl-deterministic", "not for a2a3sim gen"}));
}

TEST(HcclChoose, AivFlagIsAUsageErrorOutsideTheChooser) {
  TempDir dir;
  std::string file = dir.path() + "/k.a2t";
  CliResult g = RunCli({"gen", "--algo", "allgather", "--ranks", "2", "-o", file});
  ASSERT_EQ(g.exit_code, 0) << g;
  EXPECT_TRUE(RunFailsWithUsage({"run", "--program", file, "--ranks", "2", "--hccl-aiv"},
                                {"--hccl-aiv", "not with --program"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--algo", "allreduce_ring", "--ranks", "4", "--hccl-aiv"},
                                {"--hccl-aiv", "only with --algo allreduce"}));
  EXPECT_TRUE(
      RunFailsWithUsage({"gen", "--algo", "allgather", "--ranks", "2", "--hccl-aiv", "-o", file},
                        {"--hccl-aiv", "not for a2a3sim gen"}));
}

TEST(HcclChoose, ExplainRunsEveryCandidateAndNamesTheMeasuredBest) {
  CliResult r =
      RunCli({"run", "--algo", "allreduce", "--ranks", "8", "--size", "64KiB", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_NE(r.out.find("HCCL picks allreduce_mesh: AllReduceMeshSmallCountExecutor"),
            std::string::npos)
      << r;
  for (const char *n : {"allreduce_mesh", "allreduce_two_phase", "allreduce_sdma_mesh",
                        "allreduce_ring", "allreduce_rhd", "allreduce_nhr"})
    EXPECT_NE(r.out.find(std::string("  ") + n), std::string::npos) << n;
  EXPECT_NE(r.out.find("<- HCCL's choice"), std::string::npos);
  EXPECT_NE(r.out.find("measured best "), std::string::npos);
  // the chosen run after the candidates reports the time it reports alone
  JsonDoc alone;
  ASSERT_TRUE(
      RunJson({"run", "--algo", "allreduce_mesh", "--ranks", "8", "--size", "64KiB"}, &alone));
  char want[64];
  snprintf(want, sizeof want, "time %.3f us", (double)alone["time_ps"].Int() / 1e6);
  EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r;
}

}  // namespace
}  // namespace a2test
