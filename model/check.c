#include "model/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traces/fp16.h"

static double input_value(const a2_program *k, const a2_buf_decl *b, uint32_t rank, uint64_t i) {
  float v = a2_pattern_value(k->seed, rank, i);
  if (b->dtype == A2_FP16) return a2_f16_to_f32(a2_f32_to_f16(v));
  if (b->dtype == A2_INT32) return (double)(int32_t)(v * 64.0f);
  return v;
}

static double element(const uint8_t *m, a2_dtype t, uint64_t i) {
  if (t == A2_FP32) {
    float f;
    memcpy(&f, m + i * 4, 4);
    return f;
  }
  if (t == A2_FP16) {
    uint16_t h;
    memcpy(&h, m + i * 2, 2);
    return a2_f16_to_f32(h);
  }
  int32_t x;
  memcpy(&x, m + i * 4, 4);
  return x;
}

static double reduce(a2_reduce_op op, double acc, double v) {
  switch (op) {
  case A2_RED_SUM: return acc + v;
  case A2_RED_MAX: return v > acc ? v : acc;
  case A2_RED_MIN: return v < acc ? v : acc;
  default: return acc * v;
  }
}

/* The expected value of element idx of rank r's output (formulas in
 * traces/program.h), from the input recipe alone; *mag: the scale its
 * rounding error grows with, the sum of the terms' magnitudes for a sum,
 * |want| otherwise. */
static double want_of(const a2_program *k, const a2_buf_decl *in, uint32_t r, uint64_t idx,
                      uint64_t n, double *mag) {
  const a2_golden *g = &k->golden;
  uint32_t P = k->nranks;
  double w = 0, m = 0;
  *mag = 0;
  switch (g->kind) {
  case A2_GOLDEN_ALLREDUCE:
  case A2_GOLDEN_REDUCE:
  case A2_GOLDEN_REDUCE_SCATTER: {
    uint64_t i = g->kind == A2_GOLDEN_REDUCE_SCATTER ? (uint64_t)r * n + idx : idx;
    w = input_value(k, in, 0, i);
    m = fabs(w);
    for (uint32_t q = 1; q < P; q++) {
      double v = input_value(k, in, q, i);
      w = reduce(g->op, w, v);
      m += fabs(v);
    }
    *mag = g->op == A2_RED_SUM ? m : fabs(w);
    return w;
  }
  case A2_GOLDEN_BROADCAST: w = input_value(k, in, g->root, idx); break;
  case A2_GOLDEN_ALLGATHER:
  case A2_GOLDEN_GATHER: w = input_value(k, in, (uint32_t)(idx / n), idx % n); break;
  case A2_GOLDEN_SCATTER: w = input_value(k, in, g->root, (uint64_t)r * n + idx); break;
  case A2_GOLDEN_ALLTOALL:
    w = input_value(k, in, (uint32_t)(idx / n), (uint64_t)r * n + idx % n);
    break;
  case A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER: {
    double v = input_value(k, in, g->root, idx % n);
    w = v;
    for (uint32_t q = 1; q < P; q++) w = reduce(g->op, w, v);
    *mag = g->op == A2_RED_SUM ? P * fabs(v) : fabs(w);
    return w;
  }
  default: return 0;
  }
  *mag = fabs(w);
  return w;
}

/* The tile-blocked layouts of the gemm goldens (traces/program.h): the
 * element index of A (r, c), B (r, c) and C (r, c). */
static uint64_t a_at(const a2_program *k, uint64_t r, uint64_t c) {
  uint64_t bm = k->gemm.bm, bk = k->gemm.bk, nk = k->gemm.k / bk;
  return ((r / bm) * nk + c / bk) * bm * bk + (r % bm) * bk + c % bk;
}
static uint64_t b_at(const a2_program *k, uint64_t r, uint64_t c) {
  uint64_t bk = k->gemm.bk, bn = k->gemm.bn, nk = k->gemm.k / bk;
  return ((c / bn) * nk + r / bk) * bk * bn + (r % bk) * bn + c % bn;
}
static uint64_t c_at(const a2_program *k, uint64_t r, uint64_t c) {
  uint64_t bm = k->gemm.bm, bn = k->gemm.bn, nn = k->gemm.n / bn;
  return ((r / bm) * nn + c / bn) * bm * bn + (r % bm) * bn + c % bn;
}

/* Scratch of the gemm check: one A (row-major) and one B (transposed), the
 * wanted sums and the magnitudes of their partials. */
typedef struct {
  float *a, *bt;
  double *want, *mag;
} gemm_scratch;

/* want (+)= A[qa] x B[qb], mag (+)= its magnitude. */
static void gemm_partial(const a2_program *k, gemm_scratch *w, uint32_t qa, uint32_t qb) {
  const a2_buf_decl *A = &k->bufs[k->golden.in_buf], *B = &k->bufs[k->gemm.b_buf];
  uint64_t M = k->gemm.m, K = k->gemm.k, N = k->gemm.n;
  for (uint64_t i = 0; i < M; i++)
    for (uint64_t p = 0; p < K; p++) w->a[i * K + p] = (float)input_value(k, A, qa, a_at(k, i, p));
  for (uint64_t p = 0; p < K; p++)
    for (uint64_t j = 0; j < N; j++) w->bt[j * K + p] = (float)input_value(k, B, qb, b_at(k, p, j));
  for (uint64_t i = 0; i < M; i++)
    for (uint64_t j = 0; j < N; j++) {
      double part = 0;
      for (uint64_t p = 0; p < K; p++) part += (double)w->a[i * K + p] * w->bt[j * K + p];
      w->want[i * N + j] += part;
      w->mag[i * N + j] += fabs(part);
    }
}

/* Compare rows row0 .. row0 + M - 1 of rank r's output with want. */
static void gemm_compare(const a2_program *k, const a2_sim *s, const gemm_scratch *w, uint32_t r,
                         uint64_t row0, a2_check_result *res) {
  const a2_buf_decl *C = &k->bufs[k->golden.out_buf];
  uint64_t M = k->gemm.m, N = k->gemm.n;
  for (uint64_t i = 0; i < M; i++)
    for (uint64_t j = 0; j < N; j++) {
      uint64_t at = c_at(k, row0 + i, j);
      double want = w->want[i * N + j], m = w->mag[i * N + j];
      double got = element(a2_sim_buffer(s, r, k->golden.out_buf), C->dtype, at);
      res->elements++;
      double tol = (C->dtype == A2_FP16 ? 1e-2 : 1e-5) * (m > 1.0 ? m : 1.0);
      if (!(fabs(got - want) <= tol)) {
        if (res->nshow < A2_CHECK_SHOW) res->show[res->nshow++] = (a2_mismatch){r, at, got, want};
        res->mismatches++;
      }
    }
}

/* gemm: out[r] = A[r] x B[r]; gemm_allreduce: out[r] = sum over q of
 * A[q] x B[q]; allgather_gemm: rows q M .. q M + M - 1 of out[r] =
 * A[q] x B[r] (every rank's own operands, the inputs' pattern). fp16
 * results pass within 1 % of the sum of the partial products' magnitudes
 * (at least 1): fp32 accumulation, then one fp16 rounding per rank's
 * partial and per atomic add. */
static void check_gemm(const a2_program *k, const a2_sim *s, a2_check_result *res) {
  uint64_t M = k->gemm.m, K = k->gemm.k, N = k->gemm.n;
  uint32_t P = k->nranks;
  gemm_scratch w = {malloc(M * K * sizeof(float)), malloc(K * N * sizeof(float)),
                    malloc(M * N * sizeof(double)), malloc(M * N * sizeof(double))};
  if (!w.a || !w.bt || !w.want || !w.mag) {
    res->mismatches = 1; /* cannot check: not OK */
  } else if (k->golden.kind == A2_GOLDEN_GEMM_ALLREDUCE) {
    memset(w.want, 0, M * N * sizeof *w.want), memset(w.mag, 0, M * N * sizeof *w.mag);
    for (uint32_t q = 0; q < P; q++) gemm_partial(k, &w, q, q);
    for (uint32_t r = 0; r < P; r++) gemm_compare(k, s, &w, r, 0, res);
  } else {
    int gather = k->golden.kind == A2_GOLDEN_ALLGATHER_GEMM;
    for (uint32_t r = 0; r < P; r++)
      for (uint32_t q = 0; q < (gather ? P : 1); q++) {
        memset(w.want, 0, M * N * sizeof *w.want), memset(w.mag, 0, M * N * sizeof *w.mag);
        gemm_partial(k, &w, gather ? q : r, r);
        gemm_compare(k, s, &w, r, gather ? q * M : 0, res);
      }
  }
  free(w.a), free(w.bt), free(w.want), free(w.mag);
  res->ok = res->mismatches == 0;
}

void a2_check(const a2_program *k, const a2_sim *s, a2_check_result *res) {
  memset(res, 0, sizeof *res);
  const a2_golden *g = &k->golden;
  if (g->kind == A2_GOLDEN_NONE) {
    res->ok = true;
    return;
  }
  res->checked = true;
  if (a2_golden_is_gemm(g->kind)) {
    check_gemm(k, s, res);
    return;
  }
  const a2_buf_decl *in = &k->bufs[g->in_buf], *out = &k->bufs[g->out_buf];
  /* a sum of P terms, added in any order, rounds at most P times (each
   * add and the store), each time by at most the unit roundoff u of a
   * partial sum, and a partial sum is at most the terms' magnitudes m:
   * |error| <= P u m (u = 2^-11 for fp16, 2^-24 for fp32; int32 exact) */
  double u = out->dtype == A2_FP16 ? 0x1p-11 : out->dtype == A2_FP32 ? 0x1p-24 : 0;
  double rtol = out->dtype == A2_FP16 ? 1e-2 : 1e-5, sum_tol = k->nranks * u;
  uint64_t n = g->bytes / a2_dtype_size(out->dtype);
  bool wide = g->kind == A2_GOLDEN_ALLGATHER || g->kind == A2_GOLDEN_ALLTOALL ||
              g->kind == A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER || g->kind == A2_GOLDEN_GATHER;
  uint64_t total = wide ? n * k->nranks : n;
  /* The same value is wanted on every rank except for reduce-scatter,
   * all-to-all and scatter: compute it once per index then. */
  bool per_rank = g->kind == A2_GOLDEN_REDUCE_SCATTER || g->kind == A2_GOLDEN_ALLTOALL ||
                  g->kind == A2_GOLDEN_SCATTER;
  /* reduce and gather define the root's output only */
  bool root_only = g->kind == A2_GOLDEN_REDUCE || g->kind == A2_GOLDEN_GATHER;
  uint32_t r0 = root_only ? g->root : 0, r1 = root_only ? g->root + 1 : k->nranks;
  for (uint64_t i = 0; i < total; i++) {
    double same_mag = 0, same = per_rank ? 0 : want_of(k, in, 0, i, n, &same_mag);
    for (uint32_t r = r0; r < r1; r++) {
      double mag = same_mag, want = per_rank ? want_of(k, in, r, i, n, &mag) : same;
      double got = element(a2_sim_buffer(s, r, g->out_buf), out->dtype, i);
      res->elements++;
      double tol = fmax(rtol * fmax(fabs(want), 1.0), sum_tol * fmax(mag, 1.0));
      if (!(fabs(got - want) <= tol)) {
        if (res->nshow < A2_CHECK_SHOW) res->show[res->nshow++] = (a2_mismatch){r, i, got, want};
        res->mismatches++;
      }
    }
  }
  res->ok = res->mismatches == 0;
}
