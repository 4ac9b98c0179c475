// Tests for the program format's bitwise operators, min / max / log2, loops
// with a step and assert (docs/program-format.md, "Expressions", "Programs").
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "trace_util.h"

namespace {

using a2test::FailsAt;
using a2test::Trace;

int32_t Eval(const std::string &expr, uint32_t nranks = 4, uint32_t rank = 0) {
  Trace t("program rank " + std::to_string(rank) + "\n  compute " + expr + "\nend\n", nranks);
  EXPECT_TRUE(t.ok()) << expr << ": " << t.Message();
  if (!t.ok() || t.prog(rank).n != 1) return INT32_MIN;
  return t.prog(rank).v[0].value;
}

// The values of a loop's variable, as the cycles of one compute each.
std::vector<int32_t> Loop(const std::string &head) {
  Trace t("program rank 0\n  " + head + "\n    compute $i\n  end\n  compute 7777\nend\n", 2);
  EXPECT_TRUE(t.ok()) << head << ": " << t.Message();
  std::vector<int32_t> v;
  for (uint32_t i = 0; t.ok() && i + 1 < t.prog(0).n; i++) v.push_back(t.prog(0).v[i].value);
  return v;
}

TEST(TraceBitwiseTest, XorAndOrShiftCompute) {
  EXPECT_EQ(Eval("5 ^ 3"), 6);
  EXPECT_EQ(Eval("6 & 3"), 2);
  EXPECT_EQ(Eval("4 | 1"), 5);
  EXPECT_EQ(Eval("1 << 10"), 1024);
  EXPECT_EQ(Eval("1024 >> 3"), 128);
  EXPECT_EQ(Eval("-8 >> 1"), -4);
  EXPECT_EQ(Eval("-7 >> 1"), -4);  // arithmetic: toward minus infinity
  EXPECT_EQ(Eval("$rank ^ 1", 4, 2), 3);
}

TEST(TraceBitwiseTest, PrecedenceIsShiftThenAndThenXorThenOrBelowArithmetic) {
  EXPECT_EQ(Eval("1 << 2 + 1"), 8);     // + binds tighter than <<
  EXPECT_EQ(Eval("1 | 2 ^ 3 & 1"), 3);  // 1 | (2 ^ (3 & 1))
  EXPECT_EQ(Eval("6 & 3 << 1"), 6);     // 6 & (3 << 1)
  EXPECT_EQ(Eval("(5 ^ 1) * 2"), 8);
  Trace t("program rank 0\n  if $rank & 1 == 0\n    compute 1\n  end\nend\n", 2);
  ASSERT_TRUE(t.ok()) << t.Message();  // ($rank & 1) == 0
  EXPECT_EQ(t.prog(0).n, 1u);
}

TEST(TraceBitwiseTest, MinMaxLog2) {
  EXPECT_EQ(Eval("min(3, -2)"), -2);
  EXPECT_EQ(Eval("max(3, -2)"), 3);
  EXPECT_EQ(Eval("max(min(9, 4), 1 + 1) * 2"), 8);
  EXPECT_EQ(Eval("log2(1)"), 0);
  EXPECT_EQ(Eval("log2(1024)"), 10);
  EXPECT_EQ(Eval("log2($nranks)", 8), 3);
  EXPECT_EQ(Eval("1 << log2(64)"), 64);
}

TEST(TraceBitwiseTest, ErrorsPointAtTheOperator) {
  EXPECT_TRUE(FailsAt("program\n  compute log2(6)\nend\n", 2, 2, 11, "log2 of 6: not a power"));
  EXPECT_TRUE(FailsAt("program\n  compute log2(0)\nend\n", 2, 2, 11, "not a power of two"));
  EXPECT_TRUE(FailsAt("program\n  compute 1 << 64\nend\n", 2, 2, 13, "shift by 64"));
  EXPECT_TRUE(FailsAt("program\n  compute 1 >> -1\nend\n", 2, 2, 13, "shift by -1"));
  EXPECT_TRUE(FailsAt("let a = 1 << 63\n", 2, 1, 11, "integer overflow in '<<'"));
  EXPECT_TRUE(FailsAt("program\n  compute min(1)\nend\n", 2, 2, 16, "','"));
  EXPECT_TRUE(FailsAt("program\n  compute max 1\nend\n", 2, 2, 15, "'(' after 'max'"));
  EXPECT_TRUE(FailsAt("program\n  compute log2(1 < 2)\nend\n", 2, 2, 16, "needs a number"));
  EXPECT_TRUE(FailsAt("program\n  compute (1 < 2) ^ 1\nend\n", 2, 2, 11, "'^' needs a number"));
}

TEST(TraceLoopStepTest, StepsUpAndDown) {
  EXPECT_EQ(Loop("for i in 0 .. 10 step 3"), (std::vector<int32_t>{0, 3, 6, 9}));
  EXPECT_EQ(Loop("for i in 0 .. 9 step 3"), (std::vector<int32_t>{0, 3, 6}));
  EXPECT_EQ(Loop("for i in 1 .. 2 step 100"), (std::vector<int32_t>{1}));
}

TEST(TraceLoopStepTest, NegativeStepsAndEmptyRanges) {
  EXPECT_EQ(Loop("for i in 8 .. 0 step -3"), (std::vector<int32_t>{8, 5, 2}));
  EXPECT_EQ(Loop("for i in 0 .. 8 step -1"), std::vector<int32_t>{});
  EXPECT_EQ(Loop("for i in 8 .. 0 step 1"), std::vector<int32_t>{});
  // a doubling loop, as recursive halving-doubling writes its rounds
  EXPECT_EQ(Loop("for i in 0 .. log2(16) step 1"), (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(TraceLoopStepTest, StepZeroAndMalformedStepsAreErrors) {
  EXPECT_TRUE(FailsAt("program\n  for i in 0 .. 4 step 2 - 2\n  end\nend\n", 2, 2, 24, "step 0"));
  EXPECT_TRUE(FailsAt("program\n  for i in 0 .. 4 stride 2\n  end\nend\n", 2, 2, 19,
                      "end of line after the loop bounds (or 'step EXPR')"));
  EXPECT_TRUE(
      FailsAt("program\n  for i in 0 .. 4 step\n  end\nend\n", 2, 2, 23, "expected a number"));
  // a huge trip count is refused at the 'for', before any iteration runs
  EXPECT_TRUE(
      FailsAt("program\n  for i in 0 .. 9223372036854775807 step 2\n    compute 1\n  end\nend\n", 2,
              2, 3, "passes the expansion limit"));
}

TEST(TraceAssertTest, TrueAssertsRunFalseOnesRefuseWithTheMessageAndLine) {
  const std::string body =
      "assert $nranks & ($nranks - 1) == 0 \"P must be a power of two\"\n"
      "program\n  assert $rank < 8 \"at most 8 ranks here\"\n  compute 1\nend\n";
  Trace ok(body, 4);
  EXPECT_TRUE(ok.ok()) << ok.Message();
  EXPECT_TRUE(FailsAt(body, 6, 1, 1, "assert failed: P must be a power of two"));
  Trace big(body, 16);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.err().line, 3);
  EXPECT_NE(std::string(big.err().msg).find("assert failed: at most 8 ranks here (rank 8)"),
            std::string::npos)
      << big.Message();
}

TEST(TraceAssertTest, MalformedAssertsAreParseErrors) {
  EXPECT_TRUE(FailsAt("assert $nranks > 1\n", 2, 1, 19, "message in double quotes"));
  EXPECT_TRUE(FailsAt("assert $nranks \"x\"\n", 2, 1, 8, "expected a condition"));
  EXPECT_TRUE(FailsAt("assert $nranks > 1 \"open\n", 2, 1, 20, "unterminated string"));
  EXPECT_TRUE(FailsAt("assert 1 == 1 \"a\" 3\n", 2, 1, 19, "end of line after the message"));
  EXPECT_TRUE(FailsAt("program\n  asert 1 == 1 \"a\"\nend\n", 2, 2, 3, "did you mean 'assert'"));
}

}  // namespace
