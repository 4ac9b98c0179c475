// Tile arrays (`tile NAME[COUNT] ...`, `NAME[INDEX]`) and 2-D signals
// (`signal NAME[ROWS, COLS]`, `NAME[ROW, COL]`): what they declare, what
// they expand to, and their errors at exact positions
// (docs/program-format.md, "Tile arrays", "2-D signals").
#include <gtest/gtest.h>

#include <string>

#include "tests/traces/trace_util.h"
#include "traces/validate.h"

namespace a2test {
namespace {

const char kHead[] = "tensor x fp32[64] = pattern\n";  // line 1

TEST(TileArrayTest, DeclaresCountTilesNamedByIndex) {
  Trace t(
      std::string(kHead) + "tile acc fp32[64]\ntile recv[3] fp16[32]\ntile last fp32[8]\n" + kWork,
      2);
  ASSERT_TRUE(t.ok()) << t.Message();
  ASSERT_EQ(t.k().ntiles, 5u);
  EXPECT_STREQ(t.k().tiles[0].name, "acc");
  for (uint32_t j = 0; j < 3; j++) {
    EXPECT_EQ(std::string(t.k().tiles[1 + j].name), "recv[" + std::to_string(j) + "]");
    EXPECT_EQ(t.k().tiles[1 + j].bytes, 64u);
    EXPECT_EQ(t.k().tiles[1 + j].dtype, A2_FP16);
  }
  EXPECT_STREQ(t.k().tiles[4].name, "last");
  EXPECT_EQ(t.k().tiles[4].bytes, 32u);
}

TEST(TileArrayTest, AnIndexExpressionPicksTheTileForEachRankAndIteration) {
  Trace t(std::string(kHead) +
              "tile acc fp32[64]\ntile recv[2] fp32[64]\nprogram\n"
              "  load recv[$rank % 2], x[0:64]\n"
              "  for i in 0 .. 4\n"
              "    vadd recv[$i % 2], acc, recv[($i + 1) % 2], 64\n"
              "  end\n"
              "end\n",
          3);
  ASSERT_TRUE(t.ok()) << t.Message();
  for (uint32_t r = 0; r < 3; r++) {
    const a2_instrs &p = t.prog(r);
    ASSERT_EQ(p.n, 5u);
    EXPECT_EQ(p.v[0].tile, 1 + r % 2);
    for (uint32_t i = 0; i < 4; i++) {
      EXPECT_EQ(p.v[1 + i].tile, 1 + i % 2);
      EXPECT_EQ(p.v[1 + i].tile_a, 0u);
      EXPECT_EQ(p.v[1 + i].tile_b, 1 + (i + 1) % 2);
      EXPECT_EQ(p.v[1 + i].len, 256u);
    }
  }
}

TEST(TileArrayTest, CubeTilesOfAnArrayInTextract) {
  Trace t(std::string(kHead) +
              "cube_cores 1\ntile l1[2] fp16[256] in l1\ntile a0 fp16[256] in l0a\n"
              "program cube 0\n  textract a0, l1[1][16:32]\nend\n" +
              kWork,
          1);
  ASSERT_TRUE(t.ok()) << t.Message();
  const a2_instrs &p = t.prog(0, 1);
  ASSERT_EQ(p.n, 1u);
  EXPECT_EQ(p.v[0].tile, 2u);
  EXPECT_EQ(p.v[0].tile_a, 1u);
  EXPECT_EQ(p.v[0].off2, 32u);
  EXPECT_EQ(t.k().tiles[1].space, A2_SPACE_L1);
}

TEST(TileArrayTest, AnIndexOutsideTheArrayNamesTheIndexTheBoundAndTheRank) {
  const std::string tiles = std::string(kHead) + "tile recv[2] fp32[64]\nprogram\n";
  EXPECT_TRUE(FailsAt(tiles + "  load recv[$rank + 1], x[0:64]\nend\n", 2, 4, 13,
                      "load: tile index 2 is outside 'recv' (2 tiles: 0..1) (rank 1)"));
  EXPECT_TRUE(FailsAt(tiles + "  store recv[$rank - 1], x[0:64]\nend\n", 2, 4, 14,
                      "store: tile index -1 is outside 'recv' (2 tiles: 0..1) (rank 0)"));
  EXPECT_TRUE(FailsAt(tiles + "  vadd recv[0], recv[1], recv[7], 4\nend\n", 2, 4, 31,
                      "vadd: tile index 7 is outside 'recv'"));
}

TEST(TileArrayTest, ParseErrorsNameThePlace) {
  const std::string two = std::string(kHead) + "tile recv[2] fp32[64]\n";
  EXPECT_TRUE(FailsAt(two + "program\n  load recv, x[0:64]\nend\n", 2, 4, 8,
                      "'recv' is an array of 2 tiles: name one, recv[INDEX]"));
  EXPECT_TRUE(FailsAt(two + "program\n  load recv[0, x[0:64]\nend\n", 2, 4, 14,
                      "expected ']' after the tile index, found ','"));
  EXPECT_TRUE(FailsAt(two + "program\n  load recvv[0], x[0:64]\nend\n", 2, 4, 8,
                      "unknown tile 'recvv' (did you mean 'recv'?)"));
  EXPECT_TRUE(FailsAt(two + "program\n  load recv[0], recv[0:64]\nend\n", 2, 4, 17,
                      "'recv' is a tile, not a buffer"));
  EXPECT_TRUE(
      FailsAt(two + "tile recv fp32[4]\n", 2, 3, 6, "tile 'recv' is already declared (line 2)"));
  EXPECT_TRUE(FailsAt(std::string("tile recv fp32[4]\ntile recv[2] fp32[4]\n"), 2, 2, 6,
                      "tile 'recv' is already declared (line 1)"));
  EXPECT_TRUE(FailsAt("tile recv[$nranks] fp32[4]\n", 2, 1, 11,
                      "expected the number of tiles of the array (a number"));
  EXPECT_TRUE(FailsAt("tile recv[0] fp32[4]\n", 2, 1, 11, "tile array of 0 tiles: expected 1..64"));
  EXPECT_TRUE(FailsAt("tile a fp32[1]\ntile recv[64] fp32[4]\n", 2, 2, 11,
                      "tile array of 64 tiles: expected 1..63 (at most 64 tiles in all, 1 declared "
                      "before)"));
  EXPECT_TRUE(FailsAt("tile recv[2 fp32[4]\n", 2, 1, 13, "expected ']' after the number of tiles"));
  const std::string n41(41, 'a');  // NAME[63] must fit a program tile's name
  EXPECT_TRUE(FailsAt("tile " + n41 + "[2] fp32[4]\n", 2, 1, 6,
                      "tile array name '" + n41 + "' is longer than 40 characters"));
  Trace ok("tile " + n41 + " fp32[4]\n" + std::string(kWork), 2);  // a single tile may
  EXPECT_TRUE(ok.ok()) << ok.Message();
}

TEST(TileArrayTest, ArrayTilesCountTowardsTheUnifiedBuffer) {
  Trace t("tile big[4] fp32[16384]\n" + std::string(kWork), 1);  // 4 x 64 KiB
  ASSERT_TRUE(t.ok()) << t.Message();
  a2_err e{};
  EXPECT_EQ(a2_program_validate(&t.k(), 192 * 1024, 48, "t.a2t", &e), A2_E_INPUT);
  EXPECT_NE(std::string(e.msg).find("tiles need 262144 bytes of unified buffer"), std::string::npos)
      << e.msg;
}

TEST(Signal2dTest, RowAndColumnAddressCellRowTimesColumnsPlusColumn) {
  Trace t(
      "signal sig[2, $nranks]\nsignal flat[4]\nprogram\n"
      "  notify sig@0[1, $rank] add 1\n"
      "  wait sig[$rank % 2, $nranks - 1] ge 1\n"
      "  notify flat@0[3] set 2\n"
      "end\n",
      3);
  ASSERT_TRUE(t.ok()) << t.Message();
  EXPECT_EQ(t.k().bufs[0].bytes, 2u * 3 * 4);
  EXPECT_EQ(t.k().bufs[0].kind, A2_BUF_SIGNAL);
  for (uint32_t r = 0; r < 3; r++) {
    const a2_instrs &p = t.prog(r);
    ASSERT_EQ(p.n, 3u);
    EXPECT_EQ(p.v[0].off, 4u * (1 * 3 + r));
    EXPECT_EQ(p.v[0].len, 4u);
    EXPECT_EQ(p.v[1].off, 4u * ((r % 2) * 3 + 2));
    EXPECT_EQ(p.v[2].off, 12u);
  }
}

TEST(Signal2dTest, EachIndexIsCheckedAgainstItsOwnBound) {
  const std::string sig = "signal sig[2, $nranks]\nprogram\n";
  // column 4 of row 0 would be cell 4 of the 8, inside the signal: still an error
  EXPECT_TRUE(FailsAt(sig + "  notify sig@0[0, $rank + 3] add 1\nend\n", 4, 3, 19,
                      "notify: column 4 is outside signal 'sig' of 2 rows x 4 columns (columns "
                      "0..3) (rank 1)"));
  EXPECT_TRUE(FailsAt(sig + "  wait sig[$rank, 0] ge 1\nend\n", 4, 3, 12,
                      "wait: row 2 is outside signal 'sig' of 2 rows x 4 columns (rows 0..1) "
                      "(rank 2)"));
  EXPECT_TRUE(FailsAt(sig + "  wait sig[0, -1] ge 1\nend\n", 4, 3, 15,
                      "wait: column -1 is outside signal 'sig'"));
}

TEST(Signal2dTest, ParseErrorsNameThePlace) {
  EXPECT_TRUE(FailsAt("signal sig[2, 4]\nprogram\n  wait sig[1] ge 1\nend\n", 2, 3, 13,
                      "expected ',' and a column: signal 'sig' has rows and columns, sig[ROW, "
                      "COL], found ']'"));
  EXPECT_TRUE(FailsAt("signal s[8]\nprogram\n  notify s@0[1, 2] add 1\nend\n", 2, 3, 15,
                      "signal 's' has one dimension: one cell index, not [ROW, COL]"));
  EXPECT_TRUE(FailsAt("tensor x fp32[4, 4]\n", 2, 1, 16,
                      "only a signal takes two dimensions, [ROWS, COLS]: a tensor has one"));
  EXPECT_TRUE(FailsAt("signal sig[2, 4\n", 2, 1, 16, "expected ']' after the column count"));
  EXPECT_TRUE(
      FailsAt("signal sig[8 4]\n", 2, 1, 14, "expected ']' (or ', COLS') after the cell count"));
  EXPECT_TRUE(
      FailsAt("signal sig[-1, 4]\n" + std::string(kWork), 2, 1, 12, "row count -1 is negative"));
  EXPECT_TRUE(FailsAt("signal sig[2, $nranks - 3]\n" + std::string(kWork), 2, 1, 15,
                      "column count -1 is negative"));
}

}  // namespace
}  // namespace a2test
