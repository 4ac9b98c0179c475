// HCCL's algorithm catalogue (docs/collectives.md): every catalogue
// built-in runs OK with its measured traffic and rounds equal to its card
// for every rank at P = 2..9 and 16, on the A2 server and the A2 cluster
// (8-NPU servers over a switch); the hand-written RHD trace reports exactly
// what the built-in reports; gen's file of it does too at odd P, and so do
// gen's files of NHR and Star.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ladder.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const char *const kCatalogue[] = {"allreduce_rhd", "allreduce_nhr", "all_to_all_pairwise",
                                  "broadcast_star"};
const uint32_t kRanks[] = {2, 3, 4, 5, 6, 7, 8, 9, 16};

struct Point {
  std::string algo;
  uint32_t P;
  bool cluster;
};

std::vector<Point> Points() {
  std::vector<Point> v;
  for (const char *a : kCatalogue)
    for (uint32_t P : kRanks)
      for (bool cluster : {false, true})
        if (cluster || P <= 8) v.push_back({a, P, cluster});  // the server has 8 NPUs
  return v;
}

std::vector<std::string> ConfigFlags(const Point &p) {
  if (!p.cluster) return {};
  return {"--config", std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml", "--set",
          "interconnect.ranks=" + std::to_string(p.P)};
}

class Catalogue : public ::testing::TestWithParam<Point> {};

TEST_P(Catalogue, MeasuredTrafficEqualsTheCardOnEveryRank) {
  const Point &c = GetParam();
  const Ladder &l = Find(c.algo);
  ASSERT_NE(l.algo, nullptr);
  uint64_t N = 48 * 1024;  // a multiple of 4 * 16, one piece
  if (!Divisible(l, c.P, N)) N -= N % (l.multiple_per_rank * c.P);  // NHR: P slices
  JsonDoc d;
  ASSERT_TRUE(RunJson(Args(RunArgs(c.algo, c.P, N), ConfigFlags(c)), &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  uint64_t want = 0, want_write = 0;
  for (uint32_t r = 0; r < c.P; r++) {
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(d["per_rank"][r]["remote_read_bytes"].Int(), (long long)l.read(c.P, N, r, 0));
    EXPECT_EQ(d["per_rank"][r]["remote_write_bytes"].Int(), (long long)l.write(c.P, N, r, 0));
    want = std::max(want, l.read(c.P, N, r, 0));
    want_write = std::max(want_write, l.write(c.P, N, r, 0));
  }
  EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].Num(), (double)want);
  EXPECT_EQ(d["analytic"]["remote_write_bytes_per_rank"].Num(), (double)want_write);
  EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), (long long)l.rounds(c.P));
  EXPECT_EQ(d["analytic"]["barrier_rounds"].Int(), (long long)l.rounds(c.P));
}

INSTANTIATE_TEST_SUITE_P(Hccl, Catalogue, ::testing::ValuesIn(Points()),
                         [](const ::testing::TestParamInfo<Point> &info) {
                           return info.param.algo + "_P" + std::to_string(info.param.P) +
                                  (info.param.cluster ? "_cluster" : "_server");
                         });

// The hand-written trace, at odd and even P, one piece and several (the
// last partial), reports number for number what the built-in reports.
TEST(RhdByHand, TraceReportsLikeTheBuiltIn) {
  const std::string file = std::string(A2_SOURCE_DIR) + "/traces/examples/allreduce_rhd.a2t";
  for (uint32_t P : {1u, 2u, 3u, 5u, 6u, 8u})
    for (uint64_t n : {4096ull, 40960ull}) {
      SCOPED_TRACE("P=" + std::to_string(P) + " n=" + std::to_string(n));
      JsonDoc built_in, traced;
      ASSERT_TRUE(RunJson(RunArgs("allreduce_rhd", P, 4 * n), &built_in));
      ASSERT_TRUE(RunJson({"run", "--trace-file", file, "--ranks", std::to_string(P), "--param",
                           "n=" + std::to_string(n)},
                          &traced));
      EXPECT_EQ(traced["status"].Str(), "OK");
      EXPECT_EQ(traced["algo"].Str(), "allreduce_rhd");
      EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
    }
}

TEST(RhdByHand, AssertsRefuseWhatTheAlgorithmCannotRun) {
  const std::string file = std::string(A2_SOURCE_DIR) + "/traces/examples/allreduce_rhd.a2t";
  EXPECT_TRUE(RunFailsWithUsage({"run", "--trace-file", file, "--ranks", "5", "--param", "n=4098"},
                                {"allreduce_rhd.a2t:",
                                 "assert failed: n must be a positive "
                                 "multiple of 2^floor(log2 P) elements"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--trace-file", file, "--ranks", "4", "--param", "n=0"},
                                {"allreduce_rhd.a2t:24:1: error: assert failed: n must be"}));
}

TEST(RhdByHand, GenOfTheBuiltInReportsLikeTheBuiltInAtOddP) {
  for (uint32_t P : {3u, 5u, 7u}) {
    SCOPED_TRACE("P=" + std::to_string(P));
    TempDir dir;
    std::string file = dir.path() + "/rhd.a2t";
    CliResult g = RunCli({"gen", "--algo", "allreduce_rhd", "--ranks", std::to_string(P), "--size",
                          "163840", "-o", file});
    ASSERT_EQ(g.exit_code, 0) << g;
    JsonDoc built_in, traced;
    ASSERT_TRUE(RunJson(RunArgs("allreduce_rhd", P, 163840), &built_in));
    ASSERT_TRUE(RunJson({"run", "--trace-file", file, "--ranks", std::to_string(P)}, &traced));
    EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
  }
}

// gen writes NHR and Star in the trace format; running the file reports
// number for number what the built-in reports, at odd and even P.
TEST(CatalogueGen, NhrAndStarFilesReportLikeTheBuiltIns) {
  for (const char *algo : {"allreduce_nhr", "broadcast_star"})
    for (uint32_t P : {3u, 4u, 5u, 7u}) {
      SCOPED_TRACE(std::string(algo) + " P=" + std::to_string(P));
      const std::string size = std::to_string(4096 * P), root = std::to_string(P - 1);
      TempDir dir;
      std::string file = dir.path() + "/gen.a2t";
      CliResult g = RunCli({"gen", "--algo", algo, "--ranks", std::to_string(P), "--size", size,
                            "--root", root, "-o", file});
      ASSERT_EQ(g.exit_code, 0) << g;
      JsonDoc built_in, traced;
      ASSERT_TRUE(RunJson(RunArgs(algo, P, 4096 * P, {"--root", root}), &built_in));
      ASSERT_TRUE(RunJson({"run", "--trace-file", file, "--ranks", std::to_string(P)}, &traced));
      EXPECT_EQ(traced["status"].Str(), "OK");
      EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
    }
}

}  // namespace
}  // namespace a2test
