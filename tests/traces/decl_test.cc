// Tests for trace-format declarations (docs/program-format.md,
// "Declarations"): every kind, the builtin and card lines, golden kinds, the
// `ranks` check, defaults, duplicates and limits.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "trace_util.h"

namespace {

using a2test::FailsAt;
using a2test::kWork;
using a2test::Trace;

TEST(TraceDeclTest, AFileWithoutDeclarationsIsAProgramWithDefaults) {
  Trace t(kWork, 3);
  ASSERT_TRUE(t.ok()) << t.Message();
  const a2_program &k = t.k();
  EXPECT_EQ(k.nranks, 3u);
  EXPECT_EQ(k.ncores, 1u);
  EXPECT_EQ(k.seed, 1u);
  EXPECT_EQ(k.nbufs, 0u);
  EXPECT_EQ(k.ntiles, 0u);
  EXPECT_EQ(k.golden.kind, A2_GOLDEN_NONE);
  EXPECT_STREQ(k.algo, "");
  EXPECT_EQ(k.has_card, 0);
  for (uint32_t r = 0; r < 3; r++) EXPECT_EQ(t.prog(r).n, 1u);
}

TEST(TraceDeclTest, EveryStorageKindWithItsTypeSizeAndInit) {
  Trace t(
      "tensor a fp32[10] = pattern\n"
      "tensor b fp16[10]\n"
      "tensor c int32[3] = zero\n"
      "window w fp16[7]\n"
      "signal s[5]\n"
      "tile t1 fp32[16]\n"
      "tile t2 fp16[16]\n"
      "tile t3 int32[1]\n" +
          std::string(kWork),
      2);
  ASSERT_TRUE(t.ok()) << t.Message();
  const a2_program &k = t.k();
  ASSERT_EQ(k.nbufs, 5u);
  struct {
    const char *name;
    a2_buf_kind kind;
    a2_dtype dt;
    uint64_t bytes;
    a2_init_kind init;
  } want[] = {{"a", A2_BUF_TENSOR, A2_FP32, 40, A2_INIT_PATTERN},
              {"b", A2_BUF_TENSOR, A2_FP16, 20, A2_INIT_ZERO},
              {"c", A2_BUF_TENSOR, A2_INT32, 12, A2_INIT_ZERO},
              {"w", A2_BUF_WINDOW, A2_FP16, 14, A2_INIT_ZERO},
              {"s", A2_BUF_SIGNAL, A2_INT32, 20, A2_INIT_ZERO}};
  for (int i = 0; i < 5; i++) {
    EXPECT_STREQ(k.bufs[i].name, want[i].name);
    EXPECT_EQ(k.bufs[i].kind, want[i].kind) << i;
    EXPECT_EQ(k.bufs[i].dtype, want[i].dt) << i;
    EXPECT_EQ(k.bufs[i].bytes, want[i].bytes) << i;
    EXPECT_EQ(k.init[i], want[i].init) << i;
  }
  ASSERT_EQ(k.ntiles, 3u);
  EXPECT_STREQ(k.tiles[1].name, "t2");
  EXPECT_EQ(k.tiles[0].bytes, 64u);
  EXPECT_EQ(k.tiles[1].bytes, 32u);
  EXPECT_EQ(k.tiles[1].dtype, A2_FP16);
  EXPECT_EQ(k.tiles[2].dtype, A2_INT32);
}

TEST(TraceDeclTest, BuiltinLineOptionsComeInAnyOrderWithDefaults) {
  Trace t("builtin allreduce_mesh dtype fp16 op max root 2 size 1_024\n" + std::string(kWork), 4);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_STREQ(t.k().algo, "allreduce_mesh");
  EXPECT_EQ(t.k().size_bytes, 1024u);
  EXPECT_EQ(t.k().root, 2u);
  EXPECT_EQ(t.k().op, (uint32_t)A2_RED_MAX);
  EXPECT_EQ(t.k().dtype, A2_FP16);
  Trace d("builtin x\n" + std::string(kWork), 4);
  ASSERT_TRUE(d.ok()) << d.Message();
  EXPECT_EQ(d.k().size_bytes, 0u);
  EXPECT_EQ(d.k().op, (uint32_t)A2_RED_SUM);
  EXPECT_EQ(d.k().dtype, A2_FP32);
  EXPECT_TRUE(FailsAt("builtin x size 1 size 2\n", 2, 1, 18, "'size' given twice"));
  EXPECT_TRUE(FailsAt("builtin x bytes 4\n", 2, 1, 11, "expected 'size', 'root', 'op', 'dtype'"));
  EXPECT_TRUE(FailsAt("builtin\n", 2, 1, 8, "expected the built-in's name after 'builtin'"));
}

// `kernel` is the deprecated spelling of `builtin` (docs/program-format.md):
// the same line, counted as the same declaration, named as written.
TEST(TraceDeclTest, KernelIsTheDeprecatedSpellingOfBuiltin) {
  Trace t("kernel allreduce_ring size 96 root 1 op min dtype int32\n" + std::string(kWork), 4);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_STREQ(t.k().algo, "allreduce_ring");
  EXPECT_EQ(t.k().size_bytes, 96u);
  EXPECT_EQ(t.k().root, 1u);
  EXPECT_EQ(t.k().op, (uint32_t)A2_RED_MIN);
  EXPECT_EQ(t.k().dtype, A2_INT32);
  EXPECT_TRUE(FailsAt("builtin x\nkernel y\n", 2, 2, 1, "'kernel' given twice (first at line 1)"));
  EXPECT_TRUE(FailsAt("kernel x\nbuiltin y\n", 2, 2, 1, "'builtin' given twice (first at line 1)"));
  EXPECT_TRUE(FailsAt("kernel 7\n", 2, 1, 8, "expected the built-in's name after 'kernel'"));
  // a misspelling near the old word is pointed at the current one
  EXPECT_TRUE(
      FailsAt("kernal x\n", 2, 1, 1, "unknown declaration 'kernal' (did you mean 'builtin'?)"));
}

TEST(TraceDeclTest, RanksMustMatchTheRequestedCount) {
  Trace ok("ranks 2 * 2\n" + std::string(kWork), 4);
  EXPECT_TRUE(ok.ok()) << ok.Message();
  EXPECT_TRUE(FailsAt("# for four\n\nranks 4\n", 2, 3, 7,
                      "this file is for 4 ranks ('ranks' on line 3), not 2"));
}

TEST(TraceDeclTest, CoresSeedAndCard) {
  Trace t("cores 4\nseed 77\ncard remote_read ($nranks - 1) * 256 remote_write 8 rounds 2\n" +
              std::string(kWork),
          3);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.k().ncores, 4u);
  EXPECT_EQ(t.k().seed, 77u);
  EXPECT_EQ(t.k().has_card, 1);
  EXPECT_EQ(t.k().card_read_bytes, 512u);
  EXPECT_EQ(t.k().card_write_bytes, 8u);
  EXPECT_EQ(t.k().card_rounds, 2u);
  EXPECT_TRUE(FailsAt("cores 0\n", 2, 1, 7, "cores 0 is outside 1..1024"));
  EXPECT_TRUE(FailsAt("card remote_read 1 rounds 2\n", 2, 1, 20, "expected 'remote_write'"));
}

struct GoldenCase {
  const char *line;
  a2_golden_kind kind;
  a2_reduce_op op;
  uint32_t root;
};

TEST(TraceDeclTest, EveryGoldenKindWithBlockBytesFromTheInputType) {
  const GoldenCase cases[] = {
      {"golden allreduce sum x -> y 16", A2_GOLDEN_ALLREDUCE, A2_RED_SUM, 0},
      {"golden allreduce prod x -> y 16", A2_GOLDEN_ALLREDUCE, A2_RED_PROD, 0},
      {"golden broadcast 3 x -> y 16", A2_GOLDEN_BROADCAST, A2_RED_SUM, 3},
      {"golden allgather x -> y 16", A2_GOLDEN_ALLGATHER, A2_RED_SUM, 0},
      {"golden reduce_scatter min x -> y 16", A2_GOLDEN_REDUCE_SCATTER, A2_RED_MIN, 0},
      {"golden all_to_all x -> y 16", A2_GOLDEN_ALLTOALL, A2_RED_SUM, 0},
      {"golden bcast_allreduce_allgather max $nranks - 1 x -> y 16",
       A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER, A2_RED_MAX, 3},
      {"golden reduce max 2 x -> y 16", A2_GOLDEN_REDUCE, A2_RED_MAX, 2},
      {"golden gather $nranks / 2 x -> y 16", A2_GOLDEN_GATHER, A2_RED_SUM, 2},
      {"golden scatter 1 x -> y 16", A2_GOLDEN_SCATTER, A2_RED_SUM, 1},
  };
  for (const GoldenCase &c : cases) {
    Trace t(std::string("tensor x fp16[64] = pattern\ntensor y fp16[64]\n") + c.line + "\n" + kWork,
            4);
    ASSERT_TRUE(t.ok()) << c.line << ": " << t.Message();
    const a2_golden &g = t.k().golden;
    EXPECT_EQ(g.kind, c.kind) << c.line;
    EXPECT_EQ(g.op, c.op) << c.line;
    EXPECT_EQ(g.root, c.root) << c.line;
    EXPECT_EQ(g.in_buf, 0u) << c.line;
    EXPECT_EQ(g.out_buf, 1u) << c.line;
    EXPECT_EQ(g.bytes, 32u) << c.line;  // 16 fp16 elements
  }
  Trace none("golden none\n" + std::string(kWork), 2);
  ASSERT_TRUE(none.ok()) << none.Message();
  EXPECT_EQ(none.k().golden.kind, A2_GOLDEN_NONE);
}

TEST(TraceDeclTest, GoldenErrorsNameWhatWasExpected) {
  const std::string bufs = "tensor x fp32[4]\ntensor y fp32[4]\n";
  EXPECT_TRUE(FailsAt(bufs + "golden allreduse sum x -> y 4\n", 2, 3, 8, "expected a golden kind"));
  EXPECT_TRUE(FailsAt(bufs + "golden allreduce x -> y 4\n", 2, 3, 18, "expected a reduction"));
  EXPECT_TRUE(FailsAt(bufs + "golden allgather x y 4\n", 2, 3, 20, "expected '->'"));
  EXPECT_TRUE(FailsAt(bufs + "golden allgather x -> z 4\n", 2, 3, 23, "unknown buffer 'z'"));
  EXPECT_TRUE(FailsAt(bufs + "golden allgather x -> y\n", 2, 3, 24, "element count n"));
  EXPECT_TRUE(FailsAt("golden allgather x -> y 4\ntensor x fp32[4]\n", 2, 1, 18,
                      "unknown buffer 'x'"));  // declare before use
}

TEST(TraceDeclTest, DuplicatesAreRefusedWithTheFirstLine) {
  EXPECT_TRUE(FailsAt("tensor x fp32[4]\nwindow x fp32[4]\n", 2, 2, 8,
                      "buffer 'x' is already declared (line 1)"));
  EXPECT_TRUE(FailsAt("tile t fp32[4]\ntile t fp16[4]\n", 2, 2, 6,
                      "tile 't' is already declared (line 1)"));
  EXPECT_TRUE(FailsAt("seed 1\nseed 2\n", 2, 2, 1, "'seed' given twice (first at line 1)"));
  EXPECT_TRUE(FailsAt("golden none\ngolden none\n", 2, 2, 1, "'golden' given twice"));
  // a tile and a buffer may share a name: operands say which is meant
  Trace t("tensor acc fp32[4]\ntile acc fp32[4]\nprogram\n  load acc, acc[0:4]\nend\n", 2);
  EXPECT_TRUE(t.ok()) << t.Message();
}

TEST(TraceDeclTest, StorageSyntaxErrors) {
  EXPECT_TRUE(FailsAt("tensor x float[4]\n", 2, 1, 10, "expected an element type (fp32, fp16"));
  EXPECT_TRUE(FailsAt("tensor x fp32 4\n", 2, 1, 15, "expected '['"));
  EXPECT_TRUE(FailsAt("tensor x fp32[4\n", 2, 1, 16, "expected ']' after the element count"));
  EXPECT_TRUE(FailsAt("tensor x fp32[4] = random\n", 2, 1, 20, "'pattern' or 'zero'"));
  EXPECT_TRUE(FailsAt("window w fp32[4] = pattern\n", 2, 1, 18, "only a tensor takes"));
  EXPECT_TRUE(FailsAt("signal s int32[4]\n", 2, 1, 10, "a signal has no element type"));
  EXPECT_TRUE(FailsAt("tensor $x fp32[4]\n", 2, 1, 8, "without '$'"));
  EXPECT_TRUE(FailsAt("tensor x fp32[-1]\n", 2, 1, 15, "element count -1 is negative"));
}

TEST(TraceDeclTest, LimitsOnNamesBuffersAndSizes) {
  const int longest = A2_NAME_MAX - 1;
  std::string ok(longest, 'a'), too_long(longest + 1, 'b');
  EXPECT_TRUE(Trace("tensor " + ok + " fp32[1]\n" + kWork, 2).ok());
  EXPECT_TRUE(FailsAt("tensor " + too_long + " fp32[1]\n", 2, 1, 8,
                      "longer than " + std::to_string(longest) + " characters"));
  std::string many;
  for (int i = 0; i < A2_MAX_BUFS; i++) many += "window w" + std::to_string(i) + " fp32[1]\n";
  EXPECT_TRUE(Trace(many + kWork, 2).ok());
  EXPECT_TRUE(FailsAt(many + "signal extra[1]\n", 2, A2_MAX_BUFS + 1, 8, "more than 32 buffers"));
  std::string tiles;
  for (int i = 0; i < A2_MAX_TILES; i++) tiles += "tile t" + std::to_string(i) + " fp32[1]\n";
  EXPECT_TRUE(
      FailsAt(tiles + "tile extra fp32[1]\n", 2, A2_MAX_TILES + 1, 6, "more than 64 tiles"));
  EXPECT_TRUE(FailsAt("tensor x fp32[1_000_000_000_000]\n", 2, 1, 15, "too large"));
}

TEST(TraceDeclTest, DeclarationsComeBeforeThePrograms) {
  EXPECT_TRUE(
      FailsAt("program\nend\ntensor x fp32[4]\n", 2, 3, 1, "'tensor' after a 'program' block"));
  EXPECT_TRUE(FailsAt("program\n  tile t fp32[4]\nend\n", 2, 2, 3, "'tile' is a declaration"));
}

}  // namespace
