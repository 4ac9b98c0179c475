// The registry and the generators through the C API, without simulating:
// every row is complete and findable, its nccl-tests factors, the report
// metadata every generator stores in the program, the validity of every
// generated program, the block-cyclic split of the multi-core mesh, the
// put/get encoding of the builder, and the parameter refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "builtins.h"
#include "coll_params.h"
#include "collectives/collective.h"
#include "traces/validate.h"

namespace a2test {
namespace {

a2_coll_params Params(uint32_t P, uint64_t N) {
  return DefaultParams(P, N);
}

struct Program {
  a2_program k{};
  ~Program() { a2_program_free(&k); }
};

TEST(Registry, EveryRowIsCompleteAndFoundByName) {
  uint32_t n = 0;
  const a2_collective *t = a2_collective_table(&n);
  std::set<std::string> names;
  for (uint32_t i = 0; i < n; i++) {
    SCOPED_TRACE(t[i].name);
    EXPECT_TRUE(names.insert(t[i].name).second) << "duplicate name";
    EXPECT_GT(std::strlen(t[i].summary), 0u);
    EXPECT_GT(std::strlen(t[i].card_formula), 0u);
    EXPECT_TRUE(t[i].size_factor && t[i].busbw_factor && t[i].check && t[i].gen && t[i].def &&
                t[i].card && t[i].closed_form_ps);
    EXPECT_EQ(a2_collective_find(t[i].name), &t[i]);
  }
  EXPECT_EQ(a2_collective_find("allreduce_tree"), nullptr);
  // the tests' table (builtins.h) lists exactly the registry's collectives
  EXPECT_EQ(n, AllCollectives().size() + FusedCollectives().size());
  for (const Builtin &l : AllCollectives()) EXPECT_EQ(names.count(l.algo), 1u) << l.algo;
  for (const std::string &f : FusedCollectives()) EXPECT_EQ(names.count(f), 1u) << f;
}

TEST(Registry, NcclTestsSizeAndBusFactors) {
  const double P = 8;
  struct {
    const char *algo;
    double size, bus;
  } want[] = {
      {"allreduce_mesh", 1, 2 * (P - 1) / P},
      {"allreduce_ring", 1, 2 * (P - 1) / P},
      {"broadcast", 1, 1},
      {"allgather", P, (P - 1) / P},
      {"reduce_scatter", P, (P - 1) / P},
      {"all_to_all", P, (P - 1) / P},
      {"barrier", 0, 1},
  };
  for (const auto &w : want) {
    SCOPED_TRACE(w.algo);
    const a2_collective *c = a2_collective_find(w.algo);
    ASSERT_NE(c, nullptr);
    EXPECT_DOUBLE_EQ(c->size_factor(8), w.size);
    EXPECT_DOUBLE_EQ(c->busbw_factor(8), w.bus);
  }
}

TEST(Generators, StoreTheirReportMetadataAndValidate) {
  for (const Builtin &l : AllCollectives()) {
    SCOPED_TRACE(l.algo);
    const a2_collective *c = a2_collective_find(l.algo);
    a2_coll_params p = Params(4, 4096);
    p.root = 2;
    p.op = l.sum_only ? A2_RED_SUM : A2_RED_MAX;
    p.dtype = A2_FP16;
    a2_err e{};
    Program k;
    ASSERT_EQ(c->check(&p, &e), A2_OK) << e.msg;
    ASSERT_EQ(c->gen(&p, &k.k, &e), A2_OK) << e.msg;
    EXPECT_STREQ(k.k.algo, l.algo);
    EXPECT_EQ(k.k.size_bytes, 4096u);
    EXPECT_EQ(k.k.root, l.rooted ? 2u : 0u);
    EXPECT_EQ(k.k.op, (uint32_t)p.op);
    EXPECT_EQ(k.k.dtype, A2_FP16);
    EXPECT_EQ(k.k.seed, 1u);
    // --cores 1: one core a rank; the double ring's two rings are two cores,
    // the all-reduce pipeline's four parts four, the other pipelines' ring
    // and server steps two
    const std::string a = l.algo;
    bool two =
        a == "allreduce_double_ring" || a == "allgather_pipeline" || a == "reduce_scatter_pipeline";
    EXPECT_EQ(k.k.ncores, two ? 2u : a == "allreduce_pipeline" ? 4u : 1u);
    EXPECT_EQ(k.k.golden.root, l.rooted ? 2u : 0u);
    EXPECT_EQ(a2_program_validate(&k.k, p.ub_bytes, 48, l.algo, &e), A2_OK) << e.msg;
    a2_card card;
    c->card(&p, &card);
    uint64_t read = 0, write = 0;
    for (uint32_t r = 0; r < 4; r++) {
      read = std::max(read, l.read(4, 4096, r, 2));
      write = std::max(write, l.write(4, 4096, r, 2));
    }
    EXPECT_EQ(card.remote_read_bytes, (double)read);
    EXPECT_EQ(card.remote_write_bytes, (double)write);
    EXPECT_EQ(card.barrier_rounds, l.rounds(4));
  }
}

TEST(Generators, OneRankNeedsNoPeer) {
  for (const Builtin &l : AllCollectives()) {
    if (std::string(l.algo) == "allreduce_ring") continue;  // refuses P = 1
    SCOPED_TRACE(l.algo);
    const a2_collective *c = a2_collective_find(l.algo);
    a2_coll_params p = Params(1, 1024);
    a2_err e{};
    Program k;
    ASSERT_EQ(c->check(&p, &e), A2_OK) << e.msg;
    ASSERT_EQ(c->gen(&p, &k.k, &e), A2_OK) << e.msg;
    EXPECT_EQ(a2_program_validate(&k.k, p.ub_bytes, 48, l.algo, &e), A2_OK) << e.msg;
    for (uint32_t i = 0; i < k.k.progs[0].n; i++) {
      const a2_instr &in = k.k.progs[0].v[i];
      EXPECT_TRUE(in.op != A2_OP_WAIT && in.op != A2_OP_NOTIFY) << "step " << in.line;
    }
    a2_card card;
    c->card(&p, &card);
    EXPECT_EQ(card.remote_read_bytes + card.remote_write_bytes, 0.0);
    EXPECT_EQ(card.barrier_rounds, 0u);
  }
}

// Core c of every rank loads exactly the 256-element tiles t with t % C == c
// and waits only on its own lane of the signal [P, C].
TEST(MeshCores, TilesAreBlockCyclicAndLanesPerCore) {
  const uint32_t P = 3, C = 4;
  const uint64_t tile = 256 * 4, N = 10 * tile + 100;  // 11 tiles, the last partial
  a2_coll_params p = Params(P, N);
  p.cores = C;
  a2_err e{};
  Program k;
  ASSERT_EQ(a2_collective_find("allreduce_mesh")->gen(&p, &k.k, &e), A2_OK) << e.msg;
  ASSERT_EQ(k.k.ncores, C);
  ASSERT_EQ(a2_program_validate(&k.k, p.ub_bytes, 48, "mesh", &e), A2_OK) << e.msg;
  uint16_t x = k.k.golden.in_buf;
  for (uint32_t r = 0; r < P; r++)
    for (uint32_t c = 0; c < C; c++) {
      SCOPED_TRACE("rank " + std::to_string(r) + " core " + std::to_string(c));
      const a2_instrs &pr = k.k.progs[r * C + c];
      uint64_t loaded = 0, waits = 0;
      for (uint32_t i = 0; i < pr.n; i++) {
        const a2_instr &in = pr.v[i];
        if (in.op == A2_OP_LOAD && in.buf == x) {
          EXPECT_EQ(in.off % tile, 0u);
          EXPECT_EQ(in.off / tile % C, c);
          loaded += in.len;
        }
        if (in.op == A2_OP_WAIT || in.op == A2_OP_NOTIFY) {
          EXPECT_EQ(in.off / 4 % C, c);
        }
        waits += in.op == A2_OP_WAIT;
      }
      uint64_t tiles = (11 - c + C - 1) / C;  // tiles c, c+C, ... below 11
      uint64_t want = tiles * tile - (c == 10 % C ? tile - 100 : 0);
      EXPECT_EQ(loaded, want);
      EXPECT_EQ(waits, P - 1u);
    }
}

TEST(Builder, PutAndGetEncodeBothRegionsChunkPipelineQueueAndAtomicAdd) {
  a2_program k{};
  a2_err e{};
  a2_tb tb;
  ASSERT_EQ(a2_tb_begin(&tb, &k, 2, 1, &e), A2_OK);
  EXPECT_EQ(k.uses_dma, 0);
  a2_tb_dma how{1024, 1, 1, 5};
  a2_tb_put(&tb, 3, 1, 64, 4096, 2, 128, &how);
  a2_tb_get(&tb, 4, 32, 2048, 5, 1, 256, nullptr);
  ASSERT_EQ(tb.rc, A2_OK);
  EXPECT_EQ(k.uses_dma, 1);  // the model builds the DMA engines for it
  const a2_instr &put = k.progs[0].v[0], &get = k.progs[0].v[1];
  EXPECT_EQ(put.op, A2_OP_PUT);
  EXPECT_EQ(put.buf, 3);
  EXPECT_EQ(put.peer, 1);
  EXPECT_EQ(put.off, 64u);
  EXPECT_EQ(put.len, 4096u);
  EXPECT_EQ(put.buf2, 2);
  EXPECT_EQ(put.off2, 128u);
  EXPECT_EQ(put.chunk, 1024u);
  EXPECT_EQ(put.mode, A2_MODE_PIPELINE | A2_MODE_DMA_ATOMIC_ADD);
  EXPECT_EQ(put.queue, 5);
  EXPECT_EQ(get.op, A2_OP_GET);
  EXPECT_EQ(get.buf, 4);
  EXPECT_EQ(get.off, 32u);
  EXPECT_EQ(get.len, 2048u);
  EXPECT_EQ(get.buf2, 5);
  EXPECT_EQ(get.peer, 1);
  EXPECT_EQ(get.off2, 256u);
  EXPECT_EQ(get.chunk, 0u);
  EXPECT_EQ(get.mode, 0);
  EXPECT_EQ(get.queue, A2_QUEUE_ANY);
  EXPECT_EQ(get.line, put.line + 1);
  a2_program_free(&k);
}

// The refusals name the flag to change.
TEST(Checks, RefusalsNameTheirFlag) {
  struct {
    const char *algo;
    uint32_t P, cores, root, max_cores;
    uint64_t N;
    const char *flag;
  } cases[] = {
      {"allreduce_mesh", 4, 49, 0, 48, 4096, "--cores"},
      {"allreduce_mesh", 4, 0, 0, 48, 4096, "--cores"},
      {"allreduce_mesh", 4, 4, 0, 48, 4098, "--size"},
      {"allgather", 4, 49, 0, 48, 4096, "--cores"},
      {"all_to_all_pairwise", 4, 2, 0, 48, 4096, "--cores"},
      {"allreduce_two_phase", 4, 49, 0, 48, 4096, "--cores"},
      {"broadcast", 4, 1, 4, 48, 4096, "--root"},
      {"compose_bcast_allreduce_allgather", 4, 1, 7, 48, 4096, "--root"},
      {"reduce_scatter", 4, 1, 0, 48, 6, "--size"},
      {"allreduce_ring", 1, 1, 0, 48, 4096, "--ranks"},
      {"allreduce_two_phase", 3, 1, 0, 48, 4096, "--size"},
      {"allreduce_sdma_mesh", 3, 1, 0, 48, 4096, "--size"},
      {"allreduce_sdma_mesh", 4, 2, 0, 48, 4096, "--cores"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(std::string(c.algo) + " " + c.flag);
    a2_coll_params p = Params(c.P, c.N);
    p.cores = c.cores;
    p.root = c.root;
    p.max_cores = c.max_cores;
    a2_err e{};
    EXPECT_EQ(a2_collective_find(c.algo)->check(&p, &e), A2_E_INPUT);
    EXPECT_STREQ(e.file, c.flag) << e.msg;
  }
  a2_coll_params p = Params(4, 4096);
  p.op = A2_RED_MAX;  // the DMA engines only add
  a2_err e{};
  EXPECT_EQ(a2_collective_find("allreduce_sdma_mesh")->check(&p, &e), A2_E_INPUT);
  EXPECT_STREQ(e.file, "--op") << e.msg;
}

}  // namespace
}  // namespace a2test
