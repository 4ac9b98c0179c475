// End-to-end: simulated time against the closed form (analytic.time_ps).
// With every resource but the links made effectively free, nothing
// contends and the simulator must agree with the closed form to 0.1%; on
// the default config contention is small (within 3%); past one chunk there
// is no closed form (null).
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct Case {
  const char *algo;
  uint32_t P;
  uint64_t N;
};

// Names the parameter in test listings (instead of the object's raw bytes).
void PrintTo(const Case &c, std::ostream *os) {
  *os << c.algo << " P=" << c.P << " N=" << c.N;
}

std::string CaseName(const ::testing::TestParamInfo<Case> &info) {
  std::string a = info.param.algo;
  std::string shortname = a == "allreduce_mesh"        ? "Mesh"
                          : a == "allreduce_two_phase" ? "TwoPhase"
                                                       : a;
  return shortname + "_P" + std::to_string(info.param.P) + "_N" + std::to_string(info.param.N);
}

std::vector<std::string> RunArgs(const Case &c) {
  return {"run", "--algo", c.algo, "--ranks", std::to_string(c.P), "--size", std::to_string(c.N)};
}

const char *const kAlgos[] = {"allreduce_mesh", "allreduce_two_phase"};

std::vector<Case> UncontendedCases() {
  std::vector<Case> v;
  for (const char *a : kAlgos) {
    for (uint32_t P : {2u, 4u, 8u})
      for (uint64_t N : {256u, 4096u, 65536u}) v.push_back({a, P, N});
    for (uint64_t N : {768u, 12288u}) v.push_back({a, 3, N});
  }
  return v;
}

std::vector<Case> DefaultConfigCases() {
  std::vector<Case> v;
  for (const char *a : kAlgos)
    for (uint32_t P : {2u, 4u, 8u})
      for (uint64_t N : {256u, 65536u}) v.push_back({a, P, N});
  return v;
}

// Runs c (plus extra flags) and checks |time_ps / analytic.time_ps - 1| <= tol.
void ExpectNearClosedForm(const Case &c, const std::vector<std::string> &extra, double tol) {
  JsonDoc d;
  ASSERT_TRUE(RunJson(Args(RunArgs(c), extra), &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_EQ(d["topology"].Str(), "full_mesh");
  JsonView analytic = d["analytic"]["time_ps"];
  ASSERT_FALSE(analytic.is_null()) << "no closed form for a one-chunk slice on a full mesh";
  const long long want = analytic.Int(), got = d["time_ps"].Int();
  ASSERT_GT(want, 0);
  ASSERT_GT(got, 0);
  const double rel = std::fabs((double)got - (double)want) / (double)want;
  EXPECT_LE(rel, tol) << "time_ps " << got << " vs closed form " << want << " (off by " << rel * 100
                      << "%)";
  // The reported ratio is the same comparison, rounded to 6 decimals.
  EXPECT_NEAR(d["ratio"]["time"].Num(), (double)got / (double)want, 1e-6);
}

class CliClosedFormUncontended : public ::testing::TestWithParam<Case> {};

TEST_P(CliClosedFormUncontended, SimulatedTimeWithinTenthOfAPercentOfClosedForm) {
  ExpectNearClosedForm(GetParam(), UncontendedFlags(), 0.001);
}

INSTANTIATE_TEST_SUITE_P(OneChunk, CliClosedFormUncontended,
                         ::testing::ValuesIn(UncontendedCases()), CaseName);

// Documents that contention in the default config (HBM, MTE and the vector
// pipe shared by the stages) costs little: the uncontended closed form is
// within 3% of the simulation.
class CliClosedFormDefaultConfig : public ::testing::TestWithParam<Case> {};

TEST_P(CliClosedFormDefaultConfig, SimulatedTimeWithinThreePercentOfClosedForm) {
  ExpectNearClosedForm(GetParam(), {}, 0.03);
}

INSTANTIATE_TEST_SUITE_P(OneChunk, CliClosedFormDefaultConfig,
                         ::testing::ValuesIn(DefaultConfigCases()), CaseName);

// The closed form covers one chunk (64 KiB with the default 192 KiB UB);
// beyond it analytic.time_ps and ratio.time are null, the run itself fine.
class CliClosedFormBeyondOneChunk : public ::testing::TestWithParam<Case> {};

TEST_P(CliClosedFormBeyondOneChunk, AnalyticTimeIsNull) {
  const Case c = GetParam();
  ASSERT_GT(c.N, 65536u);
  JsonDoc d;
  ASSERT_TRUE(RunJson(RunArgs(c), &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_GT(d["time_ps"].Int(), 0);
  EXPECT_TRUE(d["analytic"]["time_ps"].is_null());
  EXPECT_TRUE(d["ratio"]["time"].is_null());
}

INSTANTIATE_TEST_SUITE_P(MultiChunk, CliClosedFormBeyondOneChunk,
                         ::testing::Values(Case{"allreduce_mesh", 4, 65552},
                                           Case{"allreduce_mesh", 4, 131072},
                                           Case{"allreduce_mesh", 2, 1048576},
                                           Case{"allreduce_two_phase", 4, 65552},
                                           Case{"allreduce_two_phase", 4, 131072},
                                           Case{"allreduce_two_phase", 2, 1048576}),
                         CaseName);

// Also in the uncontended config: "no closed form" depends on the slice, not
// on whether the closed form would be accurate.
TEST(CliClosedForm, UncontendedMultiChunkRunHasNoClosedForm) {
  JsonDoc d;
  ASSERT_TRUE(RunJson(Args({"run", "--algo", "allreduce_mesh", "--ranks", "4", "--size", "128KiB"},
                           UncontendedFlags()),
                      &d));
  EXPECT_TRUE(d["ok"].Bool());
  EXPECT_TRUE(d["analytic"]["time_ps"].is_null());
}

// The closed form is for a full mesh only (collectives/collective.h).
TEST(CliClosedForm, NoClosedFormOnSwitchOrRing) {
  for (const char *topo : {"switch", "ring"}) {
    SCOPED_TRACE(topo);
    JsonDoc d;
    ASSERT_TRUE(RunJson({"run", "--algo", "allreduce_mesh", "--ranks", "4", "--size", "256",
                         "--set", std::string("interconnect.topology=") + topo},
                        &d));
    EXPECT_TRUE(d["ok"].Bool());
    EXPECT_EQ(d["topology"].Str(), topo);
    EXPECT_TRUE(d["analytic"]["time_ps"].is_null());
  }
}

}  // namespace
}  // namespace a2test
