/* GEMM + all-reduce fused in one program, the design of pto-isa's gemm_ar
 * (docs/collectives.md, "gemm_allreduce"): every rank computes
 * C_r = A_r x B_r on its cube cores and its vector cores all-reduce C tile
 * by tile as the tiles are finished, so that communication overlaps the
 * GEMM:
 *
 *   shape   M x K x N (--m --k --n; --size is M without --m; K 256, N 512
 *           by default), fp16 in, fp32 accumulation, fp16 out; the tiling
 *           of collectives/gemm_tiling.h (tiles of 128 x 256, stepK 4,
 *           ping/pong, contiguous zigzag ranges per cube core); tile t of C
 *           (row-major numbering) is owned by rank t % P
 *   cores   C cube cores (--compute-cores) and V vector cores (--comm-cores);
 *           the finished tiles are items (b, j): the j-th tile of cube core
 *           b, numbered i = j C + b; vector core v takes items v, v + V, ...
 *   cube b  per tile: the tiling's steps into g, then notify tready[b] (the
 *           ready queue; a notify drains the core, so the tile is in g)
 *   vector v  reduce-scatter: per item, in order, wait tready[b] >= j + 1,
 *           load the tile (ping/pong UB tiles) and remote_store atomic_add
 *           it into the owner's window red while the next one loads, then
 *           notify ready[t] at the owner; then all-gather: per item whose
 *           tile this rank owns, wait ready[t] >= P and put it from red into
 *           every peer's red
 *
 * The golden is gemm_allreduce: red[r] = sum over q of A_q x B_q. */
#include <stdio.h>

#include "collectives/gemm_tiling.h"
#include "collectives/generators.h"

enum { A, B, G, RED, TREADY, READY };

typedef struct {
  a2_gemm_shape s;
  uint32_t P, C, V;
  uint32_t part;  /* a2_coll_part */
  uint64_t T;     /* tiles of C */
  uint64_t te;    /* bytes of a C tile (fp16) */
  uint64_t items; /* item numbers below this: (max tiles of a cube core) * C */
  a2_gemm_tiles g;
  uint16_t t[2];
} ga_ctx;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, a2_err *err) {
  ga_ctx *c = ctx;
  *c = (ga_ctx){.s = a2_gemm_shape_of(p),
                .P = p->nranks,
                .C = a2_gemm_compute_cores(p),
                .V = a2_gemm_comm_cores(p),
                .part = p->part};
  uint64_t M = c->s.m, K = c->s.k, N = c->s.n;
  c->T = (uint64_t)c->s.mt * c->s.nt;
  c->te = (uint64_t)A2_GEMM_BM * A2_GEMM_BN * 2;
  c->items = (c->T + c->C - 1) / c->C * c->C;
  if (a2_tb_begin(tb, k, c->P, c->V + c->C, err)) return tb->rc;
  k->ncube = c->C;
  snprintf(k->algo, sizeof k->algo, "%s", "gemm_allreduce");
  k->size_bytes = M;
  k->op = A2_RED_SUM;
  k->dtype = A2_FP16;
  k->seed = p->seed;
  k->uses_dma = 1;
  k->uses_rstore = 1;
  uint64_t cbytes = M * N * 2;
  a2_tb_buf(tb, "a", A2_BUF_TENSOR, A2_FP16, M * K * 2, A2_INIT_PATTERN);
  a2_tb_buf(tb, "b", A2_BUF_TENSOR, A2_FP16, K * N * 2, A2_INIT_PATTERN);
  a2_tb_buf(tb, "g", A2_BUF_TENSOR, A2_FP16, cbytes, A2_INIT_ZERO);
  a2_tb_buf(tb, "red", A2_BUF_WINDOW, A2_FP16, cbytes, A2_INIT_ZERO);
  a2_tb_buf(tb, "tready", A2_BUF_SIGNAL, A2_INT32, (uint64_t)c->C * 4, A2_INIT_ZERO);
  a2_tb_buf(tb, "ready", A2_BUF_SIGNAL, A2_INT32, c->T * 4, A2_INIT_ZERO);
  a2_gemm_declare_tiles(tb, &c->g);
  c->t[0] = a2_tb_tile(tb, "ping", A2_FP16, c->te);
  c->t[1] = a2_tb_tile(tb, "pong", A2_FP16, c->te);
  if (c->part == A2_PART_COMPUTE) /* the GEMM alone: g[r] = A_r x B_r */
    k->golden = (a2_golden){A2_GOLDEN_GEMM, A2_RED_SUM, A, G, cbytes, 0};
  else if (c->part == A2_PART_COMM) /* the communication alone: zeros, not checked */
    k->golden = (a2_golden){A2_GOLDEN_NONE, A2_RED_SUM, 0, 0, 0, 0};
  else
    k->golden = (a2_golden){A2_GOLDEN_GEMM_ALLREDUCE, A2_RED_SUM, A, RED, cbytes, 0};
  a2_gemm_golden_shape(k, &c->s, B, (uint32_t)M);
  return tb->rc;
}

/* Cube core b's j-th tile: its row-major number (and row, col). */
static uint64_t tile_of(const ga_ctx *c, uint32_t b, uint64_t j, uint64_t *row, uint64_t *col) {
  uint64_t first, cnt;
  a2_gemm_range(c->T, c->C, b, &first, &cnt);
  a2_gemm_zigzag(first + j, c->s.nt, row, col);
  return *row * c->s.nt + *col;
}

static void cube_body(a2_tb *tb, const ga_ctx *c, uint32_t me, uint32_t b) {
  if (c->part == A2_PART_COMM) return;
  uint64_t first, cnt, per = a2_gemm_tile_steps(&c->s);
  a2_gemm_range(c->T, c->C, b, &first, &cnt);
  A2_STEPS(tb, s, cnt * per) {
    uint64_t j = s / per, row, col, t = tile_of(c, b, j, &row, &col);
    a2_gemm_tile_at at = {A, B, G, row * c->s.kt * A2_GEMM_BM * A2_GEMM_BK * 2, col, t * c->te, j};
    if (a2_gemm_tile_step(tb, &c->s, &c->g, &at, s % per))
      a2_tb_notify(tb, TREADY, me, b, A2_MODE_ADD, 1);
  }
}

/* Vector core v's n-th item: whether it exists, its cube core and place. */
static int item_of(const ga_ctx *c, uint32_t v, uint64_t n, uint32_t *b, uint64_t *j) {
  uint64_t i = v + n * c->V, first, cnt;
  *b = (uint32_t)(i % c->C);
  *j = i / c->C;
  a2_gemm_range(c->T, c->C, *b, &first, &cnt);
  return *j < cnt;
}

static void vector_body(a2_tb *tb, const ga_ctx *c, uint32_t me, uint32_t v) {
  if (c->part == A2_PART_COMPUTE) return;
  uint64_t n = v < c->items ? (c->items - v + c->V - 1) / c->V : 0, row, col, j;
  uint32_t b;
  /* reduce-scatter: step s stores item s - 1 while item s loads, then
   * publishes item s - 1 to its owner */
  A2_STEPS(tb, s, n + 1) {
    int prev = s > 0 && item_of(c, v, s - 1, &b, &j);
    uint64_t pt = prev ? tile_of(c, b, j, &row, &col) : 0;
    if (prev) a2_tb_rstore(tb, c->t[(s - 1) % 2], RED, (uint32_t)(pt % c->P), pt * c->te, c->te, 1);
    if (s < n && item_of(c, v, s, &b, &j)) {
      uint64_t t = tile_of(c, b, j, &row, &col);
      if (c->part == A2_PART_WHOLE) a2_tb_wait(tb, TREADY, b, A2_MODE_GE, (int32_t)(j + 1));
      a2_tb_load(tb, c->t[s % 2], G, t * c->te, c->te);
    }
    if (prev) a2_tb_notify(tb, READY, (uint32_t)(pt % c->P), pt, A2_MODE_ADD, 1);
  }
  A2_STEPS(tb, s, n * c->P) { /* all-gather the tiles this rank owns: wait, P-1 puts */
    if (!item_of(c, v, s / c->P, &b, &j)) continue;
    uint64_t t = tile_of(c, b, j, &row, &col);
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
  if (core >= c->V)
    cube_body(tb, c, me, core - c->V);
  else
    vector_body(tb, c, me, core);
}

const a2_gen_def a2_def_gemm_allreduce = {sizeof(ga_ctx), declare, body};

a2_code a2_gen_gemm_allreduce(const a2_coll_params *p, a2_program *k, a2_err *err) {
  return a2_gen_run(&a2_def_gemm_allreduce, p, k, 0, err);
}

a2_code a2_check_gemm_allreduce(const a2_coll_params *p, a2_err *err) {
  return a2_gemm_check(p, "gemm_allreduce", 1, err);
}

/* Per rank r: the reduce-scatter writes every tile of C that r does not own
 * into its owner, the all-gather puts every tile r owns to the P-1 peers.
 * The bytes are rank 0's (it owns tiles 0, P, 2P, ...: the most). The
 * rounds are the waits of the busiest vector core: one per item, one per
 * item whose tile its rank owns. */
void a2_card_gemm_allreduce(const a2_coll_params *p, a2_card *c) {
  ga_ctx x = {.s = a2_gemm_shape_of(p),
              .P = p->nranks ? p->nranks : 1,
              .C = a2_gemm_compute_cores(p),
              .V = a2_gemm_comm_cores(p)};
  x.T = (uint64_t)x.s.mt * x.s.nt;
  x.items = (x.T + x.C - 1) / x.C * x.C;
  uint64_t P = x.P, te = (uint64_t)A2_GEMM_BM * A2_GEMM_BN * 2, own = (x.T + P - 1) / P;
  uint64_t rounds = 0, row, col, j;
  uint32_t b;
  c->remote_read_bytes = 0;
  c->remote_write_bytes = P == 1 ? 0 : (double)((x.T - own) * te + own * (P - 1) * te);
  for (uint32_t v = 0; v < x.V; v++)
    for (uint64_t r = 0; r < P; r++) {
      uint64_t n = 0;
      for (uint64_t i = 0; v + i * x.V < x.items; i++)
        if (item_of(&x, v, i, &b, &j)) n += 1 + (tile_of(&x, b, j, &row, &col) % P == r);
      if (n > rounds) rounds = n;
    }
  c->barrier_rounds = rounds;
}

double a2_flops_gemm_allreduce(const a2_coll_params *p) {
  a2_gemm_shape s = a2_gemm_shape_of(p);
  return 2.0 * s.m * s.k * s.n * (p->nranks ? p->nranks : 1);
}

uint64_t a2_out_bytes_gemm_allreduce(const a2_coll_params *p) {
  a2_gemm_shape s = a2_gemm_shape_of(p);
  return a2_gemm_c_bytes(&s, s.m);
}
