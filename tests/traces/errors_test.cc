// Tests for the trace reader's structural errors: each class names
// file:line:col and what was expected (docs/program-format.md).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "trace_util.h"

namespace {

using a2test::FailsAt;
using a2test::Trace;

const char *kMesh =
    "tensor data fp32[4]\n"
    "tile acc fp32[4]\n";

TEST(TraceErrorsTest, UnknownInstructionSuggestsTheClosest) {
  EXPECT_TRUE(FailsAt(std::string(kMesh) + "program\n  lod acc, data[0:4]\nend\n", 2, 4, 3,
                      "unknown instruction 'lod' (did you mean 'load'?)"));
  EXPECT_TRUE(FailsAt("program\n  remote_laod x\nend\n", 2, 2, 3, "did you mean 'remote_load'?"));
  EXPECT_TRUE(FailsAt("program\n  fro i in 0 .. 2\nend\n", 2, 2, 3, "did you mean 'for'?"));
  EXPECT_TRUE(FailsAt("program\n  frobnicate\nend\n", 2, 2, 3, "unknown instruction 'frobnicate'"));
}

TEST(TraceErrorsTest, UnknownBufferSuggestsADeclaredOne) {
  EXPECT_TRUE(FailsAt(std::string(kMesh) + "program\n  load acc, dta[0:4]\nend\n", 2, 4, 13,
                      "unknown buffer 'dta' (did you mean 'data'?)"));
  EXPECT_TRUE(FailsAt(std::string(kMesh) + "program\n  load acc, q[0:4]\nend\n", 2, 4, 13,
                      "unknown buffer 'q'"));
}

TEST(TraceErrorsTest, MissingCommaAfterTile) {
  EXPECT_TRUE(FailsAt(std::string(kMesh) + "program\n  load acc data[0:4]\nend\n", 2, 4, 12,
                      "expected ',' after tile name"));
}

TEST(TraceErrorsTest, EndWithoutOpener) {
  EXPECT_TRUE(FailsAt("end\n", 2, 1, 1, "'end' without 'for'/'if'/'program'"));
  EXPECT_TRUE(FailsAt("program\nend\nend\n", 2, 3, 1, "'end' without 'for'/'if'/'program'"));
  EXPECT_TRUE(FailsAt("program\nend extra\n", 2, 2, 5, "expected end of line after 'end'"));
}

TEST(TraceErrorsTest, UnterminatedBlocksNameWhereTheyOpened) {
  // reported just after the last token of the file, naming the innermost block
  EXPECT_TRUE(FailsAt("program\n  compute 1\n  for i in 0 .. 2\n    compute 1\n\n", 2, 4, 14,
                      "unterminated 'for' (opened at line 3): expected 'end' before the end"));
  EXPECT_TRUE(
      FailsAt("\n\nprogram\n  compute 1", 2, 4, 12, "unterminated 'program' (opened at line 3)"));
  EXPECT_TRUE(FailsAt("program\n  if 1 == 1\n  else\n  # a comment\n", 2, 3, 7,
                      "unterminated 'if' (opened at line 2)"));
}

TEST(TraceErrorsTest, AMissingEndIsFoundByTheIndentationOfTheEndThatCloses) {
  // the `end` meant for the program closes the `for`: the `for` is named
  const std::string body =
      "tile a fp32[4]\n"     // 1
      "program\n"            // 2
      "  compute 1\n"        // 3
      "  for i in 0 .. 2\n"  // 4
      "    compute 1\n"      // 5
      "  if 1 == 1\n"        // 6
      "    compute 2\n"      // 7
      "  end\n"              // 8
      "end\n";               // 9
  EXPECT_TRUE(FailsAt(body, 2, 4, 3,
                      "expected 'end' for the 'for' at line 4: the 'end' at line 9 is indented "
                      "like the 'program' at line 2 but closes this 'for'"));
  // inner blocks: the first `end` indented like an enclosing opener names the block it closed
  EXPECT_TRUE(FailsAt("program\n  for i in 0 .. 2\n    if $i == 0\n      compute 1\n  end\nend\n",
                      2, 3, 5, "expected 'end' for the 'if' at line 3"));
  // no indentation to go by: the innermost open block, at the end of the file
  EXPECT_TRUE(FailsAt("program\nfor i in 0 .. 2\ncompute 1\nend\n", 2, 4, 4,
                      "unterminated 'program' (opened at line 1): expected 'end'"));
}

TEST(TraceErrorsTest, ElseOutOfPlace) {
  EXPECT_TRUE(FailsAt("program\n  else\nend\n", 2, 2, 3, "'else' without 'if'"));
  EXPECT_TRUE(FailsAt("else\n", 2, 1, 1, "'else' without 'if'"));
  EXPECT_TRUE(FailsAt("program\n  if 1 == 1\n    for i in 0 .. 2\n  else\n  end\nend\n", 2, 4, 3,
                      "'else' without 'if' (the 'for' at line 3 is still open)"));
  EXPECT_TRUE(FailsAt("program\n  if 1 == 1\n  else\n  else\n  end\nend\n", 2, 4, 3,
                      "second 'else' for the 'if' at line 2"));
  EXPECT_TRUE(FailsAt("program\n  if 1 == 1\n  else if 2 == 2\n  end\nend\n", 2, 3, 8,
                      "'else if' is not supported"));
}

TEST(TraceErrorsTest, ControlStatementSyntax) {
  EXPECT_TRUE(FailsAt("program\n  for $i in 0 .. 2\n  end\nend\n", 2, 2, 7, "without '$'"));
  EXPECT_TRUE(FailsAt("program\n  for i from 0 .. 2\n  end\nend\n", 2, 2, 9, "expected 'in'"));
  EXPECT_TRUE(FailsAt("program\n  for i in 0 to 2\n  end\nend\n", 2, 2, 14, "expected '..'"));
  EXPECT_TRUE(FailsAt("program\n  for i in 0 . 2\n  end\nend\n", 2, 2, 14, "unexpected '.'"));
  EXPECT_TRUE(FailsAt("program\n  let x 5\nend\n", 2, 2, 9, "expected '=' after the name"));
  EXPECT_TRUE(FailsAt("program\n  if 1 == 1 compute 1\n  end\nend\n", 2, 2, 13,
                      "expected end of line after the condition"));
  EXPECT_TRUE(FailsAt("program rnk 1\nend\n", 2, 1, 9, "expected 'rank EXPR', 'core EXPR'"));
  EXPECT_TRUE(FailsAt("program rank 1 rank 1\nend\n", 2, 1, 16, "'rank' given twice"));
}

TEST(TraceErrorsTest, StatementsOutOfPlace) {
  EXPECT_TRUE(FailsAt("compute 1\n", 2, 1, 1, "'compute' outside a program block"));
  EXPECT_TRUE(FailsAt("for i in 0 .. 2\nend\n", 2, 1, 1, "'for' outside a program block"));
  EXPECT_TRUE(
      FailsAt("program\n  program\nend\nend\n", 2, 2, 3, "'program' inside a program block"));
  EXPECT_TRUE(FailsAt("tensr x fp32[4]\n", 2, 1, 1,
                      "unknown declaration 'tensr' (did you mean 'tensor'?)"));
  EXPECT_TRUE(FailsAt("progam\n", 2, 1, 1, "did you mean 'program'?"));
  EXPECT_TRUE(FailsAt("42\n", 2, 1, 1, "expected a declaration or 'program'"));
  EXPECT_TRUE(FailsAt("program\n  [\nend\n", 2, 2, 3, "expected an instruction or 'end'"));
}

TEST(TraceErrorsTest, LexicalErrors) {
  EXPECT_TRUE(FailsAt("seed 4KiB\n", 2, 1, 7, "unexpected character after a number"));
  EXPECT_TRUE(FailsAt("seed 1__0\n", 2, 1, 7, "'_' only between digits"));
  EXPECT_TRUE(FailsAt("seed 1 ; 2\n", 2, 1, 8, "unexpected character ';'"));
  EXPECT_TRUE(FailsAt("seed \x7f\n", 2, 1, 6, "byte 0x7f"));
  EXPECT_TRUE(FailsAt("seed 1\xc3\xa9\n", 2, 1, 7, "byte 0xc3"));
}

TEST(TraceErrorsTest, CommentsBlanksAndCrlfAreIgnored) {
  Trace t(
      "# header\r\n\r\n   seed 5   # the seed\r\n\tcores 2\r\nprogram # all ranks\r\n"
      "  compute 1 # one\r\nend",
      2);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.k().seed, 5u);
  EXPECT_EQ(t.k().ncores, 2u);
  EXPECT_EQ(t.prog(1).v[0].line, 6u);
}

TEST(TraceErrorsTest, KeywordsAreReservedOnlyAtTheStartOfAStatement) {
  Trace t(
      "tensor end fp32[4]\nsignal signal[2]\ntile load fp32[4]\nlet program = 1\n"
      "program\n  load load, end[0:4]\n  wait signal[$program] ge 1\nend\n",
      2);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.prog(0).n, 2u);
  EXPECT_EQ(t.prog(0).v[1].off, 4u);
}

TEST(TraceErrorsTest, FileErrorsNameThePath) {
  a2_program k;
  a2_err e{};
  EXPECT_EQ(a2_program_load("/nonexistent/x.a2t", 2, &k, &e), A2_E_IO);
  EXPECT_STREQ(e.file, "/nonexistent/x.a2t");
  EXPECT_NE(std::string(e.msg).find("cannot open"), std::string::npos);
  a2_program_free(&k);
  char path[] = "/tmp/a2t_errXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  FILE *f = fdopen(fd, "w");
  fputs("seed 1\nprogram\n  lod\nend\n", f);
  fclose(f);
  EXPECT_EQ(a2_program_load(path, 2, &k, &e), A2_E_INPUT);
  EXPECT_STREQ(e.file, path);
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.col, 3);
  a2_program_free(&k);
  remove(path);
}

}  // namespace
