// Tests for trace-format expressions (docs/program-format.md, "Expressions"):
// precedence, truncating division, mathematical modulo, 64-bit range,
// conditions, and where evaluation errors point.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "trace_util.h"

namespace {

using a2test::FailsAt;
using a2test::Trace;

// The value of EXPR as the cycles of a compute on rank `rank` (int32 range).
int32_t Eval(const std::string &expr, uint32_t nranks = 4, uint32_t rank = 0) {
  Trace t("program rank " + std::to_string(rank) + "\n  compute " + expr + "\nend\n", nranks);
  EXPECT_TRUE(t.ok()) << expr << ": " << t.Message();
  if (!t.ok() || t.prog(rank).n != 1) return INT32_MIN;
  return t.prog(rank).v[0].value;
}

// A non-negative 64-bit value, through the `builtin ... size` field.
uint64_t Wide(const std::string &expr) {
  Trace t("builtin k size " + expr + "\n" + a2test::kWork, 2);
  EXPECT_TRUE(t.ok()) << expr << ": " << t.Message();
  return t.k().size_bytes;
}

// Whether COND holds, through an if/else in rank 0's program.
bool Holds(const std::string &cond, uint32_t nranks = 4) {
  Trace t("program rank 0\n  if " + cond + "\n    compute 1\n  else\n    compute 0\n  end\nend\n",
          nranks);
  EXPECT_TRUE(t.ok()) << cond << ": " << t.Message();
  return t.ok() && t.prog(0).n == 1 && t.prog(0).v[0].value == 1;
}

TEST(TraceExprTest, UnaryMinusBindsTighterThanMultiplicativeThenAdditive) {
  EXPECT_EQ(Eval("2 + 3 * 4"), 14);
  EXPECT_EQ(Eval("(2 + 3) * 4"), 20);
  EXPECT_EQ(Eval("-2 * 3"), -6);
  EXPECT_EQ(Eval("2 * -3"), -6);
  EXPECT_EQ(Eval("- -3"), 3);
  EXPECT_EQ(Eval("1 - 2 * 3 + 4"), -1);
  EXPECT_EQ(Eval("7 % 3 * 2"), 2);
}

TEST(TraceExprTest, OperatorsOfOneLevelAssociateLeft) {
  EXPECT_EQ(Eval("10 - 4 - 3"), 3);
  EXPECT_EQ(Eval("100 / 10 / 5"), 2);
  EXPECT_EQ(Eval("2 * 3 % 4"), 2);
}

TEST(TraceExprTest, DivisionTruncatesTowardZero) {
  EXPECT_EQ(Eval("7 / 2"), 3);
  EXPECT_EQ(Eval("-7 / 2"), -3);
  EXPECT_EQ(Eval("7 / -2"), -3);
}

TEST(TraceExprTest, ModuloIsNonNegative) {
  EXPECT_EQ(Eval("(-1) % 4"), 3);
  EXPECT_EQ(Eval("-1 % 4"), 3);  // unary minus first
  EXPECT_EQ(Eval("-7 % 3"), 2);
  EXPECT_EQ(Eval("7 % 3"), 1);
  EXPECT_EQ(Eval("-8 % 4"), 0);
  EXPECT_EQ(Eval("7 % -3"), 1);  // in 0..|divisor|-1 for a negative divisor too
  EXPECT_EQ(Eval("-7 % -3"), 2);
  EXPECT_EQ(Eval("($rank - 1) % $nranks", 4, 0), 3);  // the ring's left neighbour
}

TEST(TraceExprTest, NumbersAreDecimalWith64BitRangeAndUnderscores) {
  EXPECT_EQ(Wide("1_048_576"), 1048576u);
  EXPECT_EQ(Wide("4_294_967_296 * 2"), 8589934592u);
  EXPECT_EQ(Wide("9223372036854775807"), 9223372036854775807u);
  EXPECT_EQ(Wide("007"), 7u);
}

TEST(TraceExprTest, PredefinedVariablesHoldTheProgramBeingBuilt) {
  EXPECT_EQ(Eval("$nranks", 3), 3);
  EXPECT_EQ(Eval("$rank", 4, 2), 2);
  EXPECT_EQ(Eval("$core"), 0);
  EXPECT_EQ(Eval("$ncores"), 1);
  EXPECT_EQ(Eval("$rank * 10 + $nranks", 8, 5), 58);
}

TEST(TraceExprTest, ComparisonsAndLogicFollowPrecedence) {
  EXPECT_TRUE(Holds("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3 && 1 == 1 && 1 != 2"));
  EXPECT_FALSE(Holds("2 < 1 || 1 > 2 || 1 != 1"));
  EXPECT_TRUE(Holds("1 == 1 || 1 == 2 && 1 == 2"));  // && before ||
  EXPECT_FALSE(Holds("(1 == 1 || 1 == 2) && 1 == 2"));
  EXPECT_TRUE(Holds("!(1 == 2)"));
  EXPECT_TRUE(Holds("!1 == 2"));  // ! applies to the comparison
  EXPECT_TRUE(Holds("1 + 1 == 2 * 1"));
  EXPECT_TRUE(Holds("-1 < 0"));
}

TEST(TraceExprTest, AndOrShortCircuit) {
  // rank 0 would divide by zero if the right side ran
  EXPECT_FALSE(Holds("$rank != 0 && 8 / $rank > 1"));
  EXPECT_TRUE(Holds("$rank == 0 || 8 / $rank > 1"));
}

TEST(TraceExprTest, DivisionByZeroIsAnErrorAtTheOperator) {
  EXPECT_TRUE(
      FailsAt("program\n  compute 1 / ($rank - $rank)\nend\n", 2, 2, 13, "division by zero"));
  EXPECT_TRUE(FailsAt("let z = 0\nlet m = 5 % $z\n", 2, 2, 11, "modulo by zero"));
  // only the ranks that reach it fail: rank 1 divides by 1 - 1
  EXPECT_TRUE(
      FailsAt("program rank 1\n  compute 4 / ($rank - 1)\nend\n", 2, 2, 13, "division by zero"));
}

TEST(TraceExprTest, OverflowIsAnErrorAtTheOperator) {
  EXPECT_TRUE(FailsAt("let a = 9223372036854775807 + 1\n", 2, 1, 29, "integer overflow in '+'"));
  EXPECT_TRUE(
      FailsAt("let a = 4_000_000_000 * 4_000_000_000\n", 2, 1, 23, "integer overflow in '*'"));
  EXPECT_TRUE(FailsAt("let a = -9223372036854775807 - 2\n", 2, 1, 30, "integer overflow in '-'"));
  EXPECT_TRUE(FailsAt("let m = -9223372036854775807 - 1\nlet a = $m / -1\n", 2, 2, 12,
                      "integer overflow in '/'"));
  EXPECT_TRUE(FailsAt("let m = -9223372036854775807 - 1\nlet a = -$m\n", 2, 2, 9,
                      "integer overflow in '-'"));
  EXPECT_TRUE(FailsAt("let a = 9223372036854775808\n", 2, 1, 9, "larger than"));
}

TEST(TraceExprTest, ModuloOfTheSmallestNumberByMinusOneIsZero) {
  Trace t(
      "let m = -9223372036854775807 - 1\nbuiltin k size 5 + $m % -1\n" + std::string(a2test::kWork),
      2);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.k().size_bytes, 5u);
}

TEST(TraceExprTest, UndefinedVariableIsAnErrorAtIt) {
  EXPECT_TRUE(FailsAt("program\n  compute 1 + $foo\nend\n", 2, 2, 15, "undefined variable $foo"));
  EXPECT_TRUE(FailsAt("tensor x fp32[$rank]\n", 2, 1, 15, "undefined variable $rank"));
  EXPECT_TRUE(FailsAt("program rank $rank\nend\n", 2, 1, 14, "undefined variable $rank"));
}

TEST(TraceExprTest, ComparisonsAreOnlyConditions) {
  EXPECT_TRUE(FailsAt("program\n  compute 1 < 2\nend\n", 2, 2, 11, "expected a number"));
  EXPECT_TRUE(FailsAt("program\n  if $rank\n  end\nend\n", 2, 2, 6, "expected a condition"));
  EXPECT_TRUE(FailsAt("program\n  if 1 < 2 < 3\n  end\nend\n", 2, 2, 12, "cannot be chained"));
  EXPECT_TRUE(FailsAt("program\n  compute (1 < 2) + 1\nend\n", 2, 2, 11, "'+' needs a number"));
  EXPECT_TRUE(
      FailsAt("program\n  if 1 && 1 == 1\n  end\nend\n", 2, 2, 6, "'&&' needs a comparison"));
  EXPECT_TRUE(FailsAt("program\n  if !$rank\n  end\nend\n", 2, 2, 7, "'!' needs a comparison"));
}

TEST(TraceExprTest, MalformedExpressionsNameWhatWasExpected) {
  EXPECT_TRUE(FailsAt("program\n  compute (1 + 2\nend\n", 2, 2, 17, "expected ')'"));
  EXPECT_TRUE(FailsAt("program\n  compute 1 +\nend\n", 2, 2, 14, "expected a number"));
  EXPECT_TRUE(FailsAt("program\n  compute rank\nend\n", 2, 2, 11, "written $rank"));
  EXPECT_TRUE(FailsAt("program\n  compute 1 & & 2\nend\n", 2, 2, 15, "expected a number"));
  EXPECT_TRUE(FailsAt("program\n  compute $\nend\n", 2, 2, 11, "variable name after '$'"));
}

TEST(TraceExprTest, ValuesMustFitTheirField) {
  EXPECT_TRUE(FailsAt("program\n  compute 2147483648\nend\n", 2, 2, 11, "cycles 2147483648"));
  EXPECT_TRUE(FailsAt("seed -1\n", 2, 1, 6, "seed -1 is negative"));
  EXPECT_TRUE(FailsAt("seed 4294967296\n", 2, 1, 6, "seed 4294967296 is outside"));
}

}  // namespace
