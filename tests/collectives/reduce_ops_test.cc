// End-to-end: the reductions honour --op (max, min, prod besides sum) and
// every collective moves fp16 as well as fp32, checked element by element
// against the golden, with the same cost card in bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "builtins.h"
#include "tests/support/run_cli.h"

namespace a2test {
namespace {

struct OpCase {
  std::string algo, op, dtype;
};

void PrintTo(const OpCase &c, std::ostream *os) {
  *os << c.algo << " " << c.op << " " << c.dtype;
}

std::string OpCaseName(const ::testing::TestParamInfo<OpCase> &info) {
  return info.param.algo + "_" + info.param.op + "_" + info.param.dtype;
}

// Elements of the output the golden checks, per rank.
uint64_t OutElements(const std::string &algo, uint32_t P, uint64_t N, uint32_t elem) {
  if (algo.rfind("allgather", 0) == 0 || algo == "all_to_all" || algo == "all_to_all_pairwise" ||
      algo == "compose_bcast_allreduce_allgather")
    return P * N / elem;
  return N / elem;
}

// P = 4: fp16 prod of 4 inputs in [-8, 8) stays below fp16's 65504 (at P=8
// it overflows, which the fp64 golden does not model).
constexpr uint32_t kP = 4;
constexpr uint64_t kN = 61440;

std::vector<OpCase> ReductionCases() {
  std::vector<OpCase> v;
  for (const Builtin &l : AllCollectives())
    if (l.reduces)
      for (const char *op : {"sum", "max", "min", "prod"})
        for (const char *dt : {"fp32", "fp16"}) v.push_back({l.algo, op, dt});
  return v;
}

std::vector<OpCase> CopyCases() {
  std::vector<OpCase> v;
  for (const Builtin &l : AllCollectives())
    if (!l.reduces && std::string(l.algo) != "barrier") v.push_back({l.algo, "sum", "fp16"});
  return v;
}

class CollectiveOp : public ::testing::TestWithParam<OpCase> {};

TEST_P(CollectiveOp, MatchesTheGoldenWithTheSameCard) {
  const OpCase c = GetParam();
  const Builtin &l = Find(c.algo);
  const uint32_t elem = c.dtype == "fp16" ? 2 : 4;
  JsonDoc d;
  ASSERT_TRUE(
      RunJson(RunArgs(c.algo, kP, kN, {"--op", c.op, "--dtype", c.dtype, "--root", "1"}), &d));
  EXPECT_EQ(d["status"].Str(), "OK");
  EXPECT_EQ(d["dtype"].Str(), c.dtype);
  EXPECT_TRUE(d["check"]["checked"].Bool());
  EXPECT_EQ(d["check"]["elements"].Int(), (long long)(OutElements(c.algo, kP, kN, elem) * kP));
  EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
  uint64_t read = 0;
  for (uint32_t r = 0; r < kP; r++) read = std::max(read, l.read(kP, kN, r, 1));
  EXPECT_EQ(d["measured"]["remote_read_bytes_per_rank"].Int(), (long long)read);
  EXPECT_EQ(d["analytic"]["remote_read_bytes_per_rank"].Num(), (double)read);
}

INSTANTIATE_TEST_SUITE_P(Reductions, CollectiveOp, ::testing::ValuesIn(ReductionCases()),
                         OpCaseName);
INSTANTIATE_TEST_SUITE_P(Copies, CollectiveOp, ::testing::ValuesIn(CopyCases()), OpCaseName);

// An odd number of fp16 elements is whole elements for fp16 (2 bytes) but
// not for fp32: the element-size rule follows --dtype.
TEST(CollectiveDtype, ElementRuleFollowsTheDtype) {
  JsonDoc d;
  EXPECT_TRUE(RunJson(RunArgs("allreduce_mesh", 2, 258, {"--dtype", "fp16"}), &d));
  EXPECT_TRUE(RunFailsWithUsage(RunArgs("allreduce_mesh", 2, 258), {"--size", "258 bytes"}));
  // two-phase cuts N into P chunks of whole fp16 elements: 2*P bytes.
  EXPECT_TRUE(RunJson(RunArgs("allreduce_two_phase", 3, 6 * 100, {"--dtype", "fp16"}), &d));
  EXPECT_TRUE(RunFailsWithUsage(RunArgs("allreduce_two_phase", 3, 6 * 100 + 2, {"--dtype", "fp16"}),
                                {"--size", "multiple", "6 bytes"}));
}

}  // namespace
}  // namespace a2test
