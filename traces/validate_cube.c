/* The static checks of cube (AIC) cores' programs: tile spaces and their
 * capacities, the cube instructions' operands, which core kind may run
 * which instruction (validate.h). */
#include <stdio.h>

#include "traces/validate.h"

#define FAIL(...) return a2_err_set(err, A2_E_INPUT, name, (int)in->line, 0, __VA_ARGS__)

a2_code a2_program_validate_cube(const a2_program *k, const a2_cube_caps *caps, const char *name,
                                 a2_err *err) {
  if (k->ncube > caps->max_cube)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "%u cube cores per rank requested; the chip has %u (chip.cube_cores)",
                      k->ncube, caps->max_cube);
  uint64_t used[A2_SPACES] = {0};
  for (uint32_t i = 0; i < k->ntiles; i++) {
    const a2_tile_decl *t = &k->tiles[i];
    if (t->space >= A2_SPACES)
      return a2_err_set(err, A2_E_INPUT, name, 0, 0, "tile '%s': unknown space %u", t->name,
                        t->space);
    used[t->space] += t->bytes;
  }
  static const char *const key[A2_SPACES] = {"chip.ub_size", "chip.cube.l1_size",
                                             "chip.cube.l0a_size", "chip.cube.l0b_size",
                                             "chip.cube.l0c_size"};
  for (int s = 1; s < A2_SPACES; s++)
    if (used[s] > caps->cap[s])
      return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                        "tiles in %s need %llu bytes per cube core; the chip has %llu (%s)",
                        a2_space_name((a2_space)s), (unsigned long long)used[s],
                        (unsigned long long)caps->cap[s], key[s]);
  return A2_OK;
}

static a2_code want_space(const a2_program *k, const a2_instr *in, uint16_t tile, a2_space s1,
                          a2_space s2, const char *what, const char *name, a2_err *err) {
  const char *op = a2_op_name((a2_opcode)in->op);
  if (tile >= k->ntiles) FAIL("%s: unknown tile #%u", op, tile);
  const a2_tile_decl *t = &k->tiles[tile];
  if (t->space != s1 && t->space != s2) {
    if (s1 == s2)
      FAIL("%s: %s '%s' is in %s; it must be a tile in %s", op, what, t->name,
           a2_space_name((a2_space)t->space), a2_space_name(s1));
    FAIL("%s: %s '%s' is in %s; it must be a tile in %s or %s", op, what, t->name,
         a2_space_name((a2_space)t->space), a2_space_name(s1), a2_space_name(s2));
  }
  return A2_OK;
}

a2_code a2_validate_cube_instr(const a2_program *k, const a2_instr *in, const char *name,
                               a2_err *err) {
  a2_code rc;
  const char *op = a2_op_name((a2_opcode)in->op);
  switch ((a2_opcode)in->op) {
  case A2_OP_TLOAD: {
    /* buffer, region, element type: validate.c's load checks did not run */
    const a2_buf_decl *b = &k->bufs[in->buf];
    const a2_tile_decl *t = &k->tiles[in->tile];
    if ((rc = want_space(k, in, in->tile, A2_SPACE_L1, A2_SPACE_L1, "destination", name, err)))
      return rc;
    if (b->kind == A2_BUF_SIGNAL) FAIL("%s: '%s' is a signal, not data", op, b->name);
    if (in->off > b->bytes || in->len > b->bytes - in->off || in->off % a2_dtype_size(b->dtype))
      FAIL("%s: bytes [%llu, %llu) are outside '%s' (%llu bytes) or not whole elements", op,
           (unsigned long long)in->off, (unsigned long long)(in->off + in->len), b->name,
           (unsigned long long)b->bytes);
    if (b->dtype != t->dtype)
      FAIL("%s: element type mismatch: '%s' is %s, tile '%s' is %s", op, b->name,
           a2_dtype_name(b->dtype), t->name, a2_dtype_name(t->dtype));
    return A2_OK;
  }
  case A2_OP_TEXTRACT: {
    if ((rc = want_space(k, in, in->tile, A2_SPACE_L0A, A2_SPACE_L0B, "destination", name, err)) ||
        (rc = want_space(k, in, in->tile_a, A2_SPACE_L1, A2_SPACE_L1, "source", name, err)))
      return rc;
    const a2_tile_decl *d = &k->tiles[in->tile], *s = &k->tiles[in->tile_a];
    if (d->dtype != s->dtype)
      FAIL("%s: element type mismatch between '%s' and '%s'", op, d->name, s->name);
    if (in->off2 > s->bytes || in->len > s->bytes - in->off2 || in->off2 % a2_dtype_size(s->dtype))
      FAIL("%s: bytes [%llu, %llu) are outside source tile '%s' (%llu bytes)", op,
           (unsigned long long)in->off2, (unsigned long long)(in->off2 + in->len), s->name,
           (unsigned long long)s->bytes);
    return A2_OK;
  }
  case A2_OP_TMATMUL: {
    if ((rc = want_space(k, in, in->tile, A2_SPACE_L0C, A2_SPACE_L0C, "destination", name, err)) ||
        (rc = want_space(k, in, in->tile_a, A2_SPACE_L0A, A2_SPACE_L0A, "left operand", name,
                         err)) ||
        (rc =
             want_space(k, in, in->tile_b, A2_SPACE_L0B, A2_SPACE_L0B, "right operand", name, err)))
      return rc;
    const a2_tile_decl *c = &k->tiles[in->tile], *a = &k->tiles[in->tile_a],
                       *b = &k->tiles[in->tile_b];
    if (c->dtype != A2_FP32 || a->dtype != A2_FP16 || b->dtype != A2_FP16)
      FAIL(
          "%s: the cube multiplies fp16 operands into an fp32 accumulator ('%s' %s, '%s' %s, "
          "'%s' %s)",
          op, c->name, a2_dtype_name(c->dtype), a->name, a2_dtype_name(a->dtype), b->name,
          a2_dtype_name(b->dtype));
    uint64_t m = (uint64_t)in->value, kk = in->chunk, n = in->off;
    if (in->value <= 0 || kk == 0 || n == 0 || m % 16 || kk % 16 || n % 16 || m > 1u << 20 ||
        kk > 1u << 20 || n > 1u << 20)
      FAIL(
          "%s: shape %lld x %llu x %llu: M, K and N must be positive multiples of 16 (the "
          "cube's 16 x 16 fractal), at most 2^20",
          op, (long long)in->value, (unsigned long long)kk, (unsigned long long)n);
    if (m * kk * 2 > a->bytes || kk * n * 2 > b->bytes || m * n * 4 > c->bytes)
      FAIL(
          "%s: shape %llu x %llu x %llu does not fit '%s' (%llu B), '%s' (%llu B) and '%s' "
          "(%llu B)",
          op, (unsigned long long)m, (unsigned long long)kk, (unsigned long long)n, a->name,
          (unsigned long long)a->bytes, b->name, (unsigned long long)b->bytes, c->name,
          (unsigned long long)c->bytes);
    if (in->mode > 1) FAIL("%s: mode %u (0 or 1: accumulate)", op, in->mode);
    return A2_OK;
  }
  case A2_OP_TFIXPIPE: {
    if (in->tile >= k->ntiles) FAIL("%s: unknown tile #%u", op, in->tile);
    if ((rc = want_space(k, in, in->tile, A2_SPACE_L0C, A2_SPACE_L0C, "source", name, err)))
      return rc;
    const a2_buf_decl *b = &k->bufs[in->buf];
    const a2_tile_decl *t = &k->tiles[in->tile];
    if (b->kind == A2_BUF_SIGNAL) FAIL("%s: '%s' is a signal, not data", op, b->name);
    if (t->dtype != A2_FP32 || b->dtype == A2_INT32)
      FAIL("%s: FixPipe casts an fp32 accumulator to fp16 or fp32 ('%s' is %s, '%s' is %s)", op,
           t->name, a2_dtype_name(t->dtype), b->name, a2_dtype_name(b->dtype));
    uint32_t es = a2_dtype_size(b->dtype);
    if (in->len == 0 || in->len % es || in->off % es || in->off > b->bytes ||
        in->len > b->bytes - in->off)
      FAIL("%s: bytes [%llu, %llu) are outside '%s' (%llu bytes) or not whole elements", op,
           (unsigned long long)in->off, (unsigned long long)(in->off + in->len), b->name,
           (unsigned long long)b->bytes);
    if (in->len / es * 4 > t->bytes)
      FAIL("%s: %llu elements exceed tile '%s' (%llu fp32 elements)", op,
           (unsigned long long)(in->len / es), t->name, (unsigned long long)(t->bytes / 4));
    return A2_OK;
  }
  default: return A2_OK;
  }
}

a2_code a2_validate_core_kind(const a2_program *k, const a2_instr *in, int cube, const char *name,
                              a2_err *err) {
  const char *op = a2_op_name((a2_opcode)in->op);
  int cube_op = in->op >= A2_OP_TLOAD && in->op <= A2_OP_TFIXPIPE;
  int either = in->op == A2_OP_NOTIFY || in->op == A2_OP_WAIT || in->op == A2_OP_COMPUTE;
  if (cube_op && !cube)
    FAIL("%s on a vector core: cube instructions run on the cube (AIC) cores ('program cube')", op);
  int vec_tiles = in->op <= A2_OP_RSTORE || (in->op >= A2_OP_VADD && in->op <= A2_OP_VMUL);
  if (vec_tiles && !cube && in->op != A2_OP_NOTIFY && in->op != A2_OP_WAIT) {
    uint16_t ts[3] = {in->tile, in->tile_a, in->tile_b};
    int nt = in->op >= A2_OP_VADD ? 3 : 1;
    for (int i = 0; i < nt; i++)
      if (ts[i] < k->ntiles && k->tiles[ts[i]].space != A2_SPACE_UB)
        FAIL("%s: tile '%s' is in %s, a cube core's buffer; a vector core's tiles are in ub", op,
             k->tiles[ts[i]].name, a2_space_name((a2_space)k->tiles[ts[i]].space));
  }
  if (!cube_op && !either && cube)
    FAIL(
        "%s on a cube core: a cube (AIC) core has no unified buffer or vector unit; it runs "
        "tload, textract, tmatmul, tstore_fixpipe, notify, wait and compute",
        op);
  return A2_OK;
}

a2_code a2_validate_gemm_golden(const a2_program *k, const char *name, a2_err *err) {
  const a2_golden *g = &k->golden;
  uint64_t M = k->gemm.m, K = k->gemm.k, N = k->gemm.n;
  if (k->gemm.b_buf >= k->nbufs)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0, "golden: unknown buffer");
  const a2_buf_decl *A = &k->bufs[g->in_buf], *B = &k->bufs[k->gemm.b_buf],
                    *C = &k->bufs[g->out_buf];
  if (A->dtype != A2_FP16 || B->dtype != A2_FP16 || C->dtype == A2_INT32)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "golden %s: operands '%s' and '%s' must be fp16, the output fp16 or fp32",
                      a2_golden_name(g->kind), A->name, B->name);
  if (!M || !K || !N || !k->gemm.bm || !k->gemm.bk || !k->gemm.bn || M % k->gemm.bm ||
      K % k->gemm.bk || N % k->gemm.bn)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "golden %s: blocks %u x %u x %u do not divide %llu x %llu x %llu",
                      a2_golden_name(g->kind), k->gemm.bm, k->gemm.bk, k->gemm.bn,
                      (unsigned long long)M, (unsigned long long)K, (unsigned long long)N);
  uint64_t rows = g->kind == A2_GOLDEN_ALLGATHER_GEMM ? M * k->nranks : M; /* of C */
  if (A->bytes < M * K * 2 || B->bytes < K * N * 2 || C->bytes < rows * N * a2_dtype_size(C->dtype))
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "golden %s: '%s', '%s' or '%s' is smaller than %llu x %llu, %llu x %llu or "
                      "%llu x %llu elements",
                      a2_golden_name(g->kind), A->name, B->name, C->name, (unsigned long long)M,
                      (unsigned long long)K, (unsigned long long)K, (unsigned long long)N,
                      (unsigned long long)rows, (unsigned long long)N);
  return A2_OK;
}
