// Streaming (lazy) generators: for every built-in collective over a grid of
// parameters, draining the program source of every (rank, core) yields
// exactly the materialised programs (same count, memcmp-equal instructions,
// line included), in batches of whole steps that stay bounded; programs
// filled interleaved or one instruction batch at a time give the same; the
// phases of the builder resume where they stopped; a thousand-rank ring's
// source is small. No simulation here.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "builtins.h"
#include "coll_params.h"
#include "collectives/builder.h"
#include "collectives/collective.h"
#include "traces/validate.h"

namespace {

// The most instructions one step of a built-in emits (a ring reduce-scatter
// chunk: remote_load, load, vadd, store); a batch stops after the step
// during which it reached its limit, so it has at most limit + kMaxStep - 1.
constexpr uint32_t kMaxStep = 4;

struct Program {
  a2_program k{};
  Program() = default;
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ~Program() { a2_program_free(&k); }
};

struct Case {
  const char *algo;
  uint32_t P, cores, root;
  uint64_t size, ub;
  a2_dtype dt;
  a2_reduce_op op;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.algo << " P=" << c.P << " N=" << c.size << " C=" << c.cores << " root=" << c.root
      << " ub=" << c.ub << " " << a2_dtype_name(c.dt) << " " << a2_reduce_name(c.op);
}

a2_coll_params ParamsOf(const Case &c) {
  a2_coll_params p{};
  p.nranks = c.P;
  p.size_bytes = c.size;
  p.cores = c.cores;
  p.op = c.op;
  p.dtype = c.dt;
  p.ub_bytes = c.ub;
  p.seed = 7;
  p.root = c.root;
  p.max_cores = 48;
  return p;
}

std::string InstrDiff(const a2_instr &a, const a2_instr &b) {
  std::string s;
  auto f = [&](const char *n, uint64_t x, uint64_t y) {
    if (x != y) s += std::string(" ") + n + " " + std::to_string(x) + " vs " + std::to_string(y);
  };
  f("op", a.op, b.op);
  f("mode", a.mode, b.mode);
  f("tile", a.tile, b.tile);
  f("tile_a", a.tile_a, b.tile_a);
  f("tile_b", a.tile_b, b.tile_b);
  f("buf", a.buf, b.buf);
  f("peer", (uint32_t)a.peer, (uint32_t)b.peer);
  f("value", (uint32_t)a.value, (uint32_t)b.value);
  f("line", a.line, b.line);
  f("off", a.off, b.off);
  f("len", a.len, b.len);
  f("buf2", a.buf2, b.buf2);
  f("chunk", a.chunk, b.chunk);
  f("off2", a.off2, b.off2);
  return s.empty() ? " (padding differs)" : s;
}

// Fills (rank, core) of a lazy program once; checks the batch's bounds and
// its validity; appends it to *all. Returns the batch size; *waits (when
// given): whether the batch holds a wait.
uint32_t FillOnce(a2_program *k, uint32_t r, uint32_t c, uint32_t batch, std::vector<a2_instr> *all,
                  bool *waits = nullptr) {
  a2_instrs out{};
  a2_err e{};
  EXPECT_EQ(k->source->fill(k->source, r, c, &out, &e), A2_OK) << e.msg;
  EXPECT_LE(out.n, batch + kMaxStep - 1) << "rank " << r << " core " << c;
  EXPECT_EQ(a2_validate_batch(k, r, c, out.v, out.n, "lazy", &e), A2_OK) << e.msg;
  all->insert(all->end(), out.v, out.v + out.n);
  uint32_t n = out.n;
  if (waits) {
    *waits = false;
    for (uint32_t i = 0; i < n; i++) *waits |= out.v[i].op == A2_OP_WAIT;
  }
  free(out.v);
  return n;
}

// Drains every instruction list of the lazy program `lazy`, either one list after
// another or round-robin (one batch of each program in turn), and compares
// each with the materialised program `whole`.
void DrainAndCompare(a2_program *lazy, const a2_program &whole, uint32_t batch, bool interleave) {
  ASSERT_NE(lazy->source, nullptr);
  uint32_t np = lazy->nranks * lazy->ncores;
  std::vector<std::vector<a2_instr>> got(np);
  std::vector<bool> done(np, false);
  std::vector<uint32_t> last(np, batch);    // size of the previous batch
  std::vector<bool> last_waits(np, false);  // whether it held a wait
  for (uint32_t left = np; left > 0;) {
    for (uint32_t i = 0; i < np; i++) {
      while (!done[i]) {
        bool waits = false;
        uint32_t n = FillOnce(lazy, i / lazy->ncores, i % lazy->ncores, batch, &got[i], &waits);
        // a batch short of the limit ends after a step with a wait, or is
        // the last non-empty batch of its program
        if (n > 0) {
          EXPECT_TRUE(last[i] >= batch || last_waits[i])
              << "a short batch without a wait before the end, program " << i;
        }
        last[i] = n;
        last_waits[i] = waits;
        if (n == 0) {
          done[i] = true;
          left--;
        }
        if (interleave) break;
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
  for (uint32_t i = 0; i < np; i++) {  // finished programs stay finished
    std::vector<a2_instr> more;
    EXPECT_EQ(FillOnce(lazy, i / lazy->ncores, i % lazy->ncores, batch, &more), 0u);
  }
  for (uint32_t i = 0; i < np; i++) {
    SCOPED_TRACE("rank " + std::to_string(i / lazy->ncores) + " core " +
                 std::to_string(i % lazy->ncores));
    const a2_instrs &w = whole.progs[i];
    ASSERT_EQ(got[i].size(), (size_t)w.n);
    EXPECT_EQ(lazy->progs[i].n, 0u);  // the program's own instruction lists stay empty
    for (uint32_t j = 0; j < w.n; j++) {
      ASSERT_EQ(w.v[j].line, j + 1) << "materialised lines count from 1 per program";
      ASSERT_EQ(std::memcmp(&got[i][j], &w.v[j], sizeof(a2_instr)), 0)
          << "instruction " << j << ":" << InstrDiff(got[i][j], w.v[j]);
    }
  }
}

// Declarations and metadata of the lazy program equal the materialised one's.
void ExpectSameDeclarations(const a2_program &a, const a2_program &b) {
  EXPECT_EQ(a.nranks, b.nranks);
  EXPECT_EQ(a.ncores, b.ncores);
  ASSERT_EQ(a.nbufs, b.nbufs);
  ASSERT_EQ(a.ntiles, b.ntiles);
  EXPECT_EQ(std::memcmp(a.bufs, b.bufs, sizeof a.bufs), 0);
  EXPECT_EQ(std::memcmp(a.init, b.init, sizeof a.init), 0);
  EXPECT_EQ(std::memcmp(a.tiles, b.tiles, sizeof a.tiles), 0);
  EXPECT_EQ(std::memcmp(&a.golden, &b.golden, sizeof a.golden), 0);
  EXPECT_STREQ(a.algo, b.algo);
  EXPECT_EQ(a.size_bytes, b.size_bytes);
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(b.source, nullptr);
}

class LazyEqualsMaterialised : public ::testing::TestWithParam<Case> {};

TEST_P(LazyEqualsMaterialised, DrainedSourcesGiveTheSamePrograms) {
  const Case &c = GetParam();
  const a2_collective *coll = a2_collective_find(c.algo);
  ASSERT_NE(coll, nullptr);
  a2_coll_params p = ParamsOf(c);
  a2_err e{};
  ASSERT_EQ(coll->check(&p, &e), A2_OK) << e.msg;
  Program whole;
  ASSERT_EQ(a2_coll_generate(coll, &p, &whole.k, 0, &e), A2_OK) << e.msg;
  ASSERT_EQ(whole.k.source, nullptr);
  uint64_t total = 0;
  for (uint32_t i = 0; i < whole.k.nranks * whole.k.ncores; i++) total += whole.k.progs[i].n;
  ASSERT_GT(total, 0u);

  {  // the default batch, programs filled round-robin
    Program lazy;
    ASSERT_EQ(a2_coll_generate(coll, &p, &lazy.k, 1, &e), A2_OK) << e.msg;
    ExpectSameDeclarations(lazy.k, whole.k);
    // (the chip's UB: the 1 KiB `ub` only makes the chunks small)
    EXPECT_EQ(a2_program_validate(&lazy.k, 192 * 1024, 48, "lazy", &e), A2_OK) << e.msg;
    DrainAndCompare(&lazy.k, whole.k, A2_COLL_BATCH, true);
  }
  {  // made whole again (what `gen` does): the materialised program
    Program lazy;
    ASSERT_EQ(a2_coll_generate(coll, &p, &lazy.k, 1, &e), A2_OK) << e.msg;
    ASSERT_EQ(a2_coll_materialise(&lazy.k, &e), A2_OK) << e.msg;
    EXPECT_EQ(lazy.k.source, nullptr);
    for (uint32_t i = 0; i < whole.k.nranks * whole.k.ncores; i++) {
      ASSERT_EQ(lazy.k.progs[i].n, whole.k.progs[i].n) << "program " << i;
      if (whole.k.progs[i].n == 0) continue;
      EXPECT_EQ(
          std::memcmp(lazy.k.progs[i].v, whole.k.progs[i].v, whole.k.progs[i].n * sizeof(a2_instr)),
          0)
          << "program " << i;
    }
  }
  // small batches resume at nearly every step; one program after another
  for (uint32_t batch : {1u, 5u}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Program lazy;
    ASSERT_EQ(a2_coll_generate_batched(coll, &p, &lazy.k, batch, &e), A2_OK) << e.msg;
    DrainAndCompare(&lazy.k, whole.k, batch, batch == 5);
  }
}

std::vector<Case> Cases() {
  std::vector<Case> v;
  uint32_t n = 0;
  const a2_collective *t = a2_collective_table(&n);
  const a2_reduce_op ops[] = {A2_RED_SUM, A2_RED_MAX, A2_RED_MIN, A2_RED_PROD};
  const a2_dtype dts[] = {A2_FP32, A2_FP16, A2_INT32};
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    std::string name = t[i].name;
    bool rooted = name.rfind("broadcast", 0) == 0 || name == "compose_bcast_allreduce_allgather";
    if (t[i].kind != A2_KIND_COMM) {  // GEMM built-ins: --size is M (a multiple of 128)
      for (uint32_t P : {2u, 3u, 4u, 8u, 16u})
        for (uint64_t M : {128u, 384u, 640u})
          for (uint32_t C : {1u, 2u, 3u, 5u})
            v.push_back({t[i].name, P, C, 0, M, 192 * 1024, A2_FP16, A2_RED_SUM});
      continue;
    }
    for (uint32_t P : {2u, 3u, 4u, 8u, 16u})
      for (a2_dtype dt : dts) {
        // recursive halving-doubling halves the slice into 2^floor(log2 P) parts
        uint64_t q = 1;
        while (name == "allreduce_rhd" && q * 2 <= P) q *= 2;
        uint64_t es = a2_dtype_size(dt) * (P % q ? q : 1);
        if (name == "allreduce_double_ring") es *= 2;  // two rings, P blocks each
        if (name == "allreduce_pipeline") es *= 4;     // four parts, P blocks each
        // one element per chunk of P; several chunks per (ring) step with the
        // 1 KiB UB (256-byte tiles); big payloads with the default UB
        struct {
          uint64_t size, ub;
        } sizes[] = {{es * P, 192 * 1024},
                     {es * P * 37, 192 * 1024},
                     {es * P * 300, 1024},
                     {es * P * 4096, 192 * 1024}};
        for (auto sz : sizes) {
          a2_reduce_op op = ops[k++ % 4];
          if (name == "allreduce_sdma_mesh") op = A2_RED_SUM;  // it refuses the others
          std::vector<uint32_t> roots = {0};
          if (rooted)
            roots = P > 2 ? std::vector<uint32_t>{0, P - 1, P / 2} : std::vector<uint32_t>{0, 1};
          std::vector<uint32_t> cores = {1};
          if (a2test::IsMultiCore(name)) cores = {1, 2, 3, 5};
          for (uint32_t root : roots)
            for (uint32_t C : cores) v.push_back({t[i].name, P, C, root, sz.size, sz.ub, dt, op});
        }
      }
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(AllCollectives, LazyEqualsMaterialised, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case> &i) {
                           const Case &c = i.param;
                           return std::string(c.algo) + "_P" + std::to_string(c.P) + "_N" +
                                  std::to_string(c.size) + "_C" + std::to_string(c.cores) +
                                  "_root" + std::to_string(c.root) + "_ub" + std::to_string(c.ub) +
                                  "_" + a2_dtype_name(c.dt) + "_" + a2_reduce_name(c.op);
                         });

// The grid covers every collective of the registry, and the multi-core
// forms with cores that get no work (N of 1 tile or a few elements, 5 cores).
TEST(LazyGrid, CoversEveryCollective) {
  uint32_t n = 0;
  const a2_collective *t = a2_collective_table(&n);
  std::vector<Case> cases = Cases();
  for (uint32_t i = 0; i < n; i++) {
    size_t m = 0;
    for (const Case &c : cases) m += std::string(c.algo) == t[i].name;
    EXPECT_GE(m, 60u) << t[i].name;
  }
}

// ---- the builder's phases, on a hand-made generator ----

struct ToyCtx {
  uint64_t counts[4];
};

a2_code ToyDeclare(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, a2_err *err) {
  ToyCtx *c = static_cast<ToyCtx *>(ctx);
  *c = ToyCtx{{0, 5, 3, 0}};
  return a2_tb_begin(tb, k, p->nranks, 1, err);
}

// Phases of 0, 5, 3 and 0 steps; step s of phase ph emits s+1 computes of
// value 100*ph + s (rank r adds 1000*r), so each step has a size of its own.
void ToyBody(a2_tb *tb, const void *ctx, uint32_t rank, uint32_t core) {
  const ToyCtx *c = static_cast<const ToyCtx *>(ctx);
  (void)core;
  for (int ph = 0; ph < 4; ph++) A2_STEPS(tb, s, c->counts[ph]) {
      for (uint64_t i = 0; i <= s; i++) a2_tb_compute(tb, (int32_t)(1000 * rank + 100 * ph + s));
    }
}

const a2_gen_def kToy = {sizeof(ToyCtx), ToyDeclare, ToyBody};

// The toy generator on P ranks, materialised into *whole and lazy with a
// batch limit of 4 into *lazy.
void ToyPrograms(uint32_t P, a2_program *whole, a2_program *lazy) {
  a2_coll_params p{};
  p.nranks = P;
  a2_err e{};
  ASSERT_EQ(a2_gen_run(&kToy, &p, whole, 0, &e), A2_OK) << e.msg;
  ASSERT_EQ(a2_gen_run(&kToy, &p, lazy, 4, &e), A2_OK) << e.msg;
}

TEST(BuilderPhases, BatchesStopAfterWholeStepsAndResumeThere) {
  a2_err e{};
  Program whole, lazy;
  ToyPrograms(2, &whole.k, &lazy.k);
  // steps emit 1,2,3,4,5 then 1,2,3 instructions: 21 in all
  ASSERT_EQ(whole.k.progs[0].n, 21u);
  // limit 4: steps are taken while fewer than 4 are in the batch
  const std::vector<uint32_t> want = {1 + 2 + 3, 4, 5, 1 + 2 + 3, 0};
  for (uint32_t r = 0; r < 2; r++) {
    std::vector<a2_instr> all;
    for (uint32_t w : want) {
      a2_instrs out{};
      ASSERT_EQ(lazy.k.source->fill(lazy.k.source, r, 0, &out, &e), A2_OK) << e.msg;
      EXPECT_EQ(out.n, w);
      all.insert(all.end(), out.v, out.v + out.n);
      free(out.v);
    }
    ASSERT_EQ(all.size(), 21u);
    for (uint32_t j = 0; j < 21; j++) {
      EXPECT_EQ(all[j].line, j + 1);
      EXPECT_EQ(std::memcmp(&all[j], &whole.k.progs[r].v[j], sizeof(a2_instr)), 0) << j;
    }
  }
}

// One phase of 6 steps: steps 0 and 3 emit a wait then a compute, the
// others one compute.
a2_code WaitToyDeclare(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *, a2_err *err) {
  if (a2_tb_begin(tb, k, p->nranks, 1, err)) return tb->rc;
  a2_tb_buf(tb, "sig", A2_BUF_SIGNAL, A2_INT32, 4, A2_INIT_ZERO);
  return tb->rc;
}

void WaitToyBody(a2_tb *tb, const void *, uint32_t, uint32_t) {
  A2_STEPS(tb, s, 6) {
    if (s % 3 == 0) a2_tb_wait(tb, 0, 0, A2_MODE_GE, (int32_t)s);
    a2_tb_compute(tb, (int32_t)s);
  }
}

// A batch ends after a step with a wait, short of its limit: the core
// blocks there, and what follows is generated once the wait is satisfied.
TEST(BuilderPhases, ABatchEndsAfterAStepWithAWait) {
  const a2_gen_def toy = {1, WaitToyDeclare, WaitToyBody};
  a2_coll_params p{};
  p.nranks = 1;
  a2_err e{};
  Program whole, lazy;
  ASSERT_EQ(a2_gen_run(&toy, &p, &whole.k, 0, &e), A2_OK) << e.msg;
  ASSERT_EQ(a2_gen_run(&toy, &p, &lazy.k, 8, &e), A2_OK) << e.msg;
  ASSERT_EQ(whole.k.progs[0].n, 8u);
  const std::vector<uint32_t> want = {2, 1 + 1 + 2, 1 + 1, 0};
  std::vector<a2_instr> all;
  for (uint32_t w : want) {
    a2_instrs out{};
    ASSERT_EQ(lazy.k.source->fill(lazy.k.source, 0, 0, &out, &e), A2_OK) << e.msg;
    EXPECT_EQ(out.n, w);
    all.insert(all.end(), out.v, out.v + out.n);
    free(out.v);
  }
  ASSERT_EQ(all.size(), 8u);
  for (uint32_t j = 0; j < 8; j++)
    EXPECT_EQ(std::memcmp(&all[j], &whole.k.progs[0].v[j], sizeof(a2_instr)), 0) << j;
}

TEST(BuilderPhases, FillAppendsToWhatTheBatchAlreadyHolds) {
  a2_coll_params p{};
  p.nranks = 1;
  a2_err e{};
  Program lazy;
  ASSERT_EQ(a2_gen_run(&kToy, &p, &lazy.k, 4, &e), A2_OK) << e.msg;
  a2_instrs out{};
  ASSERT_EQ(lazy.k.source->fill(lazy.k.source, 0, 0, &out, &e), A2_OK);
  ASSERT_EQ(out.n, 6u);
  ASSERT_EQ(lazy.k.source->fill(lazy.k.source, 0, 0, &out, &e), A2_OK);
  ASSERT_EQ(out.n, 10u);  // appended, numbered on
  EXPECT_EQ(out.v[6].line, 7u);
  EXPECT_EQ(out.v[9].line, 10u);
  free(out.v);
}

// The model lends a core's own storage for a batch (a2_instrs.lent): a
// batch that outgrows it moves to the heap, keeps what it held and leaves
// the lent storage as it was beyond that.
TEST(BuilderPhases, LentStorageThatIsOutgrownMovesToTheHeap) {
  a2_err e{};
  Program whole, lazy;
  ToyPrograms(1, &whole.k, &lazy.k);
  a2_instr lent[5];
  std::memset(lent, 0xa5, sizeof lent);
  a2_instrs out{lent, 0, 5, 1};
  ASSERT_EQ(lazy.k.source->fill(lazy.k.source, 0, 0, &out, &e), A2_OK) << e.msg;
  ASSERT_EQ(out.n, 6u);  // steps of 1, 2 and 3: the third outgrew the 5 lent
  EXPECT_NE(out.v, lent);
  EXPECT_EQ(out.lent, 0u);
  EXPECT_GE(out.cap, 6u);
  for (uint32_t j = 0; j < 6; j++)
    EXPECT_EQ(std::memcmp(&out.v[j], &whole.k.progs[0].v[j], sizeof(a2_instr)), 0) << j;
  EXPECT_EQ(std::memcmp(&lent[3], &whole.k.progs[0].v[3], sizeof(a2_instr)), 0);
  free(out.v);  // the heap copy is the program's own now
}

void OutsideStep(a2_tb *tb, const void *, uint32_t, uint32_t) {
  A2_STEPS(tb, s, 2) a2_tb_compute(tb, 1);
  a2_tb_compute(tb, 2);  // not in a step: would be emitted again on every walk
}

TEST(BuilderPhases, AnInstructionOutsideAStepIsAnInternalError) {
  const a2_gen_def def = {sizeof(ToyCtx), ToyDeclare, OutsideStep};
  a2_coll_params p{};
  p.nranks = 1;
  a2_err e{};
  Program whole;
  EXPECT_EQ(a2_gen_run(&def, &p, &whole.k, 0, &e), A2_E_INTERNAL);
  EXPECT_NE(std::string(e.msg).find("outside a phase step"), std::string::npos) << e.msg;
  Program lazy;
  ASSERT_EQ(a2_gen_run(&def, &p, &lazy.k, 1, &e), A2_OK);
  a2_instrs out{};
  a2_code rc = A2_OK;
  for (int i = 0; i < 4 && rc == A2_OK; i++)
    rc = lazy.k.source->fill(lazy.k.source, 0, 0, &out, &e);
  EXPECT_EQ(rc, A2_E_INTERNAL);
  free(out.v);
}

TEST(BuilderPhases, FillOfAProgramThatDoesNotExistIsRefused) {
  a2_coll_params p{};
  p.nranks = 2;
  a2_err e{};
  Program lazy;
  ASSERT_EQ(a2_gen_run(&kToy, &p, &lazy.k, 4, &e), A2_OK);
  a2_instrs out{};
  EXPECT_EQ(lazy.k.source->fill(lazy.k.source, 2, 0, &out, &e), A2_E_INTERNAL);
  EXPECT_EQ(lazy.k.source->fill(lazy.k.source, 0, 1, &out, &e), A2_E_INTERNAL);
  EXPECT_EQ(out.n, 0u);
}

// Lines count per program in the plain builder too, also when a test jumps
// between programs.
TEST(BuilderLines, NumberedWithinEachProgram) {
  a2_program k{};
  a2_err e{};
  a2_tb tb;
  ASSERT_EQ(a2_tb_begin(&tb, &k, 2, 2, &e), A2_OK);
  a2_tb_at(&tb, 0, 0);
  a2_tb_compute(&tb, 1);
  a2_tb_compute(&tb, 1);
  a2_tb_at(&tb, 1, 1);
  a2_tb_compute(&tb, 1);
  a2_tb_at(&tb, 0, 0);
  a2_tb_compute(&tb, 1);
  ASSERT_EQ(tb.rc, A2_OK);
  EXPECT_EQ(k.progs[0].n, 3u);
  EXPECT_EQ(k.progs[0].v[2].line, 3u);
  EXPECT_EQ(k.progs[3].v[0].line, 1u);
  a2_program_free(&k);
}

// ---- a thousand ranks ----

a2_coll_params Ring1024() {
  return a2test::DefaultParams(1024, 16ull << 20);
}

// 16 MiB at P=1024 materialised is 13.6 M instructions (760 MB); lazily the
// program holds its declarations, empty instruction lists and a source of a
// few dozen bytes per (rank, core). Pins a past failure: the generators had
// no instruction limit and held whole programs, so `gen --algo
// allreduce_mesh --ranks 64 --size 64MiB --cores 4` was killed by the OOM
// killer on a 24 GB machine; `run` streams, and `gen` stops at
// A2_TB_MAX_INSTRS with a message naming --size.
TEST(LazyAtScale, Ring1024SourceIsSmallAndFirstBatchesAreQuick) {
  const a2_collective *c = a2_collective_find("allreduce_ring");
  a2_coll_params p = Ring1024();
  a2_err e{};
  ASSERT_EQ(c->check(&p, &e), A2_OK) << e.msg;
  Program lazy;
  ASSERT_EQ(a2_coll_generate(c, &p, &lazy.k, 1, &e), A2_OK) << e.msg;
  ASSERT_NE(lazy.k.source, nullptr);
  size_t bytes = a2_coll_source_bytes(lazy.k.source);
  EXPECT_LE(bytes, 1024u * 32 + 4096) << "source bytes";
  for (uint32_t r = 0; r < 1024; r++) {
    EXPECT_EQ(lazy.k.progs[r].n, 0u);
    EXPECT_EQ(lazy.k.progs[r].v, nullptr);
  }
  EXPECT_EQ(a2_program_validate(&lazy.k, p.ub_bytes, 48, "ring", &e), A2_OK) << e.msg;
  // The first batch of every program: bounded, and quick (a loose bound: the
  // work is a walk of a few phases plus one batch per program; milliseconds).
  auto t0 = std::chrono::steady_clock::now();
  for (uint32_t r = 0; r < 1024; r++) {
    a2_instrs out{};
    ASSERT_EQ(lazy.k.source->fill(lazy.k.source, r, 0, &out, &e), A2_OK) << e.msg;
    EXPECT_GE(out.n, (uint32_t)A2_COLL_BATCH);
    EXPECT_LE(out.n, A2_COLL_BATCH + kMaxStep - 1);
    EXPECT_EQ(out.v[0].line, 1u);
    free(out.v);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 2.0) << "first batches of 1024 programs";
}

// One rank's whole program, drained: the count the generator's structure
// gives (docs/collectives.md), lines 1..n, every batch valid and bounded.
TEST(LazyAtScale, Ring1024OneProgramDrainsToItsExpectedLength) {
  const a2_collective *c = a2_collective_find("allreduce_ring");
  a2_coll_params p = Ring1024();
  a2_err e{};
  Program lazy;
  ASSERT_EQ(a2_coll_generate(c, &p, &lazy.k, 1, &e), A2_OK) << e.msg;
  const uint64_t P = 1024, B = (16ull << 20) / P, T = B, npN = (16ull << 20) / T, npB = B / T;
  // stage-in (load, store per piece), notify, reduce-scatter (wait, 4 per
  // chunk, notify), all-gather (wait, 3 per chunk, notify but the last),
  // own chunk to y (load, store)
  const uint64_t want =
      2 * npN + 1 + (P - 1) * (2 + 4 * npB) + (P - 1) * (1 + 3 * npB) + (P - 2) + 2 * npB;
  for (uint32_t r : {0u, 511u, 1023u}) {
    uint64_t n = 0, fills = 0;
    for (;;) {
      a2_instrs out{};
      ASSERT_EQ(lazy.k.source->fill(lazy.k.source, r, 0, &out, &e), A2_OK) << e.msg;
      ASSERT_EQ(a2_validate_batch(&lazy.k, r, 0, out.v, out.n, "ring", &e), A2_OK) << e.msg;
      ASSERT_LE(out.n, A2_COLL_BATCH + kMaxStep - 1);
      for (uint32_t j = 0; j < out.n; j++) ASSERT_EQ(out.v[j].line, n + j + 1);
      n += out.n;
      fills++;
      free(out.v);
      if (out.n == 0) break;
    }
    EXPECT_EQ(n, want) << "rank " << r;
    // full batches, one short one at each of the 2(P-1) waits, the last two
    EXPECT_LE(fills, want / A2_COLL_BATCH + 2 * (P - 1) + 2);
  }
}

}  // namespace
