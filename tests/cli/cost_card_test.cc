// End-to-end: the measured cost card of each all-reduce matches its
// analytic card exactly (remote read bytes per rank, barrier rounds), for
// every rank, at P in {2,3,4,8} and N in {256 B, 64 KiB, 1 MiB}; and the
// two-phase algorithm refuses a slice it cannot cut into P whole chunks.
#include <cstdint>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct Shape {
  uint32_t P;
  uint64_t N;
};

// Names the parameter in test listings (instead of the object's raw bytes).
void PrintTo(const Shape &s, std::ostream *os) {
  *os << "P=" << s.P << " N=" << s.N;
}

const uint32_t kRanks[] = {2, 3, 4, 8};
const uint64_t kSizes[] = {256, 65536, 1048576};

// Every (P, N) for which keep(P, N) holds.
std::vector<Shape> Shapes(bool (*keep)(uint32_t, uint64_t)) {
  std::vector<Shape> v;
  for (uint32_t P : kRanks)
    for (uint64_t N : kSizes)
      if (keep(P, N)) v.push_back({P, N});
  return v;
}

bool Any(uint32_t, uint64_t) {
  return true;
}
bool TwoPhaseDivisible(uint32_t P, uint64_t N) {
  return N % (4ull * P) == 0;
}
bool TwoPhaseIndivisible(uint32_t P, uint64_t N) {
  return !TwoPhaseDivisible(P, N);
}

std::string ShapeName(const ::testing::TestParamInfo<Shape> &info) {
  return "P" + std::to_string(info.param.P) + "_N" + std::to_string(info.param.N);
}

std::vector<std::string> RunArgs(const char *algo, const Shape &s) {
  return {"run", "--algo", algo, "--ranks", std::to_string(s.P), "--size", std::to_string(s.N)};
}

// The checks shared by both algorithms: a passing run whose every rank read
// exactly `read` remote bytes and joined `rounds` barrier rounds, and whose
// analytic card and ratio say the same.
void ExpectCard(const JsonDoc &d, const Shape &s, const char *algo, uint64_t read,
                uint64_t rounds) {
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["algo"].Str(), algo);
  EXPECT_EQ(d["ranks"].Int(), (long long)s.P);
  EXPECT_EQ(d["size_bytes"].Int(), (long long)s.N);
  EXPECT_TRUE(d["check"]["checked"].Bool());
  EXPECT_EQ(d["check"]["elements"].Int(), (long long)(s.N / 4 * s.P));  // fp32 elements, all ranks
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);

  EXPECT_EQ(d["measured"]["remote_read_bytes_per_rank"].Int(), (long long)read);
  EXPECT_EQ(d["measured"]["barrier_rounds"].Int(), (long long)rounds);
  EXPECT_EQ(d["measured"]["remote_write_bytes_per_rank"].Int(), 0);

  JsonView per_rank = d["per_rank"];
  ASSERT_EQ(per_rank.Size(), (size_t)s.P);
  for (uint32_t i = 0; i < s.P; i++) {
    SCOPED_TRACE("rank " + std::to_string(i));
    EXPECT_EQ(per_rank[i]["rank"].Int(), (long long)i);
    EXPECT_EQ(per_rank[i]["remote_read_bytes"].Int(), (long long)read);
    EXPECT_EQ(per_rank[i]["barrier_rounds"].Int(), (long long)rounds);
  }

  // The analytic card is printed with 3 decimals; it is a whole number here.
  EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].Num(), (double)read);
  EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].NumText(), std::to_string(read) + ".000");
  EXPECT_EQ(d["analytic"]["barrier_rounds"].Int(), (long long)rounds);
  EXPECT_EQ(d["ratio"]["remote_read_bytes_per_rank"].Num(), 1.0);
  EXPECT_EQ(d["ratio"]["barrier_rounds"].Num(), 1.0);
}

// ---- allreduce_mesh: (P-1)*N per rank, one barrier round ----

class CliMeshCostCard : public ::testing::TestWithParam<Shape> {};

TEST_P(CliMeshCostCard, EveryRankReadsEachPeerSliceOnceInOneBarrierRound) {
  const Shape s = GetParam();
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs("allreduce_mesh", s), &d));
  ExpectCard(d, s, "allreduce_mesh", (uint64_t)(s.P - 1) * s.N, 1);
}

INSTANTIATE_TEST_SUITE_P(AllShapes, CliMeshCostCard, ::testing::ValuesIn(Shapes(Any)), ShapeName);

// ---- allreduce_two_phase: 2*(P-1)/P*N per rank, two barrier rounds ----

class CliTwoPhaseCostCard : public ::testing::TestWithParam<Shape> {};

TEST_P(CliTwoPhaseCostCard, EveryRankReadsTwoPMinusOneChunksInTwoBarrierRounds) {
  const Shape s = GetParam();
  ASSERT_EQ(s.N % (4ull * s.P), 0u);
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs("allreduce_two_phase", s), &d));
  // (P-1) chunks of N/P in the reduce-scatter and again in the all-gather.
  ExpectCard(d, s, "allreduce_two_phase", 2ull * (s.P - 1) * s.N / s.P, 2);
}

INSTANTIATE_TEST_SUITE_P(DivisibleShapes, CliTwoPhaseCostCard,
                         ::testing::ValuesIn(Shapes(TwoPhaseDivisible)), ShapeName);

class CliTwoPhaseIndivisible : public ::testing::TestWithParam<Shape> {};

TEST_P(CliTwoPhaseIndivisible, RefusesSliceNotMultipleOfFourTimesP) {
  const Shape s = GetParam();
  ASSERT_NE(s.N % (4ull * s.P), 0u);
  // The message names the size, the rule and the multiple (4*P bytes).
  EXPECT_TRUE(RunFailsWithUsage(
      RunArgs("allreduce_two_phase", s),
      {"--size", std::to_string(s.N) + " bytes", "multiple", std::to_string(4 * s.P) + " bytes"}));
}

INSTANTIATE_TEST_SUITE_P(IndivisibleShapes, CliTwoPhaseIndivisible,
                         ::testing::ValuesIn(Shapes(TwoPhaseIndivisible)), ShapeName);

// The shapes above must include both kinds for two-phase (P=3 is the
// indivisible one), or the suites above would silently shrink.
TEST(CliCostCardShapes, TwoPhaseCoversDivisibleAndIndivisibleSizes) {
  EXPECT_EQ(Shapes(TwoPhaseDivisible).size(), 9u);
  EXPECT_EQ(Shapes(TwoPhaseIndivisible).size(), 3u);
  for (const Shape &s : Shapes(TwoPhaseIndivisible)) EXPECT_EQ(s.P, 3u);
}

// ---- a trace without a card: no analytic figure is claimed ----

// The copy of traces/examples/remote_copy.a2t without its `card` line (and no
// `builtin` line): the card's cells are '-' in text, its keys absent in JSON,
// while the measured figures are still there. Pins a past failure: such a
// run printed an analytic 0 and a ratio of `inf` (JSON `0.000` / `null`).
const char kNoCardTrace[] =
    "ranks 2\nwindow src fp32[1024]\nwindow dst fp32[1024]\ntile t fp32[1024]\n"
    "program rank 0\n  remote_load t, src@1[0:1024]\n  store t, dst[0:1024]\nend\n";

TEST(CliNoCard, TextPrintsADashForEveryAnalyticFigureAndRatio) {
  TempDir dir;
  CliResult r = RunCli({"run", "--program", dir.Write("copy.a2t", kNoCardTrace), "--ranks", "2"});
  ASSERT_EQ(r.exit_code, 0) << r;
  const std::regex row(R"(\n  remote read bytes +4096 +- +-\n  remote write bytes +0 +- +-\n)"
                       R"(  barrier rounds +0 +- +-\n)");
  EXPECT_TRUE(std::regex_search(r.out, row))
      << "expected '-' in the analytic and ratio columns" << r;
  EXPECT_EQ(r.out.find("inf"), std::string::npos) << r;
}

TEST(CliNoCard, JsonLeavesTheCardKeysOut) {
  TempDir dir;
  JsonDoc d;
  ASSERT_TRUE(
      RunJson({"run", "--program", dir.Write("copy.a2t", kNoCardTrace), "--ranks", "2"}, &d));
  EXPECT_EQ(d["measured"]["remote_read_bytes_per_rank"].Int(), 4096);
  for (const char *group : {"analytic", "ratio"}) {
    yajl_val o = d[group].raw();
    ASSERT_TRUE(o && YAJL_IS_OBJECT(o)) << group;
    std::string keys;
    for (size_t i = 0; i < o->u.object.len; i++)
      keys += std::string(i ? "," : "") + o->u.object.keys[i];
    EXPECT_EQ(keys, group == std::string("analytic") ? "time_ps" : "time")
        << group << ": only the closed-form time (null: none applies)";
  }
  EXPECT_TRUE(d["analytic"]["time_ps"].is_null());
  EXPECT_TRUE(d["ratio"]["time"].is_null());
}

}  // namespace
}  // namespace a2test
