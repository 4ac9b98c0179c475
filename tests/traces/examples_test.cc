// Tests for the example traces in traces/examples/: they load at the rank
// counts they support, pass the static checks (traces/validate.h) and
// expand to the tutorial algorithms' instruction sequences.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "traces/text.h"
#include "traces/validate.h"

namespace {

constexpr uint64_t kUb = 192 * 1024;  // the default chip's unified buffer
constexpr uint32_t kCores = 48;

std::string Example(const char *file) {
  return std::string(A2_SOURCE_DIR) + "/traces/examples/" + file;
}

// Loads and validates an example at P ranks; returns the program (caller frees).
a2_program LoadValid(const char *file, uint32_t P) {
  a2_program k;
  a2_err e{};
  std::string path = Example(file);
  EXPECT_EQ(a2_program_load(path.c_str(), P, &k, &e), A2_OK)
      << e.file << ":" << e.line << ":" << e.col << ": " << e.msg;
  EXPECT_EQ(a2_program_validate(&k, kUb, kCores, path.c_str(), &e), A2_OK)
      << "line " << e.line << ": " << e.msg;
  return k;
}

std::vector<a2_opcode> Ops(const a2_instrs &p) {
  std::vector<a2_opcode> v;
  for (uint32_t i = 0; i < p.n; i++) v.push_back((a2_opcode)p.v[i].op);
  return v;
}

TEST(TraceExamplesTest, MeshLoadsAndValidatesAtTwoThreeAndFourRanks) {
  for (uint32_t P : {2u, 3u, 4u}) {
    SCOPED_TRACE("P=" + std::to_string(P));
    a2_program k = LoadValid("allreduce_mesh.a2t", P);
    EXPECT_EQ(k.golden.kind, A2_GOLDEN_ALLREDUCE);
    EXPECT_EQ(k.golden.bytes, 256u);
    EXPECT_EQ(k.card_read_bytes, (P - 1) * 256u);
    EXPECT_EQ(k.card_rounds, 1u);
    for (uint32_t r = 0; r < P; r++) {
      const a2_instrs &p = k.progs[r];
      // stage-in 2, barrier 2(P-1), accumulate 1 + 2(P-1), stage-out 1
      ASSERT_EQ(p.n, 4 + 4 * (P - 1));
      EXPECT_EQ(p.v[2].op, A2_OP_NOTIFY);
      EXPECT_EQ(p.v[2].off, 4u * r);  // cell $rank of the peer
      EXPECT_EQ(p.v[p.n - 2].op, A2_OP_VADD);
      EXPECT_EQ(p.v[p.n - 1].op, A2_OP_STORE);
    }
    a2_program_free(&k);
  }
}

TEST(TraceExamplesTest, TwoPhaseLoadsAndValidatesAtTwoAndFourRanks) {
  for (uint32_t P : {2u, 4u}) {
    SCOPED_TRACE("P=" + std::to_string(P));
    a2_program k = LoadValid("allreduce_two_phase.a2t", P);
    EXPECT_EQ(k.bufs[4].bytes, 8u * P);  // two signal rows
    EXPECT_EQ(k.card_read_bytes, 2u * (P - 1) * (256 / P));
    EXPECT_EQ(k.card_rounds, 2u);
    uint32_t B = 256 / P;
    for (uint32_t r = 0; r < P; r++) {
      const a2_instrs &p = k.progs[r];
      std::vector<a2_opcode> want = {A2_OP_LOAD, A2_OP_STORE};
      for (uint32_t i = 0; i + 1 < P; i++) want.push_back(A2_OP_NOTIFY);
      for (uint32_t i = 0; i + 1 < P; i++) want.push_back(A2_OP_WAIT);
      want.push_back(A2_OP_LOAD);
      for (uint32_t i = 0; i + 1 < P; i++) {
        want.push_back(A2_OP_RLOAD);
        want.push_back(A2_OP_VADD);
      }
      want.push_back(A2_OP_STORE);
      for (uint32_t i = 0; i + 1 < P; i++) want.push_back(A2_OP_NOTIFY);
      for (uint32_t i = 0; i + 1 < P; i++) want.push_back(A2_OP_WAIT);
      for (uint32_t i = 0; i < P; i++) {
        want.push_back(A2_OP_RLOAD);
        want.push_back(A2_OP_STORE);
      }
      ASSERT_EQ(Ops(p), want);
      const a2_instr &rs = p.v[2 * P + 1];  // the first reduce-scatter read
      EXPECT_EQ(rs.off, r * B);
      EXPECT_EQ(rs.len, B);
      const a2_instr &barrier_b = p.v[4 * P];  // barrier B's first notify: row 1
      EXPECT_EQ(barrier_b.op, A2_OP_NOTIFY);
      EXPECT_EQ(barrier_b.off, 4u * (P + r));
      const a2_instr &ag = p.v[p.n - 2];  // all-gather of the last chunk, from its owner
      EXPECT_EQ(ag.peer, (int32_t)(P - 1));
      EXPECT_EQ(ag.off, (P - 1) * B);
    }
    a2_program_free(&k);
  }
}

}  // namespace
