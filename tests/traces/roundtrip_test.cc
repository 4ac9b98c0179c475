// Tests for a2_program_write: loading what it writes gives the same program,
// field by field (except instruction lines, which become lines of the
// written file), for the built-in generators and for a program using every
// instruction, golden kind and declaration; programs the format cannot
// express are refused without writing anything.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/builder.h"
#include "collectives/collective.h"
#include "trace_util.h"

namespace {

using a2test::Trace;

// The trace text of k, or "" (and a test failure) when writing fails.
std::string Write(const a2_program &k, a2_code want = A2_OK) {
  char *buf = nullptr;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  a2_err e{};
  a2_code rc = a2_program_write(&k, f, &e);
  fclose(f);
  std::string s(buf, size);
  free(buf);
  EXPECT_EQ(rc, want) << e.msg;
  return rc ? "" : s;
}

void ExpectSameInstr(const a2_instr &a, const a2_instr &b, const std::string &where) {
  EXPECT_EQ(a.op, b.op) << where;
  EXPECT_EQ(a.mode, b.mode) << where;
  EXPECT_EQ(a.tile, b.tile) << where;
  EXPECT_EQ(a.tile_a, b.tile_a) << where;
  EXPECT_EQ(a.tile_b, b.tile_b) << where;
  EXPECT_EQ(a.buf, b.buf) << where;
  EXPECT_EQ(a.peer, b.peer) << where;
  EXPECT_EQ(a.value, b.value) << where;
  EXPECT_EQ(a.off, b.off) << where;
  EXPECT_EQ(a.len, b.len) << where;
  EXPECT_EQ(a.buf2, b.buf2) << where;
  EXPECT_EQ(a.queue, b.queue) << where;
  EXPECT_EQ(a.chunk, b.chunk) << where;
  EXPECT_EQ(a.off2, b.off2) << where;
}

// Every field of two programs, except the instructions' lines.
void ExpectSameProgram(const a2_program &a, const a2_program &b) {
  ASSERT_EQ(a.nranks, b.nranks);
  ASSERT_EQ(a.ncores, b.ncores);
  ASSERT_EQ(a.nbufs, b.nbufs);
  ASSERT_EQ(a.ntiles, b.ntiles);
  for (uint32_t i = 0; i < a.nbufs; i++) {
    EXPECT_STREQ(a.bufs[i].name, b.bufs[i].name);
    EXPECT_EQ(a.bufs[i].kind, b.bufs[i].kind) << a.bufs[i].name;
    EXPECT_EQ(a.bufs[i].dtype, b.bufs[i].dtype) << a.bufs[i].name;
    EXPECT_EQ(a.bufs[i].bytes, b.bufs[i].bytes) << a.bufs[i].name;
    EXPECT_EQ(a.init[i], b.init[i]) << a.bufs[i].name;
  }
  for (uint32_t i = 0; i < a.ntiles; i++) {
    EXPECT_STREQ(a.tiles[i].name, b.tiles[i].name);
    EXPECT_EQ(a.tiles[i].dtype, b.tiles[i].dtype) << a.tiles[i].name;
    EXPECT_EQ(a.tiles[i].bytes, b.tiles[i].bytes) << a.tiles[i].name;
    EXPECT_EQ(a.tiles[i].space, b.tiles[i].space) << a.tiles[i].name;
  }
  EXPECT_EQ(a.ncube, b.ncube);
  EXPECT_EQ(a.gemm.b_buf, b.gemm.b_buf);
  EXPECT_EQ(a.gemm.m, b.gemm.m);
  EXPECT_EQ(a.gemm.k, b.gemm.k);
  EXPECT_EQ(a.gemm.n, b.gemm.n);
  EXPECT_EQ(a.gemm.bm, b.gemm.bm);
  EXPECT_EQ(a.gemm.bk, b.gemm.bk);
  EXPECT_EQ(a.gemm.bn, b.gemm.bn);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.golden.kind, b.golden.kind);
  EXPECT_EQ(a.golden.op, b.golden.op);
  EXPECT_EQ(a.golden.in_buf, b.golden.in_buf);
  EXPECT_EQ(a.golden.out_buf, b.golden.out_buf);
  EXPECT_EQ(a.golden.bytes, b.golden.bytes);
  EXPECT_EQ(a.golden.root, b.golden.root);
  EXPECT_STREQ(a.algo, b.algo);
  EXPECT_EQ(a.size_bytes, b.size_bytes);
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.uses_dma, b.uses_dma);
  EXPECT_EQ(a.has_card, b.has_card);
  EXPECT_EQ(a.card_read_bytes, b.card_read_bytes);
  EXPECT_EQ(a.card_write_bytes, b.card_write_bytes);
  EXPECT_EQ(a.card_rounds, b.card_rounds);
  for (uint32_t r = 0; r < a.nranks; r++)
    for (uint32_t c = 0; c < a.ncores; c++) {
      const a2_instrs &pa = a.progs[r * a.ncores + c], &pb = b.progs[r * b.ncores + c];
      ASSERT_EQ(pa.n, pb.n) << "rank " << r << " core " << c;
      for (uint32_t i = 0; i < pa.n; i++)
        ExpectSameInstr(pa.v[i], pb.v[i],
                        "rank " + std::to_string(r) + " core " + std::to_string(c) +
                            " instruction " + std::to_string(i));
    }
}

// Each loaded instruction's line is a line of `text` that starts with its
// instruction name.
void ExpectLinesPointAtInstructions(const a2_program &k, const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (size_t p = 0; p < (size_t)k.nranks * k.ncores; p++)
    for (uint32_t i = 0; i < k.progs[p].n; i++) {
      const a2_instr &x = k.progs[p].v[i];
      ASSERT_GE(x.line, 1u);
      ASSERT_LE(x.line, lines.size());
      std::string want = std::string("  ") + a2_op_name((a2_opcode)x.op) + " ";
      EXPECT_EQ(lines[x.line - 1].compare(0, want.size(), want), 0)
          << "line " << x.line << ": " << lines[x.line - 1];
    }
}

// write -> load -> compare, and the written file written again is the same text.
void RoundTrip(const a2_program &k) {
  std::string text = Write(k);
  ASSERT_FALSE(text.empty());
  Trace t(text, k.nranks, "written.a2t");
  ASSERT_TRUE(t.ok()) << t.Message() << "\n" << text;
  ExpectSameProgram(k, t.k());
  ExpectLinesPointAtInstructions(t.k(), text);
  EXPECT_EQ(Write(t.k()), text);
}

struct GenCase {
  const char *algo;
  uint32_t P;
  uint64_t size;
  a2_dtype dt;
  a2_reduce_op op;
  uint64_t ub;
};

// Named, so gtest does not print the struct's (uninitialised) padding bytes.
void PrintTo(const GenCase &c, std::ostream *os) {
  *os << c.algo << " P=" << c.P << " N=" << c.size << " " << a2_dtype_name(c.dt);
}

class GeneratorRoundTrip : public ::testing::TestWithParam<GenCase> {};

TEST_P(GeneratorRoundTrip, LoadOfWriteEqualsTheGeneratedProgram) {
  const GenCase &c = GetParam();
  const a2_collective *coll = a2_collective_find(c.algo);
  ASSERT_NE(coll, nullptr);
  a2_coll_params p{};
  p.nranks = c.P;
  p.size_bytes = c.size;
  p.cores = 1;
  p.op = c.op;
  p.dtype = c.dt;
  p.ub_bytes = c.ub;
  p.seed = 42;
  a2_err e{};
  ASSERT_EQ(coll->check ? coll->check(&p, &e) : A2_OK, A2_OK) << e.msg;
  a2_program k{};
  ASSERT_EQ(coll->gen(&p, &k, &e), A2_OK) << e.msg;
  // what `gen` adds so that a run of the file reports like the built-in
  snprintf(k.algo, sizeof k.algo, "%s", c.algo);
  k.size_bytes = c.size;
  k.op = c.op;
  k.dtype = c.dt;
  RoundTrip(k);
  a2_program_free(&k);
}

std::vector<GenCase> GenCases() {
  std::vector<GenCase> v;
  for (const char *algo : {"allreduce_mesh", "allreduce_two_phase", "allreduce_ring"})
    for (uint32_t P : {2u, 3u, 4u}) {
      v.push_back({algo, P, 384, A2_FP32, A2_RED_SUM, 192 * 1024});
      v.push_back({algo, P, 3072, A2_FP16, A2_RED_MAX, 1024});  // several chunks per slice
    }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Collectives, GeneratorRoundTrip, ::testing::ValuesIn(GenCases()),
                         [](const ::testing::TestParamInfo<GenCase> &i) {
                           return std::string(i.param.algo) + "_P" + std::to_string(i.param.P) +
                                  "_" + a2_dtype_name(i.param.dt);
                         });

// A program with two cores, every instruction, mode and storage kind.
void BuildEverything(a2_program *k, a2_golden_kind g) {
  a2_err e{};
  a2_tb tb;
  ASSERT_EQ(a2_tb_begin(&tb, k, 3, 2, &e), A2_OK);
  k->seed = 9;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, A2_FP16, 96, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, A2_FP16, 96, A2_INIT_ZERO);
  uint16_t w = a2_tb_buf(&tb, "win", A2_BUF_WINDOW, A2_FP16, 96, A2_INIT_ZERO);
  uint16_t wi = a2_tb_buf(&tb, "wi", A2_BUF_WINDOW, A2_INT32, 64, A2_INIT_ZERO);
  uint16_t s = a2_tb_buf(&tb, "sig", A2_BUF_SIGNAL, A2_INT32, 24, A2_INIT_ZERO);
  uint16_t a = a2_tb_tile(&tb, "a", A2_FP16, 32);
  uint16_t b = a2_tb_tile(&tb, "b", A2_FP16, 32);
  uint16_t ti = a2_tb_tile(&tb, "ti", A2_INT32, 16);
  k->golden = a2_golden{g, A2_RED_MIN, x, y, 32, 2};
  if (!a2_golden_has_op(g)) k->golden.op = A2_RED_SUM;  // kinds without a reduction load it as sum
  if (!a2_golden_has_root(g)) k->golden.root = 0;
  if (g == A2_GOLDEN_NONE) k->golden = a2_golden{};
  k->has_card = 1;
  k->card_read_bytes = 1234;
  k->card_write_bytes = 5;
  k->card_rounds = 3;
  k->uses_dma = 1;  // the put and get below (the reader sets it for them)
  for (uint32_t r = 0; r < 3; r++)
    for (uint32_t c = 0; c < 2; c++) {
      if (r == 1 && c == 1) continue;  // one empty program
      a2_tb_at(&tb, r, c);
      a2_tb_load(&tb, a, x, 2 * r, 8);
      a2_tb_store(&tb, a, w, 4, 8);
      a2_tb_rload(&tb, b, w, (r + 1) % 3, 6, 10);
      a2_tb_rstore(&tb, b, w, (r + 2) % 3, 0, 32, 0);
      a2_tb_rstore(&tb, ti, wi, r, 8, 16, 1);
      a2_tb_notify(&tb, s, (r + 1) % 3, r, A2_MODE_SET, -5);
      a2_tb_notify(&tb, s, (r + 1) % 3, 3 + c, A2_MODE_ADD, 1);
      a2_tb_wait(&tb, s, 5, A2_MODE_EQ, 7);
      a2_tb_wait(&tb, s, 0, A2_MODE_GE, 1);
      a2_tb_vop(&tb, A2_OP_VADD, a, a, b, 32);
      a2_tb_vop(&tb, A2_OP_VMAX, b, a, b, 2);
      a2_tb_vop(&tb, A2_OP_VMIN, a, b, a, 4);
      a2_tb_vop(&tb, A2_OP_VMUL, ti, ti, ti, 16);
      a2_tb_compute(&tb, 1000 + (int32_t)r);
      ASSERT_EQ(tb.rc, A2_OK);
      a2_instrs *p = a2_program_instrs(k, r, c);
      a2_instr put{};
      put.op = A2_OP_PUT;
      put.buf = w;
      put.peer = 2;
      put.off = 2;
      put.len = 64;
      put.buf2 = x;
      put.off2 = 30;
      put.chunk = 16;
      put.mode = A2_MODE_PIPELINE | A2_MODE_DMA_ATOMIC_ADD;
      put.queue = 3;
      ASSERT_EQ(a2_instrs_push(p, &put, &e), A2_OK);
      a2_instr get{};
      get.op = A2_OP_GET;
      get.buf = y;
      get.off = 0;
      get.len = 96;
      get.buf2 = w;
      get.peer = 0;
      get.off2 = 0;
      get.queue = A2_QUEUE_ANY;
      ASSERT_EQ(a2_instrs_push(p, &get, &e), A2_OK);
      get.chunk = 0;
      get.mode = A2_MODE_PIPELINE;  // pipeline without chunking: written as "chunk 0 pipeline"
      ASSERT_EQ(a2_instrs_push(p, &get, &e), A2_OK);
    }
}

TEST(TraceRoundTripTest, EveryInstructionGoldenKindAndDeclarationSurvives) {
  for (int g = A2_GOLDEN_NONE; g < A2_GOLDEN_KINDS; g++) {
    if (a2_golden_is_gemm(g)) continue;  // their own test below
    SCOPED_TRACE("golden kind " + std::to_string(g));
    a2_program k{};
    BuildEverything(&k, (a2_golden_kind)g);
    RoundTrip(k);
    a2_program_free(&k);
  }
}

// Cube cores: their count, tile spaces, `program cube` blocks, the four
// cube instructions and golden gemm_allreduce survive a write and a load.
TEST(TraceRoundTripTest, CubeCoresTheirTilesInstructionsAndGoldenSurvive) {
  std::string path = std::string(A2_SOURCE_DIR) + "/traces/examples/gemm_allreduce_fused.a2t";
  for (uint32_t P : {1u, 2u}) {
    a2_program k;
    a2_err e{};
    ASSERT_EQ(a2_program_load(path.c_str(), P, &k, &e), A2_OK) << e.msg;
    EXPECT_EQ(k.ncube, 2u);
    EXPECT_EQ(k.ncores, 4u);
    EXPECT_EQ(k.golden.kind, A2_GOLDEN_GEMM_ALLREDUCE);
    std::string text = Write(k);
    EXPECT_NE(text.find("cube_cores 2\n"), std::string::npos);
    EXPECT_NE(text.find(" in l0c\n"), std::string::npos);
    EXPECT_NE(text.find("program rank 0 cube 1\n"), std::string::npos);
    EXPECT_NE(text.find("  tmatmul acc, a0q, b0q, 128, 64, 256 acc\n"), std::string::npos);
    Trace back(text, P);
    ASSERT_TRUE(back.ok()) << back.Message();
    ExpectSameProgram(k, back.k());
    a2_program_free(&k);
  }
  a2_program k;
  a2_err e{};
  std::string ag = std::string(A2_SOURCE_DIR) + "/traces/examples/allgather_gemm.a2t";
  ASSERT_EQ(a2_program_load(ag.c_str(), 4, &k, &e), A2_OK) << e.msg;
  EXPECT_EQ(k.golden.kind, A2_GOLDEN_ALLGATHER_GEMM);
  Trace back(Write(k), 4);
  ASSERT_TRUE(back.ok()) << back.Message();
  ExpectSameProgram(k, back.k());
  a2_program_free(&k);
}

TEST(TraceRoundTripTest, WrittenFileHasTheDocumentedHeader) {
  a2_program k{};
  BuildEverything(&k, A2_GOLDEN_ALLREDUCE);
  snprintf(k.algo, sizeof k.algo, "allreduce_mesh");
  k.size_bytes = 256;
  k.root = 1;
  k.op = A2_RED_PROD;
  k.dtype = A2_FP16;
  std::string text = Write(k);
  EXPECT_NE(text.find("\nbuiltin allreduce_mesh size 256 root 1 op prod dtype fp16\nranks 3\n"
                      "cores 2\nseed 9\ntensor x fp16[48] = pattern\ntensor y fp16[48]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\ngolden allreduce min x -> y 16\ncard remote_read 1234 remote_write 5 "
                      "rounds 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nprogram rank 0 core 1\n  load a, x[0:4]\n"), std::string::npos);
  EXPECT_NE(text.find("  notify sig@1[0] set -5\n"), std::string::npos);
  EXPECT_NE(text.find("  put win@2[1:32], x[15] atomic_add queue 3 chunk 8 pipeline\n"),
            std::string::npos);
  EXPECT_NE(text.find("  get y[0:48], win@0[0] chunk 0 pipeline\n"), std::string::npos);
  EXPECT_EQ(text.find("program rank 1 core 1"), std::string::npos);  // empty: not written
  RoundTrip(k);
  a2_program_free(&k);
}

TEST(TraceRoundTripTest, ProgramsTheFormatCannotExpressAreRefusedWithoutOutput) {
  a2_program k{};
  BuildEverything(&k, A2_GOLDEN_ALLREDUCE);
  k.progs[0].v[0].off = 3;  // inside an fp16 element
  char *buf = nullptr;
  size_t size = 0;
  FILE *f = open_memstream(&buf, &size);
  a2_err e{};
  EXPECT_EQ(a2_program_write(&k, f, &e), A2_E_INTERNAL);
  fclose(f);
  EXPECT_EQ(size, 0u);
  free(buf);
  EXPECT_NE(std::string(e.msg).find("rank 0 core 0 instruction 0"), std::string::npos) << e.msg;
  EXPECT_NE(std::string(e.msg).find("not a whole number"), std::string::npos) << e.msg;
  k.progs[0].v[0].off = 2;
  snprintf(k.bufs[1].name, sizeof k.bufs[1].name, "has space");
  Write(k, A2_E_INTERNAL);
  snprintf(k.bufs[1].name, sizeof k.bufs[1].name, "x");  // a duplicate
  Write(k, A2_E_INTERNAL);
  snprintf(k.bufs[1].name, sizeof k.bufs[1].name, "y");
  k.golden.bytes = 3;
  Write(k, A2_E_INTERNAL);
  k.golden.bytes = 32;
  Write(k);
  a2_program_free(&k);
}

}  // namespace

namespace {

std::string ReadExample(const char *f) {
  std::ifstream in(std::string(A2_SOURCE_DIR) + "/traces/examples/" + f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Tile arrays are written as tile arrays (their tiles are NAME[0], NAME[1],
// ...), 2-D signals as their cells; loading the text gives the same program.
TEST(TraceRoundTripTest, TileArraysAndTwoDimensionalSignalsSurvive) {
  for (const char *f : {"allreduce_two_phase_db.a2t", "gather_mesh.a2t", "reduce_mesh.a2t"}) {
    SCOPED_TRACE(f);
    Trace t(ReadExample(f), 4, "ex.a2t");
    ASSERT_TRUE(t.ok()) << t.Message();
    std::string text = Write(t.k());
    EXPECT_NE(text.find("[2] fp32[64]\n"), std::string::npos) << text;
    RoundTrip(t.k());
  }
}

// A tile named like an array element but not part of a whole array
// (NAME[1] without NAME[0], or beside a tile NAME) is refused, not written.
TEST(TraceRoundTripTest, TileNamesThatAreNotAWholeArrayAreRefused) {
  Trace t(ReadExample("allreduce_two_phase_db.a2t"), 2, "ex.a2t");
  ASSERT_TRUE(t.ok()) << t.Message();
  a2_program k = t.k();  // shallow: only the tile names change below
  snprintf(k.tiles[0].name, sizeof k.tiles[0].name, "recv");  // beside recv[0], recv[1]
  EXPECT_EQ(Write(k, A2_E_INTERNAL), "");
  snprintf(k.tiles[0].name, sizeof k.tiles[0].name, "acc");
  snprintf(k.tiles[1].name, sizeof k.tiles[1].name, "recv[2]");  // recv[2], recv[1]
  EXPECT_EQ(Write(k, A2_E_INTERNAL), "");
}

}  // namespace
