// The fused GEMM + all-reduce built-in: it passes its gemm_allreduce golden
// (every rank holds the sum over ranks of A_q x B_q) race free for several
// P, sizes (M) and core counts, measures its analytic card, and refuses the
// parameters it cannot run naming the flag.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collectives/collective.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct GemmCase {
  uint32_t P, cores;
  uint64_t M;
};

class GemmAllreduce : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmAllreduce, PassesItsGoldenRaceFreeWithItsCard) {
  const GemmCase c = GetParam();
  JsonDoc d;
  ASSERT_TRUE(RunJson({"run", "--algo", "gemm_allreduce", "--ranks", std::to_string(c.P), "--size",
                       std::to_string(c.M), "--cores", std::to_string(c.cores), "--json"},
                      &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_TRUE(d["check"]["checked"].Bool());
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  // every rank's output: M x 512 elements
  EXPECT_EQ(d["check"]["elements"].Int(), (long long)(c.M * 512 * c.P));
  EXPECT_EQ(d["race_check"]["races"].Int(), 0);
  a2_coll_params p{};
  p.nranks = c.P;
  p.size_bytes = c.M;
  p.cores = c.cores;
  a2_card card{};
  a2_collective_find("gemm_allreduce")->card(&p, &card);
  EXPECT_EQ(d["per_rank"][(size_t)0]["remote_write_bytes"].Int(),
            (long long)card.remote_write_bytes);
  // rank 0 owns tiles 0, P, ...: every tile it does not own goes out once,
  // every tile it owns P-1 times (64 KiB tiles, 2 per 128 rows)
  uint64_t T = c.M / 64, own = (T + c.P - 1) / c.P;
  EXPECT_EQ(card.remote_write_bytes, (double)((T - own + own * (c.P - 1)) * 65536));
  EXPECT_EQ(d["per_rank"][(size_t)0]["remote_read_bytes"].Int(), 0);
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmAllreduce,
                         ::testing::Values(GemmCase{2, 1, 128}, GemmCase{3, 2, 384},
                                           GemmCase{4, 3, 256}, GemmCase{8, 1, 256},
                                           GemmCase{8, 5, 1024}),
                         [](const ::testing::TestParamInfo<GemmCase> &i) {
                           return "P" + std::to_string(i.param.P) + "_C" +
                                  std::to_string(i.param.cores) + "_M" + std::to_string(i.param.M);
                         });

TEST(GemmAllreduce, RefusesWhatItCannotRun) {
  struct {
    std::vector<std::string> flags;
    const char *flag;
  } bad[] = {{{"--size", "100"}, "--size"},
             {{"--size", "131072"}, "--size"},
             {{"--op", "max"}, "--op"},
             {{"--cores", "25"}, "--cores"},  // the chip's 24 cube cores
             {{"--cores", "49"}, "--cores"}};
  for (const auto &b : bad) {
    std::vector<std::string> a = {"run", "--algo", "gemm_allreduce", "--ranks", "2"};
    a.insert(a.end(), b.flags.begin(), b.flags.end());
    CliResult r = RunCli(a);
    EXPECT_EQ(r.exit_code, 2) << r;
    EXPECT_NE(r.err.find(b.flag), std::string::npos) << r;
  }
}

}  // namespace
}  // namespace a2test
