// Tests for expanding a trace for a given P (docs/program-format.md,
// "Programs"): loops unroll, branches are taken per rank, `let` scoping,
// which (rank, core) programs a block fills, and each instruction's line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trace_util.h"

namespace {

using a2test::FailsAt;
using a2test::Trace;

// The compute cycles of one program, in order.
std::vector<int> Cycles(const a2_instrs &p) {
  std::vector<int> v;
  for (uint32_t i = 0; i < p.n; i++) v.push_back(p.v[i].value);
  return v;
}

TEST(TraceExpandTest, ForIsHalfOpenAndUnrolled) {
  Trace t(
      "program\n  for i in 2 .. 5\n    compute $i\n  end\n  for j in 3 .. 3\n    compute 99\n"
      "  end\n  for j in 5 .. 1\n    compute 98\n  end\nend\n",
      1);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(Cycles(t.prog(0)), (std::vector<int>{2, 3, 4}));
}

TEST(TraceExpandTest, NestedLoopsSeeOuterVariables) {
  Trace t(
      "program\n  for i in 0 .. 3\n    for j in $i .. 3\n      compute $i * 10 + $j\n"
      "    end\n  end\nend\n",
      1);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(Cycles(t.prog(0)), (std::vector<int>{0, 1, 2, 11, 12, 22}));
}

TEST(TraceExpandTest, IfElseTakesOneBranchPerRank) {
  Trace t(
      "program\n  if $rank == 0\n    compute 100\n  else\n    compute $rank\n  end\n"
      "  if $rank == 2\n    compute 7\n  end\nend\n",
      3);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(Cycles(t.prog(0)), (std::vector<int>{100}));
  EXPECT_EQ(Cycles(t.prog(1)), (std::vector<int>{1}));
  EXPECT_EQ(Cycles(t.prog(2)), (std::vector<int>{2, 7}));
}

TEST(TraceExpandTest, LetIsEvaluatedWhereItStandsAndScopedToItsBlock) {
  Trace t(
      "let base = 1000 * $nranks\n"
      "program\n"
      "  for i in 0 .. 2\n"
      "    let x = $base + $i * 10 + $rank\n"
      "    compute $x\n"
      "  end\n"
      "  let x = 5\n"  // the loop's $x is out of scope: this is a new one
      "  compute $x\n"
      "end\n",
      2);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(Cycles(t.prog(1)), (std::vector<int>{2001, 2011, 5}));
}

TEST(TraceExpandTest, VariablesCannotBeRedefinedOrUsedOutOfScope) {
  EXPECT_TRUE(FailsAt("program\n  for p in 0 .. 2\n    for p in 0 .. 2\n    end\n  end\nend\n", 2,
                      3, 9, "variable $p is already defined (line 2)"));
  EXPECT_TRUE(FailsAt("let n = 1\nprogram\n  let n = 2\nend\n", 2, 3, 7,
                      "variable $n is already defined (line 1)"));
  EXPECT_TRUE(FailsAt("program\n  for p in 0 .. 2\n  end\n  compute $p\nend\n", 2, 4, 11,
                      "undefined variable $p"));
  EXPECT_TRUE(FailsAt("program\n  let x = $x + 1\nend\n", 2, 2, 11, "undefined variable $x"));
  EXPECT_TRUE(FailsAt("let rank = 1\n", 2, 1, 5, "$rank is a predefined variable"));
  EXPECT_TRUE(FailsAt("program\n  for core in 0 .. 1\n  end\nend\n", 2, 2, 7,
                      "$core is a predefined variable"));
}

TEST(TraceExpandTest, GenericBlockFillsEveryRankAndLaterBlocksAppend) {
  Trace t(
      "program\n  compute $rank\nend\nprogram rank 0\n  compute 50\nend\n"
      "program rank $nranks - 1\n  compute 60\nend\n",
      3);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(Cycles(t.prog(0)), (std::vector<int>{0, 50}));
  EXPECT_EQ(Cycles(t.prog(1)), (std::vector<int>{1}));
  EXPECT_EQ(Cycles(t.prog(2)), (std::vector<int>{2, 60}));
}

TEST(TraceExpandTest, CoreBlocksFillTheirCoreAndDefaultToCoreZero) {
  Trace t(
      "cores 3\nprogram\n  compute $core * 10 + $ncores\nend\n"
      "program core 2 rank 1\n  compute 100 + $core\nend\n"
      "program core $ncores - 2\n  compute 200 + $rank\nend\n",
      2);
  ASSERT_TRUE(t.ok()) << t.Message();
  ASSERT_EQ(t.k().ncores, 3u);
  EXPECT_EQ(Cycles(t.prog(0, 0)), (std::vector<int>{3}));
  EXPECT_EQ(Cycles(t.prog(0, 1)), (std::vector<int>{200}));
  EXPECT_EQ(Cycles(t.prog(1, 1)), (std::vector<int>{201}));
  EXPECT_EQ(Cycles(t.prog(1, 2)), (std::vector<int>{102}));
  EXPECT_EQ(t.prog(0, 2).n, 0u);
}

TEST(TraceExpandTest, CoreAllFillsEveryCoreOfItsRanks) {
  Trace t(
      "cores 3\nprogram core all\n  compute $core * 10 + $rank\nend\n"
      "program rank 1 core all\n  compute 100 + $core\nend\n",
      2);
  ASSERT_TRUE(t.ok()) << t.Message();
  for (uint32_t c = 0; c < 3; c++) {
    EXPECT_EQ(Cycles(t.prog(0, c)), (std::vector<int>{(int)c * 10}));
    EXPECT_EQ(Cycles(t.prog(1, c)), (std::vector<int>{(int)c * 10 + 1, 100 + (int)c}));
  }
}

TEST(TraceExpandTest, CoreAllCannotBeGivenWithACore) {
  EXPECT_TRUE(FailsAt("cores 2\nprogram core all core 1\nend\n", 2, 2, 18, "'core' given twice"));
  EXPECT_TRUE(FailsAt("cores 2\nprogram core 1 core all\nend\n", 2, 2, 16, "'core' given twice"));
}

TEST(TraceExpandTest, ProgramsWithoutABlockStayEmpty) {
  Trace t("cores 2\nprogram rank 1 core 1\n  compute 1\nend\n", 3);
  ASSERT_TRUE(t.ok()) << t.Message();
  for (uint32_t r = 0; r < 3; r++)
    for (uint32_t c = 0; c < 2; c++) EXPECT_EQ(t.prog(r, c).n, (r == 1 && c == 1) ? 1u : 0u);
}

TEST(TraceExpandTest, BlockRankAndCoreMustBeInRange) {
  EXPECT_TRUE(FailsAt("program rank 4\nend\n", 4, 1, 14, "program rank 4 is outside 0..3"));
  EXPECT_TRUE(FailsAt("program rank -1\nend\n", 4, 1, 14, "program rank -1 is negative"));
  EXPECT_TRUE(
      FailsAt("cores 2\nprogram core 2\nend\n", 4, 2, 14, "program core 2 is outside 0..1"));
  EXPECT_TRUE(FailsAt("program core 1\nend\n", 4, 1, 14, "outside 0..0"));
}

TEST(TraceExpandTest, ErrorsInsideAProgramNameTheRankAndCoreAndColumn) {
  const std::string head = "tensor x fp32[8]\nwindow w fp32[8]\nsignal s[2]\ntile t fp32[8]\n";
  // the peer: rank 2 of 3 is the first whose expansion fails, at the peer's column
  EXPECT_TRUE(FailsAt(head + "program\n  for i in 0 .. 2\n    remote_load t, w@$rank + $i[0:8]\n"
                             "  end\nend\n",
                      3, 7, 22, "remote_load: peer 3 outside 0..2 (rank 2)"));
  // a region, with two cores: the core is named too
  EXPECT_TRUE(
      FailsAt("cores 2\n" + head +
                  "program core 1\n  load t, x[$rank * 4:8]\nend\nprogram\n  compute 1\nend\n",
              2, 7, 13,
              "load: elements [4, 12) are outside 'x' (8 elements; bytes [16, 48) "
              "of 32) (rank 1, core 1)"));
  EXPECT_TRUE(FailsAt(head + "program\n  notify s@0[$rank + 1] set 1\nend\n", 2, 6, 14,
                      "notify: cell at byte 8 is outside signal 's' (2 cells) (rank 1)"));
  EXPECT_TRUE(FailsAt(head + "program\n  put w@0[$rank * 8:8], x[0]\nend\n", 2, 6, 11,
                      "put: region [32, 64) is outside 'w' (32 bytes) (rank 1)"));
  EXPECT_TRUE(FailsAt(head + "program\n  get x[0:8], w@0[$rank]\nend\n", 2, 6, 19,
                      "get: region [4, 36) is outside 'w' (32 bytes) (rank 1)"));
  // values that do not depend on the rank fail for rank 0
  EXPECT_TRUE(FailsAt(head + "program\n  compute 1 / ($rank - $rank)\nend\n", 2, 6, 13,
                      "division by zero (rank 0)"));
}

TEST(TraceExpandTest, InstructionLineIsItsStatementLineInsideLoops) {
  const char *text =
      "tile t fp32[4]\n"           // 1
      "tensor x fp32[16]\n"        // 2
      "program\n"                  // 3
      "  for i in 0 .. 4\n"        // 4
      "    load t, x[$i * 4:4]\n"  // 5
      "    if $i % 2 == 0\n"       // 6
      "      compute $i\n"         // 7
      "    end\n"                  // 8
      "  end\n"                    // 9
      "\n"                         // 10
      "  # a comment\n"            // 11
      "  store t, x[0:4]\n"        // 12
      "end\n";
  Trace t(text, 2);
  ASSERT_TRUE(t.ok()) << t.Message();
  const a2_instrs &p = t.prog(1);
  std::vector<uint32_t> lines;
  for (uint32_t i = 0; i < p.n; i++) lines.push_back(p.v[i].line);
  EXPECT_EQ(lines, (std::vector<uint32_t>{5, 7, 5, 5, 7, 5, 12}));
}

TEST(TraceExpandTest, DeclarationsUseNranksAndEarlierConstants) {
  Trace t(
      "let chunk = 64 / $nranks\ntensor x fp32[$chunk * $nranks + 1]\ncores 2\n"
      "tile t fp16[$ncores * 8]\n" +
          std::string(a2test::kWork),
      4);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.k().bufs[0].bytes, 65u * 4);
  EXPECT_EQ(t.k().tiles[0].bytes, 16u * 2);
}

TEST(TraceExpandTest, NcoresAtTheTopLevelOnlyAfterTheCoresLine) {
  EXPECT_TRUE(FailsAt("tile t fp32[$ncores]\ncores 2\n", 2, 1, 13, "undefined variable $ncores"));
  EXPECT_TRUE(FailsAt("cores $ncores\n", 2, 1, 7, "undefined variable $ncores"));
  Trace t("program\n  compute $ncores\nend\n", 2);  // in programs: the default 1
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.prog(0).v[0].value, 1);
}

}  // namespace
