// Tests for hostile trace input: garbage, huge lines, deep nesting, loops
// too long to expand. Every case must end in a clear error (or a valid
// program) quickly, without crashing or allocating without bound; the suite
// also runs under valgrind.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "trace_util.h"

namespace {

using a2test::FailsAt;
using a2test::kWork;
using a2test::Trace;

// Deterministic bytes (xorshift), so failures reproduce.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
};

// No wall-clock assertions (flaky on shared machines): an input that is not
// refused quickly would hang the test, and ctest's timeout fails it.
bool Loads(const std::string &text, uint32_t P) {
  return Trace(text, P).ok();
}

TEST(TraceHostileTest, FilesWithoutAnInstructionAreRefused) {
  // no program block: after the last token (1:1 when there is none)
  EXPECT_TRUE(FailsAt("", 2, 1, 1, "no 'program' block"));
  EXPECT_TRUE(FailsAt("\n\n\n", 2, 1, 1, "no 'program' block"));
  EXPECT_TRUE(FailsAt("   \t  # only a comment", 2, 1, 1, "no 'program' block"));
  EXPECT_TRUE(
      FailsAt("tensor x fp32[4]\ntile t fp32[4]\n\n", 2, 2, 15, "add one after the declarations"));
  // program blocks that give no rank an instruction: at the first block
  EXPECT_TRUE(FailsAt("tile t fp32[4]\nprogram\nend\nprogram\n  let x = 1\nend\n", 2, 2, 1,
                      "no instruction on any of the 2 ranks"));
  EXPECT_TRUE(FailsAt("program rank 1\n  if $rank == 0\n    compute 1\n  end\nend\n", 2, 1, 1,
                      "no instruction on any of the 2 ranks"));
  EXPECT_TRUE(FailsAt("program\n  for i in 0 .. $nranks - 3\n    compute 1\n  end\nend\n", 2, 1, 1,
                      "are their 'rank', 'core', 'if' or loop bounds right?"));
  Trace one("program\n  for i in 0 .. $nranks - 3\n    compute 1\n  end\nend\n", 4);
  EXPECT_TRUE(one.ok()) << one.Message();
}

TEST(TraceHostileTest, RandomBytesAreRefusedWithAPosition) {
  Rng rng{0x9e3779b97f4a7c15ull};
  for (int i = 0; i < 300; i++) {
    std::string s(1 + rng.Next() % 400, ' ');
    for (char &c : s) c = (char)(1 + rng.Next() % 255);  // no NUL: a C string
    Trace t(s, 1 + (uint32_t)(rng.Next() % 8));
    if (!t.ok()) {
      EXPECT_GT(t.err().line, 0) << i;
      EXPECT_GT(t.err().col, 0) << i;
    }
  }
}

TEST(TraceHostileTest, MutatedExamplesNeverCrash) {
  // the second has tile arrays and a 2-D signal
  for (const char *f : {"allreduce_two_phase.a2t", "allreduce_two_phase_db.a2t"}) {
    SCOPED_TRACE(f);
    std::ifstream in(std::string(A2_SOURCE_DIR) + "/traces/examples/" + f);
    std::string base((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(base.empty());
    const char alphabet[] = "$[]:@,()=+-*/%<>!&|.#\n 0123456789_aez";
    Rng rng{12345};
    int loaded = 0;
    for (int i = 0; i < 2000; i++) {
      std::string s = base;
      for (int m = 1 + (int)(rng.Next() % 4); m > 0; m--) {
        size_t at = rng.Next() % s.size();
        switch (rng.Next() % 3) {
        case 0: s[at] = alphabet[rng.Next() % (sizeof alphabet - 1)]; break;
        case 1: s.erase(at, 1 + rng.Next() % 8); break;
        default: s.insert(at, 1, alphabet[rng.Next() % (sizeof alphabet - 1)]); break;
        }
        if (s.empty()) s = "x";
      }
      Trace t(s, 1 + (uint32_t)(rng.Next() % 6));
      loaded += t.ok();
    }
    EXPECT_GT(loaded, 0);  // some mutations are harmless (in comments)
  }
}

TEST(TraceHostileTest, FileWithANulByteIsRefusedAtIt) {
  char path[] = "/tmp/a2t_nulXXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  FILE *f = fdopen(fd, "wb");
  fwrite("seed 1\ncores\0 2\n", 1, 14, f);
  fclose(f);
  a2_program k;
  a2_err e{};
  EXPECT_EQ(a2_program_load(path, 2, &k, &e), A2_E_INPUT);
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.col, 6);
  EXPECT_NE(std::string(e.msg).find("byte 0x00"), std::string::npos) << e.msg;
  a2_program_free(&k);
  remove(path);
}

TEST(TraceHostileTest, TenMegabyteLinesAreHandledInOnePass) {
  const size_t n = 10u << 20;
  EXPECT_TRUE(Loads("# " + std::string(n, 'c') + "\nseed 3\n" + kWork, 2));
  EXPECT_TRUE(FailsAt("tensor " + std::string(n, 'a') + " fp32[1]\n", 2, 1, 8,
                      "longer than " + std::to_string(A2_NAME_MAX - 1) + " characters"));
  EXPECT_TRUE(FailsAt("seed " + std::string(n, '9') + "\n", 2, 1, 6, "larger than"));
  EXPECT_TRUE(FailsAt("seed " + std::string(n, '(') + "\n", 2, 1, 106, "nested more than 100"));
  EXPECT_TRUE(FailsAt("seed " + std::string(n, '-') + "1\n", 2, 1, 106, "nested more than 100"));
  std::string sum = "seed 1";
  while (sum.size() < n) sum += "+1";
  EXPECT_TRUE(FailsAt(sum + "\n", 2, 1, 7 + 2 * 999, "more than 1000 operators"));
}

TEST(TraceHostileTest, HugeFilesAreRefusedBeforeParsing) {
  std::string big(17u << 20, '\n');
  EXPECT_TRUE(FailsAt(big, 2, 0, 0, "larger than 16 MiB"));
}

TEST(TraceHostileTest, NestingDeeperThan64IsRefused) {
  auto nest = [](int depth) {
    std::string s = "program\n";
    for (int i = 0; i < depth; i++) s += "for i" + std::to_string(i) + " in 0 .. 1\n";
    s += "compute 1\n";
    for (int i = 0; i < depth; i++) s += "end\n";
    return s + "end\n";
  };
  Trace ok(nest(64), 2);
  ASSERT_TRUE(ok.ok()) << ok.Message();
  EXPECT_EQ(ok.prog(1).n, 1u);
  EXPECT_TRUE(FailsAt(nest(65), 2, 66, 1, "nested more than 64 deep"));
  std::string ifs = "program\n";
  for (int i = 0; i < 100000; i++) ifs += "if 1 == 1\n";
  EXPECT_TRUE(FailsAt(ifs, 2, 66, 1, "nested more than 64 deep"));
}

TEST(TraceHostileTest, TooManyVariablesAreRefused) {
  std::string s;
  for (int i = 0; i < 255; i++) s += "let v" + std::to_string(i) + " = " + std::to_string(i) + "\n";
  EXPECT_TRUE(FailsAt(s, 2, 255, 5, "more than 256 variables"));  // + $nranks, $ncores
}

TEST(TraceHostileTest, AHugeLoopIsRefusedAtItsForWithoutRunning) {
  EXPECT_FALSE(Loads("program\n  for i in 0 .. 1_099_511_627_776\n    compute 1\n  end\nend\n", 2));
  EXPECT_TRUE(FailsAt("program\n  for i in 0 .. 1_099_511_627_776\n    compute 1\n  end\nend\n", 2,
                      2, 3, "loop of 1099511627776 iterations"));
  // a body without instructions still costs steps
  EXPECT_TRUE(FailsAt("program\n  for i in 0 .. 1_099_511_627_776\n    let x = $i\n  end\nend\n", 2,
                      2, 3, "passes the expansion limit"));
  // instructions certain on every iteration count before running
  EXPECT_TRUE(FailsAt("program\n  for i in 0 .. 3_000_000\n    compute 1\n  end\nend\n", 2, 2, 3,
                      "makes more than 2^21 instructions"));
  EXPECT_TRUE(
      FailsAt("program\n  for i in -9223372036854775807 - 1 .. 9223372036854775807\n"
              "  end\nend\n",
              2, 2, 3, "passes the expansion limit"));
}

TEST(TraceHostileTest, AbsurdRankAndCoreCountsAreRefused) {
  a2_program k;
  a2_err e{};
  EXPECT_EQ(a2_program_load_string("", "t", 0, &k, &e), A2_E_INPUT);
  a2_program_free(&k);
  EXPECT_EQ(a2_program_load_string("", "t", 1u << 30, &k, &e), A2_E_INPUT);
  a2_program_free(&k);
  EXPECT_TRUE(FailsAt("cores 1_000_000\n", 2, 1, 7, "outside 1..1024"));
  Trace t("cores 1024\n", 8192);
  EXPECT_FALSE(t.ok());
  EXPECT_NE(std::string(t.err().msg).find("programs"), std::string::npos) << t.Message();
}

}  // namespace
