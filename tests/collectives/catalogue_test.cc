// HCCL's algorithm catalogue (docs/collectives.md): every catalogue
// built-in runs OK with its measured traffic and rounds equal to its card
// for every rank at P = 2..9 and 16, on the A2 server and the A2 cluster
// (8-NPU servers over a switch); the hand-written RHD trace reports exactly
// what the built-in reports; gen's file of it does too at odd P, and so do
// gen's files of NHR and Star. The hierarchical and NB rows: the same on
// the A2 server (one server) and on the A2 cluster cut into servers of G
// (interconnect.group_size), their cards written out here from
// docs/collectives.md; gen's files of them report like the built-ins.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "builtins.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

const char *const kCatalogue[] = {"allreduce_rhd",  "allreduce_nhr",        "all_to_all_pairwise",
                                  "broadcast_star", "allreduce_nb",         "reduce_scatter_nb",
                                  "allgather_nb",   "allreduce_double_ring"};
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
  const Builtin &l = Find(c.algo);
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
      ASSERT_TRUE(RunJson({"run", "--program", file, "--ranks", std::to_string(P), "--param",
                           "n=" + std::to_string(n)},
                          &traced));
      EXPECT_EQ(traced["status"].Str(), "OK");
      EXPECT_EQ(traced["algo"].Str(), "allreduce_rhd");
      EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
    }
}

TEST(RhdByHand, AssertsRefuseWhatTheAlgorithmCannotRun) {
  const std::string file = std::string(A2_SOURCE_DIR) + "/traces/examples/allreduce_rhd.a2t";
  EXPECT_TRUE(RunFailsWithUsage({"run", "--program", file, "--ranks", "5", "--param", "n=4098"},
                                {"allreduce_rhd.a2t:",
                                 "assert failed: n must be a positive "
                                 "multiple of 2^floor(log2 P) elements"}));
  EXPECT_TRUE(RunFailsWithUsage({"run", "--program", file, "--ranks", "4", "--param", "n=0"},
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
    ASSERT_TRUE(RunJson({"run", "--program", file, "--ranks", std::to_string(P)}, &traced));
    EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
  }
}

// ---- the hierarchical rows: M = P / G servers of G ranks ----

const char *const kHier[] = {
    "allreduce_hier_ring",      "allreduce_hier_rhd",      "allreduce_hier_nhr",
    "reduce_scatter_hier_ring", "reduce_scatter_hier_rhd", "reduce_scatter_hier_nhr",
    "allgather_hier_ring",      "allgather_hier_rhd",      "allgather_hier_nhr",
    "broadcast_hier_ring",      "broadcast_hier_rhd",      "broadcast_hier_nhr",
    "allreduce_pipeline",       "allgather_pipeline",      "reduce_scatter_pipeline"};

struct HierPoint {
  std::string algo;
  uint32_t P, G;
  bool cluster;
};

bool StartsWith(const std::string &s, const char *p) {
  return s.rfind(p, 0) == 0;
}
bool EndsWith(const std::string &s, const char *p) {
  std::string q = p;
  return s.size() >= q.size() && s.compare(s.size() - q.size(), q.size(), q) == 0;
}

// The server sizes on the cluster: several servers at every P (one rank a
// server at prime P); RHD between servers needs a power of two of them.
uint32_t ClusterGroup(const std::string &algo, uint32_t P) {
  bool rhd = EndsWith(algo, "_rhd");
  switch (P) {
  case 4: return 2;
  case 6: return rhd ? 3 : 2;
  case 8: return rhd ? 4 : 2;
  case 9: return rhd ? 9 : 3;
  case 16: return 4;
  default: return rhd && P > 2 ? P : 1;  // 2, 3, 5, 7: one rank a server
  }
}

std::vector<HierPoint> HierPoints() {
  std::vector<HierPoint> v;
  for (const char *a : kHier)
    for (uint32_t P : kRanks) {
      if (P <= 8) v.push_back({a, P, P, false});  // one server
      v.push_back({a, P, ClusterGroup(a, P), true});
    }
  v.push_back({"allreduce_hier_nhr", 16, 8, true});  // the cluster's own 8-NPU servers
  v.push_back({"allgather_hier_ring", 16, 8, true});
  return v;
}

uint64_t Steps(const std::string &algo, uint32_t n) {
  return EndsWith(algo, "_ring") || EndsWith(algo, "_pipeline") ? n - 1 : CeilLog2(n);
}

class HierCatalogue : public ::testing::TestWithParam<HierPoint> {};

TEST_P(HierCatalogue, MeasuredTrafficEqualsTheCardOnEveryRank) {
  const HierPoint &c = GetParam();
  uint32_t P = c.P, G = c.G, M = P / G, root = P - 1, s0 = root / G;
  bool ar = StartsWith(c.algo, "allreduce"), bc = StartsWith(c.algo, "broadcast");
  uint64_t unit = 4 * P * (c.algo == "allreduce_pipeline" ? 4 : 1);  // its 4 parts
  uint64_t N = ar || bc ? 48 * 1024 - 48 * 1024 % unit : 4096;
  uint64_t steps = Steps(c.algo, M), b = N / P, C = N / G, intra = G > 1;
  std::vector<std::string> flags = {"--root", std::to_string(root)};
  if (c.cluster)
    flags = {"--root",   std::to_string(root),
             "--config", std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml",
             "--set",    "interconnect.ranks=" + std::to_string(P),
             "--set",    "interconnect.group_size=" + std::to_string(G)};
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs(c.algo, P, N, flags), &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  uint64_t most = 0, rounds;
  for (uint32_t r = 0; r < P; r++) {
    uint64_t want;
    if (ar)
      want = 2 * (G - 1) * C + 2 * (M - 1) * b;
    else if (bc)
      want = (G - 1) * C + (M - 1) * b + (r == root ? 0 : r / G == s0 ? C : b);
    else  // reduce-scatter, all-gather
      want = (uint64_t)(M - 1) * G * N + (uint64_t)(G - 1) * N;
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(d["per_rank"][r]["remote_read_bytes"].Int(), (long long)want);
    EXPECT_EQ(d["per_rank"][r]["remote_write_bytes"].Int(), 0);
    most = std::max(most, want);
  }
  rounds = ar ? 2 * intra + 2 * steps : bc ? 1 + steps + intra : steps + intra;
  // the all-gather and reduce-scatter Pipelines: the busier of two cores,
  // the ring's M - 1 steps or the server's (a wait a step in the all-gather,
  // one barrier in the reduce-scatter)
  if (c.algo == "allgather_pipeline") rounds = intra ? M : M - 1;
  if (c.algo == "reduce_scatter_pipeline") rounds = std::max<uint64_t>(M - 1, intra);
  EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].Num(), (double)most);
  EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), (long long)rounds);
  EXPECT_EQ(d["analytic"]["barrier_rounds"].Int(), (long long)rounds);
  EXPECT_GT(d["hccl_cost"]["time_ps"].Num(), 0);
}

INSTANTIATE_TEST_SUITE_P(Hccl, HierCatalogue, ::testing::ValuesIn(HierPoints()),
                         [](const ::testing::TestParamInfo<HierPoint> &info) {
                           return info.param.algo + "_P" + std::to_string(info.param.P) + "_G" +
                                  std::to_string(info.param.G) +
                                  (info.param.cluster ? "_cluster" : "_server");
                         });

// --cores C: the hierarchical all-reduces run C parts of the slice at once
// across servers, the all-gathers and reduce-scatters C parts of every
// rank's block (odd blocks, so that parts are uneven, and at C = 8 of a
// 6-element block some empty): each rank's traffic, the card and every
// core's rounds those of one core, and faster than one core where every
// core has a part.
TEST(HierCatalogue, CoresRunPartsAtOnceAcrossServers) {
  const std::vector<std::string> cluster = {
      "--config", std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml",
      "--set",    "interconnect.ranks=16",
      "--set",    "interconnect.group_size=4"};
  struct Case {
    const char *algo;
    uint64_t N;
  };
  const Case cases[] = {
      {"allreduce_hier_ring", 1 << 20},        {"allreduce_hier_rhd", 1 << 20},
      {"allreduce_hier_nhr", 1 << 20},         {"allgather_hier_ring", 64 << 10},
      {"allgather_hier_rhd", (64 << 10) + 12}, {"allgather_hier_nhr", 24},
      {"reduce_scatter_hier_ring", 64 << 10},  {"reduce_scatter_hier_nhr", (64 << 10) + 12},
      {"reduce_scatter_hier_rhd", 24}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.algo) + " N=" + std::to_string(c.N));
    JsonDoc one;
    ASSERT_TRUE(RunJson(RunArgs(c.algo, 16, c.N, cluster), &one));
    for (const char *C : {"3", "8"}) {
      SCOPED_TRACE(std::string("--cores ") + C);
      std::vector<std::string> flags = cluster;
      flags.insert(flags.end(), {"--cores", C});
      JsonDoc d;
      ASSERT_TRUE(RunJson(RunArgs(c.algo, 16, c.N, flags), &d));
      EXPECT_EQ(d["status"].Str(), "OK");
      EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
      for (uint32_t r = 0; r < 16; r++)
        EXPECT_EQ(d["per_rank"][r]["remote_read_bytes"].Int(),
                  one["per_rank"][r]["remote_read_bytes"].Int());
      EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), one["measured"]["barrier_rounds"].Int());
      EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].Num(),
                one["analytic"]["remote_read_bytes_per_rank"].Num());
      if (c.N > 24) {
        EXPECT_LT(d["time_ps"].Num(), one["time_ps"].Num());
      }
    }
  }
}

// fp16 sums over 16 ranks round once per added term, in each algorithm's
// own order; the golden allows that rounding (docs/cli.md), so every order
// passes.
TEST(HierCatalogue, Fp16SumsOverSixteenRanksPassInEveryOrder) {
  const std::vector<std::string> flags = {
      "--config", std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml",
      "--set",    "interconnect.ranks=16",
      "--set",    "interconnect.group_size=4",
      "--dtype",  "fp16"};
  for (const char *algo :
       {"allreduce_ring", "allreduce_rhd", "allreduce_two_phase", "allreduce_hier_ring",
        "allreduce_pipeline", "reduce_scatter_pipeline"}) {
    SCOPED_TRACE(algo);
    JsonDoc d;
    ASSERT_TRUE(RunJson(RunArgs(algo, 16, 1 << 20, flags), &d));
    EXPECT_EQ(d["status"].Str(), "OK");
    EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  }
}

TEST(HierCatalogue, RefusesRanksThatAreNotWholeServers) {
  const std::string cfg = std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml";
  EXPECT_TRUE(RunFailsWithUsage(
      RunArgs("allreduce_hier_ring", 9, 9 * 64, {"--config", cfg, "--set", "interconnect.ranks=9"}),
      {"--ranks", "9 ranks are not whole servers of 8 ranks", "interconnect.group_size"}));
  EXPECT_TRUE(RunFailsWithUsage(RunArgs("allgather_hier_rhd", 6, 64,
                                        {"--config", cfg, "--set", "interconnect.ranks=6", "--set",
                                         "interconnect.group_size=2"}),
                                {"--ranks", "3 servers", "power of two"}));
}

// gen writes the hierarchical and NB rows; running the file under the same
// config reports number for number what the built-in reports, on one
// server and on servers of 2 of the cluster.
TEST(CatalogueGen, HierAndNbFilesReportLikeTheBuiltIns) {
  std::vector<std::string> algos(std::begin(kHier), std::end(kHier));
  for (const char *a : {"allreduce_nb", "reduce_scatter_nb", "allgather_nb"}) algos.push_back(a);
  const std::string cfg = std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml";
  for (const std::string &algo : algos)
    for (uint32_t P : {3u, 4u, 8u}) {
      SCOPED_TRACE(algo + " P=" + std::to_string(P));
      std::vector<std::string> flags = {"--root", std::to_string(P - 1)};
      if (P == 8)
        flags.insert(flags.end(), {"--config", cfg, "--set", "interconnect.ranks=8", "--set",
                                   "interconnect.group_size=2"});
      const std::string size = std::to_string(1024 * P);
      TempDir dir;
      std::string file = dir.path() + "/gen.a2t";
      std::vector<std::string> gen = {"gen",    "--algo", algo, "--ranks", std::to_string(P),
                                      "--size", size,     "-o", file};
      gen.insert(gen.end(), flags.begin(), flags.end());
      CliResult g = RunCli(gen);
      ASSERT_EQ(g.exit_code, 0) << g;
      JsonDoc built_in, traced;
      ASSERT_TRUE(RunJson(RunArgs(algo, P, 1024 * P, flags), &built_in));
      std::vector<std::string> run = {"run", "--program", file, "--ranks", std::to_string(P)};
      if (P == 8) run.insert(run.end(), flags.begin() + 2, flags.end());
      ASSERT_TRUE(RunJson(run, &traced));
      EXPECT_EQ(traced["status"].Str(), "OK");
      EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
    }
}

// ... and their multi-core forms: parts of every rank's block, one a core.
TEST(CatalogueGen, HierCoresFilesReportLikeTheBuiltIns) {
  const std::string cfg = std::string(A2_SOURCE_DIR) + "/configs/a2-cluster.yaml";
  for (const char *algo :
       {"allgather_hier_ring", "reduce_scatter_hier_rhd", "allreduce_hier_nhr"}) {
    SCOPED_TRACE(algo);
    const std::vector<std::string> flags = {
        "--config", cfg, "--set", "interconnect.ranks=8", "--set", "interconnect.group_size=2",
        "--cores",  "3"};
    const std::string size = "4000";
    TempDir dir;
    std::string file = dir.path() + "/gen.a2t";
    std::vector<std::string> gen = {"gen",    "--algo", algo, "--ranks", "8",
                                    "--size", size,     "-o", file};
    gen.insert(gen.end(), flags.begin(), flags.end());
    CliResult g = RunCli(gen);
    ASSERT_EQ(g.exit_code, 0) << g;
    JsonDoc built_in, traced;
    ASSERT_TRUE(RunJson(RunArgs(algo, 8, 4000, flags), &built_in));
    std::vector<std::string> run = {"run", "--program", file, "--ranks", "8"};
    run.insert(run.end(), flags.begin(), flags.end() - 2);
    ASSERT_TRUE(RunJson(run, &traced));
    EXPECT_EQ(traced["status"].Str(), "OK");
    EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
  }
}

// gen writes NHR and Star in the program format; running the file reports
// number for number what the built-in reports, at odd and even P.
TEST(CatalogueGen, NhrAndStarFilesReportLikeTheBuiltIns) {
  for (const char *algo : {"allreduce_nhr", "broadcast_star", "allreduce_double_ring"})
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
      ASSERT_TRUE(RunJson({"run", "--program", file, "--ranks", std::to_string(P)}, &traced));
      EXPECT_EQ(traced["status"].Str(), "OK");
      EXPECT_EQ(JsonScalars(traced.root()), JsonScalars(built_in.root()));
    }
}

}  // namespace
}  // namespace a2test
