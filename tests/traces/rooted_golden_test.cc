// The rooted goldens (reduce, gather, scatter): the example programs of
// traces/examples/ run OK and race-check clean at several P and roots, the
// check looks only at what each collective defines, and a deliberately
// wrong program fails it (docs/program-format.md, golden kinds).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/support/run_cli.h"
#include "tests/traces/trace_util.h"

namespace a2test {
namespace {

std::string Example(const std::string &f) {
  return std::string(A2_SOURCE_DIR) + "/traces/examples/" + f;
}

std::string Read(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a program file with --json; a failed check exits 1 and still prints
// the JSON document.
JsonDoc RunTrace(const std::string &file, uint32_t P, uint32_t root, int want_exit) {
  CliResult r = RunCli({"run", "--program", file, "--ranks", std::to_string(P), "--param",
                        "root=" + std::to_string(root), "--json"});
  EXPECT_EQ(r.exit_code, want_exit) << r;
  JsonDoc d = JsonDoc::Parse(r.out);
  EXPECT_TRUE(d.ok()) << d.error() << "\n" << r;
  return d;
}

struct Rooted {
  const char *file;
  a2_golden_kind kind;
  uint64_t elements_per_P;  // elements checked = this * (P or 1)
  bool wide;                // elements checked grow with P
};

const Rooted kRooted[] = {
    {"reduce_mesh.a2t", A2_GOLDEN_REDUCE, 64, false},   // the root's 64 only
    {"gather_mesh.a2t", A2_GOLDEN_GATHER, 64, true},    // the root's P blocks
    {"scatter_mesh.a2t", A2_GOLDEN_SCATTER, 64, true},  // every rank's block
};

TEST(RootedGoldenTest, ExamplesRunOkAndRaceFreeAtEveryRoot) {
  for (const Rooted &c : kRooted)
    for (uint32_t P : {1u, 2u, 3u, 5u})
      for (uint32_t root = 0; root < P; root += 2) {
        SCOPED_TRACE(std::string(c.file) + " P=" + std::to_string(P) +
                     " root=" + std::to_string(root));
        JsonDoc d = RunTrace(Example(c.file), P, root, 0);
        EXPECT_EQ(d["status"].Str(), "OK");
        EXPECT_TRUE(d["check"]["checked"].Bool());
        EXPECT_EQ(d["check"]["mismatches"].Int(), 0);
        EXPECT_EQ(d["check"]["elements"].Int(), (long long)(c.elements_per_P * (c.wide ? P : 1)));
        EXPECT_TRUE(d["race_check"]["checked"].Bool());
        EXPECT_EQ(d["race_check"]["races"].Int(), 0);
        // the file's card (root reads or writes, barrier rounds) is what the model counts
        for (const char *f :
             {"remote_read_bytes_per_rank", "remote_write_bytes_per_rank", "barrier_rounds"})
          EXPECT_EQ(d["measured"][f].Num(), d["analytic"][f].Num()) << f;
      }
}

TEST(RootedGoldenTest, ExamplesLoadWithTheirGoldenAndRoot) {
  for (const Rooted &c : kRooted) {
    a2_program k;
    a2_err e{};
    a2_program_param root = {"root", 2};
    ASSERT_EQ(a2_program_load_params(Example(c.file).c_str(), 4, &root, 1, &k, &e), A2_OK) << e.msg;
    EXPECT_EQ(k.golden.kind, c.kind) << c.file;
    EXPECT_EQ(k.golden.root, 2u) << c.file;
    EXPECT_EQ(k.golden.bytes, 256u) << c.file;
    a2_program_free(&k);
  }
}

// Each wrong program is the example with one line changed.
struct Wrong {
  const char *file;
  const char *from, *to;
  const char *why;
};

const Wrong kWrong[] = {
    {"reduce_mesh.a2t", "for i in 1 .. $nranks ", "for i in 2 .. $nranks ",
     "the root leaves out the peer after it"},
    {"gather_mesh.a2t", "store buf[$q % 2], y[$q * 64:64]", "store buf[0], y[$q * 64:64]",
     "every other block comes from the wrong tile"},
    {"gather_mesh.a2t", "golden gather $root", "golden gather ($root + 1) % $nranks",
     "the golden names another root, whose y is empty"},
    {"scatter_mesh.a2t", "data@$root[$rank * 64:64]", "data@$root[(($rank + 1) % $nranks) * 64:64]",
     "rank r takes slice r + 1"},
};

TEST(RootedGoldenTest, ADeliberatelyWrongProgramFailsTheCheck) {
  TempDir dir;
  for (const Wrong &w : kWrong) {
    SCOPED_TRACE(std::string(w.file) + ": " + w.why);
    std::string text = Read(Example(w.file));
    size_t at = text.find(w.from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, strlen(w.from), w.to);
    std::string file = dir.Write("wrong.a2t", text);
    JsonDoc d = RunTrace(file, 3, 1, 1);
    EXPECT_NE(d["status"].Str(), "OK");
    EXPECT_TRUE(d["check"]["checked"].Bool());
    EXPECT_GT(d["check"]["mismatches"].Int(), 0);
  }
}

TEST(RootedGoldenTest, ScatterChecksEveryRank) {
  // Only the root stores its own slice: rank 1's y stays zero and fails.
  TempDir dir;
  std::string file = dir.Write("s.a2t",
                               "param root = 0\ntensor x fp32[8] = pattern\ntensor y fp32[4]\n"
                               "tile t fp32[4]\ngolden scatter $root x -> y 4\n"
                               "program rank $root\n  load t, x[0:4]\n  store t, y[0:4]\nend\n");
  JsonDoc d = RunTrace(file, 2, 0, 1);
  EXPECT_EQ(d["check"]["elements"].Int(), 8);
  EXPECT_EQ(d["check"]["mismatches"].Int(), 4);  // rank 1's four (the pattern has no zeros there)
  EXPECT_EQ(d["check"]["first_mismatches"][size_t{0}]["rank"].Int(), 1);
}

TEST(RootedGoldenTest, GoldenErrorsNameThePlace) {
  EXPECT_TRUE(FailsAt("tensor x fp32[8] = pattern\ntensor y fp32[8]\ngolden reduce 0 x -> y 8\n", 2,
                      3, 15, "expected a reduction (sum, max, min or prod)"));
  EXPECT_TRUE(FailsAt("tensor x fp32[8] = pattern\ntensor y fp32[8]\ngolden gather x -> y 8\n", 2,
                      3, 15, "expected a number, a $variable or '(', found 'x'"));
  EXPECT_TRUE(FailsAt(
      "tensor x fp32[8]\ntensor y fp32[8]\ngolden scatter -1 x -> y 4\n" + std::string(kWork), 2, 3,
      16, "root -1 is negative"));
  EXPECT_TRUE(
      FailsAt("golden reduse sum 0 x -> y 8\n", 2, 1, 8, "reduce, gather, scatter or none"));
}

}  // namespace
}  // namespace a2test
