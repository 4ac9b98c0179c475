// Tests for `param NAME = EXPR` and the values a caller gives for it
// (a2_program_load_params; `run --param`, docs/program-format.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "trace_util.h"
#include "traces/text.h"

namespace {

using a2test::FailsAt;
using a2test::Trace;

// A program file that removes itself.
class TempTrace {
 public:
  explicit TempTrace(const std::string &text) {
    char tmpl[] = "/tmp/a2_param_XXXXXX";
    int fd = mkstemp(tmpl);
    path_ = tmpl;
    FILE *f = fdopen(fd, "w");
    fputs(text.c_str(), f);
    fclose(f);
  }
  ~TempTrace() { unlink(path_.c_str()); }
  const char *path() const { return path_.c_str(); }

 private:
  std::string path_;
};

const char kChunks[] =
    "param size = 4096\n"
    "param chunk = 1024\n"
    "let n = $size / $chunk\n"
    "window w fp32[$size / 4]\n"
    "tile t fp32[$chunk / 4]\n"
    "program\n"
    "  for i in 0 .. $n\n"
    "    load t, w[$i * $chunk / 4 : $chunk / 4]\n"
    "  end\n"
    "end\n";

struct Loaded {
  a2_program k{};
  a2_err e{};
  a2_code rc;
  Loaded(const char *path, std::initializer_list<a2_program_param> ps) {
    std::vector<a2_program_param> v(ps);
    rc = a2_program_load_params(path, 2, v.data(), v.size(), &k, &e);
  }
  ~Loaded() { a2_program_free(&k); }
};

TEST(TraceParamTest, DefaultsAreTheFilesValues) {
  Trace t(kChunks, 2);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.k().bufs[0].bytes, 4096u);
  EXPECT_EQ(t.prog(0).n, 4u);
}

TEST(TraceParamTest, GivenValuesReplaceTheDefaults) {
  TempTrace f(kChunks);
  Loaded l(f.path(), {{"size", 1 << 20}, {"chunk", 4096}});
  ASSERT_EQ(l.rc, A2_OK) << l.e.msg;
  EXPECT_EQ(l.k.bufs[0].bytes, 1u << 20);
  EXPECT_EQ(l.k.tiles[0].bytes, 4096u);
  EXPECT_EQ(l.k.progs[0].n, 256u);
  EXPECT_EQ(l.k.progs[1].n, 256u);
}

TEST(TraceParamTest, TheDefaultIsNotEvaluatedWhenReplaced) {
  // 1 / 0 would be an error at expansion; a given value skips it
  TempTrace f("param d = 1 / 0\nprogram\n  compute $d\nend\n");
  Loaded bad(f.path(), {});
  EXPECT_EQ(bad.rc, A2_E_INPUT);
  Loaded good(f.path(), {{"d", 7}});
  ASSERT_EQ(good.rc, A2_OK) << good.e.msg;
  EXPECT_EQ(good.k.progs[0].v[0].value, 7);
}

TEST(TraceParamTest, AnUndeclaredNameIsRefusedNamingTheFlagAndTheParams) {
  TempTrace f(kChunks);
  Loaded l(f.path(), {{"sise", 8}});
  EXPECT_EQ(l.rc, A2_E_INPUT);
  EXPECT_STREQ(l.e.file, "--param");
  std::string m = l.e.msg;
  EXPECT_NE(m.find("no 'param sise'"), std::string::npos) << m;
  EXPECT_NE(m.find("its params: size, chunk"), std::string::npos) << m;
}

TEST(TraceParamTest, AFileWithoutParamsSaysHowToAddOne) {
  TempTrace f(a2test::kWork);
  Loaded l(f.path(), {{"size", 8}});
  EXPECT_EQ(l.rc, A2_E_INPUT);
  EXPECT_NE(std::string(l.e.msg).find("add 'param size = VALUE'"), std::string::npos) << l.e.msg;
}

TEST(TraceParamTest, ANameGivenTwiceIsRefused) {
  TempTrace f(kChunks);
  Loaded l(f.path(), {{"size", 8192}, {"size", 4096}});
  EXPECT_EQ(l.rc, A2_E_INPUT);
  EXPECT_NE(std::string(l.e.msg).find("size given twice"), std::string::npos) << l.e.msg;
}

TEST(TraceParamTest, AParamIsAVariableLikeLet) {
  EXPECT_TRUE(FailsAt("param size = 1\nparam size = 2\n" + std::string(a2test::kWork), 2, 2, 7,
                      "already defined"));
  EXPECT_TRUE(
      FailsAt("param rank = 1\n" + std::string(a2test::kWork), 2, 1, 7, "predefined variable"));
  EXPECT_TRUE(FailsAt("param = 1\n" + std::string(a2test::kWork), 2, 1, 7,
                      "expected a name after 'param'"));
  EXPECT_TRUE(FailsAt("param x = $x\n" + std::string(a2test::kWork), 2, 1, 11, "$x"));
}

TEST(TraceParamTest, AtMost32Params) {
  std::string text;
  for (int i = 0; i < 33; i++) text += "param p" + std::to_string(i) + " = 1\n";
  EXPECT_TRUE(FailsAt(text + a2test::kWork, 2, 33, 1, "more than 32 'param' declarations"));
}

}  // namespace
