#include "model/check.h"

#include <math.h>
#include <string.h>

#include "traces/fp16.h"

static double input_value(const a2_kernel *k, const a2_buf_decl *b, uint32_t rank, uint64_t i) {
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
 * traces/program.h), from the input recipe alone. */
static double want_of(const a2_kernel *k, const a2_buf_decl *in, uint32_t r, uint64_t idx,
                      uint64_t n) {
  const a2_golden *g = &k->golden;
  uint32_t P = k->nranks;
  double w = 0;
  switch (g->kind) {
  case A2_GOLDEN_ALLREDUCE:
  case A2_GOLDEN_REDUCE_SCATTER: {
    uint64_t i = g->kind == A2_GOLDEN_ALLREDUCE ? idx : (uint64_t)r * n + idx;
    w = input_value(k, in, 0, i);
    for (uint32_t q = 1; q < P; q++) w = reduce(g->op, w, input_value(k, in, q, i));
    return w;
  }
  case A2_GOLDEN_BROADCAST: return input_value(k, in, g->root, idx);
  case A2_GOLDEN_ALLGATHER: return input_value(k, in, (uint32_t)(idx / n), idx % n);
  case A2_GOLDEN_ALLTOALL:
    return input_value(k, in, (uint32_t)(idx / n), (uint64_t)r * n + idx % n);
  case A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER: {
    double v = input_value(k, in, g->root, idx % n);
    w = v;
    for (uint32_t q = 1; q < P; q++) w = reduce(g->op, w, v);
    return w;
  }
  default: return 0;
  }
}

void a2_check(const a2_kernel *k, const a2_sim *s, a2_check_result *res) {
  memset(res, 0, sizeof *res);
  const a2_golden *g = &k->golden;
  if (g->kind == A2_GOLDEN_NONE) {
    res->ok = true;
    return;
  }
  res->checked = true;
  const a2_buf_decl *in = &k->bufs[g->in_buf], *out = &k->bufs[g->out_buf];
  double rtol = out->dtype == A2_FP16 ? 1e-2 : 1e-5;
  uint64_t n = g->bytes / a2_dtype_size(out->dtype);
  bool wide = g->kind == A2_GOLDEN_ALLGATHER || g->kind == A2_GOLDEN_ALLTOALL ||
              g->kind == A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER;
  uint64_t total = wide ? n * k->nranks : n;
  /* The same value is wanted on every rank except for reduce-scatter and
   * all-to-all: compute it once per index then. */
  bool per_rank = g->kind == A2_GOLDEN_REDUCE_SCATTER || g->kind == A2_GOLDEN_ALLTOALL;
  for (uint64_t i = 0; i < total; i++) {
    double same = per_rank ? 0 : want_of(k, in, 0, i, n);
    for (uint32_t r = 0; r < k->nranks; r++) {
      double want = per_rank ? want_of(k, in, r, i, n) : same;
      double got = element(a2_sim_buffer(s, r, g->out_buf), out->dtype, i);
      res->elements++;
      double tol = rtol * (fabs(want) > 1.0 ? fabs(want) : 1.0);
      if (!(fabs(got - want) <= tol)) {
        if (res->nshow < A2_CHECK_SHOW) res->show[res->nshow++] = (a2_mismatch){r, i, got, want};
        res->mismatches++;
      }
    }
  }
  res->ok = res->mismatches == 0;
}
