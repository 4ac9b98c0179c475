// The overlap card of `run --algo gemm_allreduce`, whose compute-only and
// comm-only figures come from child runs of the same program with one side:
// the sequential time is their sum, the pipelined time is the run's own and
// lies between the slower side and the sequential time, the exposed
// communication, efficiency and TFLOPS follow from them; the sides change
// with the parameters as runs do; other collectives have no card.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

TEST(OverlapCard, GemmAllreduceReportsItsSidesInJson) {
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--algo", "gemm_allreduce", "--ranks", "4", "--cores", "2", "--size",
                       "512", "--json"},
                      &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  JsonView o = d["overlap"];
  long long comp = o["compute_only_ps"].Int(), comm = o["comm_only_ps"].Int(),
            seq = o["sequential_ps"].Int(), pipe = o["pipelined_ps"].Int();
  EXPECT_GT(comp, 0);
  EXPECT_GT(comm, 0);
  EXPECT_EQ(seq, comp + comm);
  EXPECT_EQ(pipe, d["time_ps"].Int());
  // the compute side beside the communication: its last cube-core
  // completion, no earlier than alone (nothing speeds it up), within the run
  long long cin = o["compute_in_pipelined_ps"].Int();
  EXPECT_GE(cin, comp);
  EXPECT_LE(cin, pipe);
  // the pipelined program does both sides: no faster than either alone, and
  // (overlapping) faster than the two one after the other
  EXPECT_GE(pipe, std::max(comp, comm));
  EXPECT_LT(pipe, seq);
  EXPECT_NEAR(o["exposed_comm_ps"].Num(), (double)(pipe - comp), 1.0);
  EXPECT_NEAR(o["overlap_efficiency"].Num(), (double)(seq - pipe) / (double)comm, 1e-5);
  EXPECT_DOUBLE_EQ(o["flops"].Num(), 2.0 * 512 * 256 * 512 * 4);
  EXPECT_NEAR(o["tflops"].Num(), o["flops"].Num() / ((double)pipe * 1e-12) / 1e12, 1e-5);
}

// The sides are runs, not formulas: more comm cores move the comm-only time,
// and the compute-only time does not depend on the rank count (no
// communication), while the comm-only time does.
TEST(OverlapCard, SidesComeFromRuns) {
  JsonDoc a, b;
  ASSERT_TRUE(
      RunJson({"run", "--algo", "gemm_allreduce", "--ranks", "2", "--size", "512", "--json"}, &a));
  ASSERT_TRUE(
      RunJson({"run", "--algo", "gemm_allreduce", "--ranks", "8", "--size", "512", "--json"}, &b));
  EXPECT_EQ(a["overlap"]["compute_only_ps"].Int(), b["overlap"]["compute_only_ps"].Int());
  EXPECT_NE(a["overlap"]["comm_only_ps"].Int(), b["overlap"]["comm_only_ps"].Int());
}

// Every fused registry row has the card, with TFLOPS from the run's own
// M, K, N (allgather_gemm: every rank computes all P slices); the GEMM
// alone has none.
TEST(OverlapCard, AllgatherGemmHasOneFromItsShapeAndGemmHasNone) {
  JsonDoc d, g;
  ASSERT_TRUE(RunJson({"run", "--algo", "allgather_gemm", "--ranks", "4", "--m", "256", "--k",
                       "512", "--n", "256", "--compute-cores", "2", "--comm-cores", "2", "--json"},
                      &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  JsonView o = d["overlap"];
  EXPECT_GT(o["compute_only_ps"].Int(), 0);
  EXPECT_GT(o["comm_only_ps"].Int(), 0);
  EXPECT_GE(o["pipelined_ps"].Int(), std::max(o["compute_only_ps"].Int(), o["comm_only_ps"].Int()));
  EXPECT_DOUBLE_EQ(o["flops"].Num(), 2.0 * (4 * 256) * 512 * 256 * 4);
  ASSERT_TRUE(RunJson({"run", "--algo", "gemm", "--ranks", "1", "--m", "128", "--json"}, &g));
  EXPECT_EQ(g["status"].Str(), "OK");
  EXPECT_TRUE(g["overlap"].is_null());
}

TEST(OverlapCard, TextShowsTheCardAndOtherCollectivesHaveNone) {
  CliResult r = RunCli({"run", "--algo", "gemm_allreduce", "-d", "0,1,2,3,4,5,6,7"});
  ASSERT_EQ(r.exit_code, 0) << r;
  EXPECT_EQ(r.out.find("OK"), r.out.find('\n') + 1) << r;
  for (const char *row : {"overlap card", "compute-only", "comm-only", "sequential", "pipelined",
                          "exposed communication", "overlap efficiency", "TFLOPS"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row;
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--algo", "allreduce_mesh", "--ranks", "2", "--json"}, &d));
  EXPECT_TRUE(d["overlap"].is_null());
  CliResult m = RunCli({"run", "--algo", "allreduce_mesh", "--ranks", "2"});
  EXPECT_EQ(m.out.find("overlap card"), std::string::npos);
}

}  // namespace
}  // namespace a2test
