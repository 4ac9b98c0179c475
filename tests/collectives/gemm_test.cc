// The GEMM built-ins with their shape and core flags: gemm passes its
// golden for several shapes and core counts and, at the gemm_ar shape, takes
// exactly the time of traces/fidelity/gemm_ar_compute.a2t (the same tiling,
// shared with gemm_allreduce); gemm_allreduce runs any --m/--k/--n and
// --compute-cores / --comm-cores; allgather_gemm passes its golden race free
// with its card; bad flags are refused naming the flag.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collectives/collective.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct Shape {
  std::string algo;
  uint32_t P, m, k, n, C, V;  // V = 0: no --comm-cores
};

std::vector<std::string> ShapeArgs(const Shape &s) {
  std::vector<std::string> a = {"run",
                                "--algo",
                                s.algo,
                                "--ranks",
                                std::to_string(s.P),
                                "--m",
                                std::to_string(s.m),
                                "--k",
                                std::to_string(s.k),
                                "--n",
                                std::to_string(s.n),
                                "--compute-cores",
                                std::to_string(s.C),
                                "--json"};
  if (s.V) a.insert(a.end() - 1, {"--comm-cores", std::to_string(s.V)});
  return a;
}

class GemmShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(GemmShapes, PassGoldenRaceFreeWithTheirCard) {
  const Shape s = GetParam();
  JsonDoc d;
  ASSERT_TRUE(RunJson(ShapeArgs(s), &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_TRUE(d["check"]["checked"].Bool());
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  uint64_t rows = s.algo == "allgather_gemm" ? (uint64_t)s.m * s.P : s.m;
  EXPECT_EQ(d["check"]["elements"].Int(), (long long)(rows * s.n * s.P));
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  a2_coll_params p{};
  p.nranks = s.P;
  p.m = s.m, p.k = s.k, p.n = s.n, p.compute_cores = s.C, p.comm_cores = s.V, p.cores = 1;
  const a2_collective *c = a2_collective_find(s.algo.c_str());
  a2_card card{};
  c->card(&p, &card);
  // gemm_allreduce's card is rank 0's (it owns the most tiles); the others
  // send the same slice to every peer
  for (size_t r = 0; r < (s.algo == "gemm_allreduce" ? 1u : s.P); r++)
    EXPECT_EQ(d["per_rank"][r]["remote_write_bytes"].Int(), (long long)card.remote_write_bytes)
        << r;
  EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), (long long)card.barrier_rounds);
  if (s.algo == "allgather_gemm") {  // the slice to every peer
    EXPECT_EQ(card.remote_write_bytes, (double)(s.P - 1) * s.m * s.k * 2);
  }
  if (s.algo == "gemm") {
    EXPECT_EQ(card.remote_write_bytes, 0);
  }
  EXPECT_DOUBLE_EQ(c->flops(&p), 2.0 * rows * s.k * s.n * s.P);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmShapes,
                         ::testing::Values(Shape{"gemm", 1, 128, 256, 256, 1, 0},
                                           Shape{"gemm", 2, 384, 512, 768, 3, 0},
                                           Shape{"gemm", 1, 256, 1024, 512, 5, 0},
                                           Shape{"gemm_allreduce", 2, 256, 512, 512, 3, 5},
                                           Shape{"gemm_allreduce", 4, 384, 256, 768, 4, 2},
                                           Shape{"gemm_allreduce", 3, 128, 768, 256, 2, 2},
                                           Shape{"allgather_gemm", 2, 128, 256, 256, 1, 1},
                                           Shape{"allgather_gemm", 4, 256, 512, 512, 3, 2},
                                           Shape{"allgather_gemm", 3, 384, 256, 768, 5, 4}),
                         [](const ::testing::TestParamInfo<Shape> &i) {
                           const Shape &s = i.param;
                           return s.algo + "_P" + std::to_string(s.P) + "_" + std::to_string(s.m) +
                                  "x" + std::to_string(s.k) + "x" + std::to_string(s.n) + "_C" +
                                  std::to_string(s.C) + "_V" + std::to_string(s.V);
                         });

// One tiling: the built-in emits the fidelity trace's instructions, so its
// time is the trace's to the picosecond (timing-only, the gemm_ar shape).
TEST(Gemm, TimesAsTheGemmArComputeTrace) {
  JsonDoc b, t;
  ASSERT_TRUE(RunJson({"run", "--algo", "gemm", "--ranks", "1", "--m", "5504", "--k", "6144", "--n",
                       "1536", "--compute-cores", "24", "--no-data", "--json"},
                      &b));
  ASSERT_TRUE(RunJson(
      {"run", "--program", std::string(A2_SOURCE_DIR) + "/traces/fidelity/gemm_ar_compute.a2t",
       "--ranks", "1", "--no-data", "--json"},
      &t));
  EXPECT_EQ(b["time_ps"].Int(), t["time_ps"].Int());
}

// --size stays M when --m is absent; K and N default to 256 and 512.
TEST(Gemm, SizeIsMWithoutM) {
  JsonDoc a, b;
  ASSERT_TRUE(RunJson({"run", "--algo", "gemm_allreduce", "--ranks", "2", "--size", "256",
                       "--cores", "2", "--json"},
                      &a));
  ASSERT_TRUE(RunJson({"run", "--algo", "gemm_allreduce", "--ranks", "2", "--m", "256", "--k",
                       "256", "--n", "512", "--compute-cores", "2", "--comm-cores", "2", "--json"},
                      &b));
  EXPECT_EQ(a["status"].Str(), "OK");
  EXPECT_EQ(a["time_ps"].Int(), b["time_ps"].Int());
}

TEST(Gemm, RefusesBadShapesAndCoresNamingTheFlag) {
  struct {
    std::string algo;
    std::vector<std::string> flags;
    const char *flag, *says;
  } bad[] = {
      {"gemm", {"--m", "100"}, "--m", "multiple of 128"},
      {"gemm", {"--m", "5416"}, "--m", "5504"},  // pads as gemm_ar does
      {"gemm_allreduce", {"--k", "64"}, "--k", "multiple of 256"},
      {"gemm_allreduce", {"--n", "1408"}, "--n", "1536"},
      {"allgather_gemm", {"--n", "0"}, "--n", ""},
      {"gemm_allreduce", {"--m", "256", "--size", "256"}, "--size", "--m"},
      {"gemm", {"--compute-cores", "25"}, "--compute-cores", "chip.cube_cores"},
      {"gemm_allreduce", {"--comm-cores", "49"}, "--comm-cores", "chip.vector_cores"},
      {"gemm", {"--comm-cores", "2"}, "--comm-cores", "no communication"},
      {"allreduce_mesh", {"--m", "128"}, "--m", "GEMM built-ins"},
      {"allreduce_ring", {"--compute-cores", "2"}, "--compute-cores", "GEMM built-ins"},
  };
  for (const auto &b : bad) {
    std::vector<std::string> a = {"run", "--algo", b.algo, "--ranks", "2"};
    a.insert(a.end(), b.flags.begin(), b.flags.end());
    CliResult r = RunCli(a);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_NE(r.err.find(b.flag), std::string::npos) << r;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << r;
  }
  CliResult t = RunCli({"run", "--program",
                        std::string(A2_SOURCE_DIR) + "/traces/fidelity/gemm_ar_compute.a2t",
                        "--ranks", "1", "--m", "256"});
  EXPECT_EQ(t.exit_code, 2) << t;
  EXPECT_NE(t.err.find("--m"), std::string::npos) << t;
}

}  // namespace
}  // namespace a2test
