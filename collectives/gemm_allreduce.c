/* GEMM + all-reduce fused in one kernel, the design of pto-isa's gemm_ar
 * (docs/collectives.md, "gemm_allreduce"): every rank computes
 * C_r = A_r x B_r on its cube cores and its vector cores all-reduce C tile
 * by tile as the tiles are finished, so that communication overlaps the
 * GEMM. The same kernel as traces/examples/gemm_allreduce_fused.a2t:
 *
 *   shape   M = --size rows (a multiple of 128), K = 256, N = 512, fp16 in,
 *           fp32 accumulation, fp16 out; tiles of 128 x 256 (baseM x baseN),
 *           K in steps of 64 (baseK), L0 ping/pong; C has T = M/128 * 2
 *           tiles, numbered row-major, tile t owned by rank t % P
 *   cores   --cores C vector cores and C cube cores per rank; cube core b
 *           computes tiles b, b + C, ... and vector core b communicates them
 *   cube b  per tile: tload its A row panel and B column panel into L1,
 *           textract and tmatmul K / 64 times, tstore_fixpipe into g, then
 *           notify tready[b] (the ready queue; a notify drains the core, so
 *           the tile is in g)
 *   vector b  reduce-scatter: per tile of cube core b, in order, wait
 *           tready[b], load the tile and remote_store atomic_add it into
 *           the owner's window red, notify ready[t] at the owner; then
 *           all-gather: per tile of cube core b that this rank owns, wait
 *           ready[t] >= P and put it from red into every peer's red
 *
 * Matrices are tile-blocked (docs/trace-format.md, "Cube cores"). The
 * golden is gemm_allreduce: red[r] = sum over q of A_q x B_q. */
#include <stdio.h>

#include "collectives/generators.h"

#define GA_BM 128u
#define GA_BK 64u
#define GA_BN 256u
#define GA_K 256u
#define GA_N 512u

enum { A, B, G, RED, TREADY, READY };

typedef struct {
  uint32_t P, C, M, T, kt, nt;
  uint32_t part; /* a2_coll_part */
  uint64_t te;   /* bytes of a C tile (fp16) */
  uint16_t a1, b1, a0[2], b0[2], acc, t;
} ga_ctx;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_kernel *k, void *ctx, a2_err *err) {
  ga_ctx *c = ctx;
  uint32_t P = p->nranks, C = p->cores ? p->cores : 1;
  uint64_t M = p->size_bytes;
  *c = (ga_ctx){
      .P = P, .C = C, .M = (uint32_t)M, .kt = GA_K / GA_BK, .nt = GA_N / GA_BN, .part = p->part};
  c->T = (uint32_t)(M / GA_BM) * c->nt;
  c->te = (uint64_t)GA_BM * GA_BN * 2;
  if (a2_tb_begin(tb, k, P, 2 * C, err)) return tb->rc;
  k->ncube = C;
  snprintf(k->algo, sizeof k->algo, "%s", "gemm_allreduce");
  k->size_bytes = M;
  k->op = A2_RED_SUM;
  k->dtype = A2_FP16;
  k->seed = p->seed;
  k->uses_dma = 1;
  uint64_t cbytes = M * GA_N * 2;
  a2_tb_buf(tb, "a", A2_BUF_TENSOR, A2_FP16, M * GA_K * 2, A2_INIT_PATTERN);
  a2_tb_buf(tb, "b", A2_BUF_TENSOR, A2_FP16, (uint64_t)GA_K * GA_N * 2, A2_INIT_PATTERN);
  a2_tb_buf(tb, "g", A2_BUF_TENSOR, A2_FP16, cbytes, A2_INIT_ZERO);
  a2_tb_buf(tb, "red", A2_BUF_WINDOW, A2_FP16, cbytes, A2_INIT_ZERO);
  a2_tb_buf(tb, "tready", A2_BUF_SIGNAL, A2_INT32, (uint64_t)C * 4, A2_INIT_ZERO);
  a2_tb_buf(tb, "ready", A2_BUF_SIGNAL, A2_INT32, (uint64_t)c->T * 4, A2_INIT_ZERO);
  c->a1 = a2_tb_tile_in(tb, "a1", A2_FP16, (uint64_t)GA_BM * GA_K * 2, A2_SPACE_L1);
  c->b1 = a2_tb_tile_in(tb, "b1", A2_FP16, (uint64_t)GA_K * GA_BN * 2, A2_SPACE_L1);
  c->a0[0] = a2_tb_tile_in(tb, "a0p", A2_FP16, (uint64_t)GA_BM * GA_BK * 2, A2_SPACE_L0A);
  c->a0[1] = a2_tb_tile_in(tb, "a0q", A2_FP16, (uint64_t)GA_BM * GA_BK * 2, A2_SPACE_L0A);
  c->b0[0] = a2_tb_tile_in(tb, "b0p", A2_FP16, (uint64_t)GA_BK * GA_BN * 2, A2_SPACE_L0B);
  c->b0[1] = a2_tb_tile_in(tb, "b0q", A2_FP16, (uint64_t)GA_BK * GA_BN * 2, A2_SPACE_L0B);
  c->acc = a2_tb_tile_in(tb, "acc", A2_FP32, (uint64_t)GA_BM * GA_BN * 4, A2_SPACE_L0C);
  c->t = a2_tb_tile(tb, "t", A2_FP16, c->te);
  if (c->part == A2_PART_COMPUTE) /* the GEMM alone: g[r] = A_r x B_r */
    k->golden = (a2_golden){A2_GOLDEN_GEMM, A2_RED_SUM, A, G, cbytes, 0};
  else if (c->part == A2_PART_COMM) /* the communication alone: zeros, not checked */
    k->golden = (a2_golden){A2_GOLDEN_NONE, A2_RED_SUM, 0, 0, 0, 0};
  else
    k->golden = (a2_golden){A2_GOLDEN_GEMM_ALLREDUCE, A2_RED_SUM, A, RED, cbytes, 0};
  k->gemm.b_buf = B;
  k->gemm.m = (uint32_t)M;
  k->gemm.k = GA_K;
  k->gemm.n = GA_N;
  k->gemm.bm = GA_BM;
  k->gemm.bk = GA_BK;
  k->gemm.bn = GA_BN;
  return tb->rc;
}

/* Tiles of cube core b: b, b + C, ... */
static uint64_t tiles_of(const ga_ctx *c, uint32_t b) {
  return b < c->T ? (c->T - b + c->C - 1) / c->C : 0;
}

static void cube_body(a2_tb *tb, const ga_ctx *c, uint32_t me, uint32_t b) {
  uint64_t apanel = (uint64_t)GA_BM * GA_K * 2, bpanel = (uint64_t)GA_K * GA_BN * 2;
  uint64_t ablk = (uint64_t)GA_BM * GA_BK * 2, bblk = (uint64_t)GA_BK * GA_BN * 2;
  if (c->part == A2_PART_COMM) return;
  uint64_t per = c->kt + 2; /* steps of a tile: the loads, kt matmuls, the store */
  A2_STEPS(tb, s, tiles_of(c, b) * per) {
    uint64_t j = s / per, u = s % per;
    uint64_t t = b + j * c->C, row = t / c->nt, col = t % c->nt;
    if (u == 0) {
      a2_tb_tload(tb, c->a1, A, row * apanel, apanel);
      a2_tb_tload(tb, c->b1, B, col * bpanel, bpanel);
    } else if (u <= c->kt) {
      uint64_t k = u - 1;
      a2_tb_textract(tb, c->a0[k % 2], c->a1, k * ablk, ablk);
      a2_tb_textract(tb, c->b0[k % 2], c->b1, k * bblk, bblk);
      a2_tb_tmatmul(tb, c->acc, c->a0[k % 2], c->b0[k % 2], GA_BM, GA_BK, GA_BN, k > 0);
    } else {
      a2_tb_tfixpipe(tb, c->acc, G, t * c->te, c->te);
      a2_tb_notify(tb, TREADY, me, b, A2_MODE_ADD, 1);
    }
  }
}

static void vector_body(a2_tb *tb, const ga_ctx *c, uint32_t me, uint32_t b) {
  uint64_t cnt = tiles_of(c, b);
  if (c->part == A2_PART_COMPUTE) return;
  A2_STEPS(tb, j, cnt) { /* reduce-scatter, tile by tile as they are ready */
    uint64_t t = b + j * c->C;
    uint32_t owner = (uint32_t)(t % c->P);
    if (c->part == A2_PART_WHOLE) a2_tb_wait(tb, TREADY, b, A2_MODE_GE, (int32_t)(j + 1));
    a2_tb_load(tb, c->t, G, t * c->te, c->te);
    a2_tb_rstore(tb, c->t, RED, owner, t * c->te, c->te, 1);
    a2_tb_notify(tb, READY, owner, t, A2_MODE_ADD, 1);
  }
  A2_STEPS(tb, s, cnt * c->P) { /* all-gather the tiles this rank owns: wait, P-1 puts */
    uint64_t t = b + s / c->P * c->C;
    uint32_t q = (uint32_t)(s % c->P);
    if (t % c->P != me) continue;
    if (q == 0)
      a2_tb_wait(tb, READY, t, A2_MODE_GE, (int32_t)c->P);
    else
      a2_tb_put(tb, RED, (me + q) % c->P, t * c->te, c->te, RED, t * c->te, NULL);
  }
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const ga_ctx *c = ctx;
  if (core >= c->C)
    cube_body(tb, c, me, core - c->C);
  else
    vector_body(tb, c, me, core);
}

const a2_gen_def a2_def_gemm_allreduce = {sizeof(ga_ctx), declare, body};

a2_code a2_gen_gemm_allreduce(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  return a2_gen_run(&a2_def_gemm_allreduce, p, k, 0, err);
}

a2_code a2_check_gemm_allreduce(const a2_coll_params *p, a2_err *err) {
  if (p->cores == 0)
    return a2_err_set(err, A2_E_INPUT, "--cores", 0, 0, "expected at least 1 vector core");
  if (p->max_cores && p->cores > p->max_cores)
    return a2_err_set(err, A2_E_INPUT, "--cores", 0, 0,
                      "%u vector cores per rank requested; the chip has %u (chip.vector_cores)",
                      p->cores, p->max_cores);
  if (p->max_cube && p->cores > p->max_cube)
    return a2_err_set(err, A2_E_INPUT, "--cores", 0, 0,
                      "gemm_allreduce runs --cores vector and as many cube cores per rank; %u "
                      "requested, the chip has %u cube cores (chip.cube_cores)",
                      p->cores, p->max_cube);
  if (p->op != A2_RED_SUM)
    return a2_err_set(err, A2_E_INPUT, "--op", 0, 0,
                      "gemm_allreduce sums the ranks' products; only sum, not %s",
                      a2_reduce_name(p->op));
  if (p->size_bytes == 0 || p->size_bytes % GA_BM || p->size_bytes > 65536)
    return a2_err_set(err, A2_E_INPUT, "--size", 0, 0,
                      "%llu: gemm_allreduce takes --size as M, the rows of each rank's A and C "
                      "(K = %u, N = %u); expected a multiple of %u up to 65536",
                      (unsigned long long)p->size_bytes, GA_K, GA_N, GA_BM);
  return A2_OK;
}

/* Per rank r: the reduce-scatter writes every tile of C that r does not own
 * into its owner, the all-gather puts every tile r owns to the P-1 peers.
 * The bytes are rank 0's (it owns tiles 0, P, 2P, ...: the most). The
 * rounds are the waits of the busiest vector core: one per tile of its cube
 * core, one per such tile its rank owns. */
void a2_card_gemm_allreduce(const a2_coll_params *p, a2_card *c) {
  uint64_t P = p->nranks ? p->nranks : 1, T = p->size_bytes / GA_BM * (GA_N / GA_BN);
  uint64_t te = (uint64_t)GA_BM * GA_BN * 2, own = (T + P - 1) / P;
  uint64_t C = p->cores ? p->cores : 1, rounds = 0;
  c->remote_read_bytes = 0;
  c->remote_write_bytes = P == 1 ? 0 : (double)((T - own) * te + own * (P - 1) * te);
  for (uint64_t b = 0; b < C && b < T; b++)
    for (uint64_t r = 0; r < P; r++) {
      uint64_t n = 0;
      for (uint64_t t = b; t < T; t += C) n += 1 + (t % P == r);
      if (n > rounds) rounds = n;
    }
  c->barrier_rounds = rounds;
}
