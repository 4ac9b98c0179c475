// `run --algo OP --hccl` for the operations whose names are also built-ins
// (docs/collectives.md, "Choosing as HCCL does"): the chosen built-in runs
// OK, --explain names HCCL's choice and the measured best for every
// operation, and `--algo allreduce --explain` does so on the A2 server, the
// A2 cluster at 16 and 64 ranks and the A3 super-node.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

TEST(HcclOps, TheFlagChoosesTheNameAloneIsTheBuiltIn) {
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--algo", "all_to_all", "--ranks", "8", "--size", "4KiB"}, &d));
  EXPECT_EQ(d["algo"].Str(), "all_to_all");
  ASSERT_TRUE(
      RunJson({"run", "--algo", "all_to_all", "--hccl", "--ranks", "8", "--size", "4KiB"}, &d));
  EXPECT_EQ(d["algo"].Str(), "all_to_all_pairwise");  // RunAlltoAllVFullMesh
  EXPECT_EQ(d["status"].Str(), "OK");
  ASSERT_TRUE(RunJson({"run", "--algo", "reduce_scatter", "--ranks", "8", "--size", "4KiB",
                       "--hccl-algo", "reduce_scatter"},
                      &d));
  EXPECT_EQ(d["algo"].Str(), "reduce_scatter");
}

TEST(HcclOps, ChooserFlagsNeedAnOperation) {
  EXPECT_TRUE(RunFailsWithUsage({"run", "--algo", "allreduce_ring", "--ranks", "4", "--hccl"},
                                {"--hccl", "only with --algo allreduce, allgather"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--algo", "gather", "--ranks", "4", "--explain"},
                                {"--explain", "the chooser"}));
  EXPECT_TRUE(RunFailsWithUsage(
      {"run", "--algo", "allgather", "--ranks", "4", "--hccl-algo", "allreduce_ring"},
      {"--hccl-algo", "not an all-gather built-in"}));
}

// --explain's report: HCCL's pick, every candidate, the measured best.
void ExpectExplained(const std::vector<std::string> &args, const char *op) {
  std::vector<std::string> a = args;
  a.push_back("--explain");
  a.push_back("--json");
  CliResult r = RunCli(a, 600);
  ASSERT_EQ(r.exit_code, 0) << r;
  JsonDoc d = JsonDoc::Parse(r.out);
  ASSERT_TRUE(d.ok()) << d.error() << "\n" << r;
  std::string algo = d["algo"].Str();
  EXPECT_EQ(algo.rfind(op, 0), 0u) << algo;
  EXPECT_EQ(d["status"].Str(), "OK") << r;
  EXPECT_NE(r.err.find("HCCL picks " + algo + ": "), std::string::npos) << r;
  EXPECT_NE(r.err.find("  " + algo + " "), std::string::npos) << r;
  EXPECT_NE(r.err.find("<- HCCL's choice"), std::string::npos) << r;
  EXPECT_NE(r.err.find("measured best "), std::string::npos) << r;
}

TEST(HcclOps, ExplainEveryOperation) {
  for (const char *op : {"allgather", "reduce_scatter", "all_to_all", "broadcast"}) {
    SCOPED_TRACE(op);
    ExpectExplained({"run", "--algo", op, "--ranks", "8", "--size", "16KiB"}, op);
  }
}

TEST(HcclOps, ExplainAllreduceOnTheA2Server) {
  ExpectExplained(
      {"run", "--algo", "allreduce", "--config",
       std::string(A2_SOURCE_DIR) + "/configs/a2-8p-hccs.yaml", "--ranks", "8", "--size", "1MiB"},
      "allreduce");
}

TEST(HcclOps, ExplainAllreduceOnTheA2Cluster16And64) {
  for (const char *P : {"16", "64"}) {
    SCOPED_TRACE(P);
    ExpectExplained({"run", "--algo", "allreduce", "--config",
                     std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml", "--set",
                     std::string("interconnect.ranks=") + P, "--ranks", P, "--size", "1MiB",
                     "--no-data", "--no-race-check"},
                    "allreduce");
  }
}

TEST(HcclOps, ExplainAllreduceOnTheA3SuperNode) {
  ExpectExplained({"run", "--algo", "allreduce", "--config",
                   std::string(A2_SOURCE_DIR) + "/configs/a3-supernode.yaml", "--ranks", "64",
                   "--size", "1MiB", "--hccl-device", "a3", "--no-data", "--no-race-check"},
                  "allreduce");
}

}  // namespace
}  // namespace a2test
