/* The GEMM alone on the cube cores of every rank, each rank independently
 * (docs/collectives.md, "gemm"): C_r = A_r x B_r, M x K x N fp16 in (--m
 * --k --n; --size is M without --m), fp32 accumulation, fp16 out, with the
 * tiling of collectives/gemm_tiling.h (pto-isa's gemm_ar: 128 x 256 tiles,
 * baseK 64, stepK 4, ping/pong L1 and L0, zigzag ranges per cube core) on
 * --compute-cores cube cores. The rank's one vector core has no program.
 * The golden is gemm: c[r] = A_r x B_r within the fp16 tolerance of
 * model/check.c. */
#include <stdio.h>

#include "collectives/gemm_tiling.h"
#include "collectives/generators.h"

enum { A, B, CBUF };

typedef struct {
  a2_gemm_shape s;
  uint32_t C;
  uint64_t T, te;
  a2_gemm_tiles g;
} gemm_ctx;

static a2_code declare(a2_tb *tb, const a2_coll_params *p, a2_program *k, void *ctx, a2_err *err) {
  gemm_ctx *c = ctx;
  *c = (gemm_ctx){.s = a2_gemm_shape_of(p), .C = a2_gemm_compute_cores(p)};
  uint64_t M = c->s.m, K = c->s.k, N = c->s.n;
  c->T = (uint64_t)c->s.mt * c->s.nt;
  c->te = (uint64_t)A2_GEMM_BM * A2_GEMM_BN * 2;
  if (a2_tb_begin(tb, k, p->nranks, 1 + c->C, err)) return tb->rc;
  k->ncube = c->C;
  snprintf(k->algo, sizeof k->algo, "%s", "gemm");
  k->size_bytes = M;
  k->op = A2_RED_SUM;
  k->dtype = A2_FP16;
  k->seed = p->seed;
  a2_tb_buf(tb, "a", A2_BUF_TENSOR, A2_FP16, M * K * 2, A2_INIT_PATTERN);
  a2_tb_buf(tb, "b", A2_BUF_TENSOR, A2_FP16, K * N * 2, A2_INIT_PATTERN);
  a2_tb_buf(tb, "c", A2_BUF_TENSOR, A2_FP16, M * N * 2, A2_INIT_ZERO);
  a2_gemm_declare_tiles(tb, &c->g);
  k->golden = (a2_golden){A2_GOLDEN_GEMM, A2_RED_SUM, A, CBUF, M * N * 2, 0};
  a2_gemm_golden_shape(k, &c->s, B, (uint32_t)M);
  return tb->rc;
}

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const gemm_ctx *c = ctx;
  (void)me;
  if (core == 0) return; /* the vector core */
  uint32_t b = core - 1;
  uint64_t first, cnt, per = a2_gemm_tile_steps(&c->s);
  a2_gemm_range(c->T, c->C, b, &first, &cnt);
  A2_STEPS(tb, s, cnt * per) {
    uint64_t j = s / per, row, col;
    a2_gemm_zigzag(first + j, c->s.nt, &row, &col);
    a2_gemm_tile_at at = {
        A, B, CBUF, row * c->s.kt * A2_GEMM_BM * A2_GEMM_BK * 2, col, (row * c->s.nt + col) * c->te,
        j};
    a2_gemm_tile_step(tb, &c->s, &c->g, &at, s % per);
  }
}

const a2_gen_def a2_def_gemm = {sizeof(gemm_ctx), declare, body};

a2_code a2_gen_gemm(const a2_coll_params *p, a2_program *k, a2_err *err) {
  return a2_gen_run(&a2_def_gemm, p, k, 0, err);
}

a2_code a2_check_gemm(const a2_coll_params *p, a2_err *err) {
  return a2_gemm_check(p, "gemm", 0, err);
}

/* No communication. */
void a2_card_gemm(const a2_coll_params *p, a2_card *c) {
  (void)p;
  *c = (a2_card){0, 0, 0};
}

double a2_flops_gemm(const a2_coll_params *p) {
  a2_gemm_shape s = a2_gemm_shape_of(p);
  return 2.0 * s.m * s.k * s.n * (p->nranks ? p->nranks : 1);
}

uint64_t a2_out_bytes_gemm(const a2_coll_params *p) {
  a2_gemm_shape s = a2_gemm_shape_of(p);
  return a2_gemm_c_bytes(&s, s.m);
}
