/* The GEMM tiling of the GEMM built-ins (collectives/gemm_tiling.h). */
#include "collectives/gemm_tiling.h"

a2_gemm_shape a2_gemm_shape_of(const a2_coll_params *p) {
  a2_gemm_shape s;
  s.m = p->m ? p->m : (uint32_t)(p->size_bytes > A2_GEMM_MAX_DIM ? 0 : p->size_bytes);
  s.k = p->k ? p->k : A2_GEMM_DEFAULT_K;
  s.n = p->n ? p->n : A2_GEMM_DEFAULT_N;
  s.mt = s.m / A2_GEMM_BM;
  s.nt = s.n / A2_GEMM_BN;
  s.kt = s.k / A2_GEMM_BK;
  s.kp = s.kt / A2_GEMM_STEPK;
  return s;
}

uint32_t a2_gemm_compute_cores(const a2_coll_params *p) {
  return p->compute_cores ? p->compute_cores : p->cores ? p->cores : 1;
}

uint32_t a2_gemm_comm_cores(const a2_coll_params *p) {
  return p->comm_cores ? p->comm_cores : p->cores ? p->cores : 1;
}

static a2_code check_dim(const char *flag, const char *what, uint64_t v, uint32_t unit,
                         const char *algo, a2_err *err) {
  if (v > 0 && v % unit == 0 && v <= A2_GEMM_MAX_DIM) return A2_OK;
  uint64_t padded = (v + unit - 1) / unit * unit;
  return a2_err_set(err, A2_E_INPUT, flag, 0, 0,
                    "%llu: %s takes %s in elements, a multiple of %u (its tiling) from %u to %u; "
                    "pad it as gemm_ar does (to %llu)",
                    (unsigned long long)v, algo, what, unit, unit, A2_GEMM_MAX_DIM,
                    (unsigned long long)(padded ? padded : unit));
}

a2_code a2_gemm_check(const a2_coll_params *p, const char *algo, int comm, a2_err *err) {
  const char *mflag = p->m ? "--m" : "--size";
  uint64_t m = p->m ? p->m : p->size_bytes;
  a2_code rc;
  if ((rc = check_dim(mflag, p->m ? "M (rows of each rank's A and C)" : "--size as M, the rows", m,
                      A2_GEMM_BM, algo, err)) ||
      (rc = check_dim("--k", "K", p->k ? p->k : A2_GEMM_DEFAULT_K, A2_GEMM_BK * A2_GEMM_STEPK, algo,
                      err)) ||
      (rc = check_dim("--n", "N", p->n ? p->n : A2_GEMM_DEFAULT_N, A2_GEMM_BN, algo, err)))
    return rc;
  const char *cflag = p->compute_cores ? "--compute-cores" : "--cores";
  uint32_t C = a2_gemm_compute_cores(p);
  if (p->max_cube && C > p->max_cube)
    return a2_err_set(err, A2_E_INPUT, cflag, 0, 0,
                      "%s runs %u cube cores per rank; the chip has %u (chip.cube_cores)", algo, C,
                      p->max_cube);
  if (!comm && p->comm_cores)
    return a2_err_set(err, A2_E_INPUT, "--comm-cores", 0, 0,
                      "%s has no communication: its vector cores do nothing", algo);
  uint32_t V = a2_gemm_comm_cores(p);
  const char *vflag = p->comm_cores ? "--comm-cores" : "--cores";
  if (comm && p->max_cores && V > p->max_cores)
    return a2_err_set(err, A2_E_INPUT, vflag, 0, 0,
                      "%s runs %u vector cores per rank; the chip has %u (chip.vector_cores)", algo,
                      V, p->max_cores);
  if (p->op != A2_RED_SUM)
    return a2_err_set(err, A2_E_INPUT, "--op", 0, 0, "%s sums products; only sum, not %s", algo,
                      a2_reduce_name(p->op));
  return A2_OK;
}

void a2_gemm_declare_tiles(a2_tb *tb, a2_gemm_tiles *t) {
  uint64_t a1 = (uint64_t)A2_GEMM_BM * A2_GEMM_BK * A2_GEMM_STEPK * 2;
  uint64_t b1 = (uint64_t)A2_GEMM_BK * A2_GEMM_BN * A2_GEMM_STEPK * 2;
  uint64_t a0 = (uint64_t)A2_GEMM_BM * A2_GEMM_BK * 2, b0 = (uint64_t)A2_GEMM_BK * A2_GEMM_BN * 2;
  t->a1[0] = a2_tb_tile_in(tb, "a1p", A2_FP16, a1, A2_SPACE_L1);
  t->a1[1] = a2_tb_tile_in(tb, "a1q", A2_FP16, a1, A2_SPACE_L1);
  t->b1[0] = a2_tb_tile_in(tb, "b1p", A2_FP16, b1, A2_SPACE_L1);
  t->b1[1] = a2_tb_tile_in(tb, "b1q", A2_FP16, b1, A2_SPACE_L1);
  t->a0[0] = a2_tb_tile_in(tb, "a0p", A2_FP16, a0, A2_SPACE_L0A);
  t->a0[1] = a2_tb_tile_in(tb, "a0q", A2_FP16, a0, A2_SPACE_L0A);
  t->b0[0] = a2_tb_tile_in(tb, "b0p", A2_FP16, b0, A2_SPACE_L0B);
  t->b0[1] = a2_tb_tile_in(tb, "b0q", A2_FP16, b0, A2_SPACE_L0B);
  t->acc = a2_tb_tile_in(tb, "acc", A2_FP32, (uint64_t)A2_GEMM_BM * A2_GEMM_BN * 4, A2_SPACE_L0C);
}

void a2_gemm_golden_shape(a2_program *k, const a2_gemm_shape *s, uint16_t b_buf, uint32_t m_rows) {
  k->gemm.b_buf = b_buf;
  k->gemm.m = m_rows;
  k->gemm.k = s->k;
  k->gemm.n = s->n;
  k->gemm.bm = A2_GEMM_BM;
  k->gemm.bk = A2_GEMM_BK;
  k->gemm.bn = A2_GEMM_BN;
}

void a2_gemm_range(uint64_t ntiles, uint32_t C, uint32_t b, uint64_t *first, uint64_t *count) {
  uint64_t q = ntiles / C, r = ntiles % C;
  *count = q + (b < r);
  *first = b * q + (b < r ? b : r);
}

void a2_gemm_zigzag(uint64_t li, uint32_t nt, uint64_t *row, uint64_t *col) {
  *row = li / nt;
  uint64_t c = li % nt;
  *col = *row % 2 ? nt - 1 - c : c;
}

int a2_gemm_tile_step(a2_tb *tb, const a2_gemm_shape *s, const a2_gemm_tiles *t,
                      const a2_gemm_tile_at *at, uint64_t u) {
  const uint64_t ablk = (uint64_t)A2_GEMM_BM * A2_GEMM_BK * 2;
  const uint64_t bblk = (uint64_t)A2_GEMM_BK * A2_GEMM_BN * 2;
  const uint64_t per = A2_GEMM_STEPK + 1;
  if (u == (uint64_t)s->kp * per) {
    a2_tb_tfixpipe(tb, t->acc, at->cbuf, at->c_off, (uint64_t)A2_GEMM_BM * A2_GEMM_BN * 2);
    return 1;
  }
  uint64_t p = u / per, g = at->j * s->kp + p; /* panel count on this core: L1 ping/pong */
  if (u % per == 0) {
    a2_tb_tload(tb, t->a1[g % 2], at->abuf, at->a_off + p * A2_GEMM_STEPK * ablk,
                A2_GEMM_STEPK * ablk);
    a2_tb_tload(tb, t->b1[g % 2], at->bbuf, (at->col * s->kt + p * A2_GEMM_STEPK) * bblk,
                A2_GEMM_STEPK * bblk);
    return 0;
  }
  uint64_t sl = u % per - 1, h = (g * A2_GEMM_STEPK + sl) % 2; /* L0 ping/pong */
  a2_tb_textract(tb, t->a0[h], t->a1[g % 2], sl * ablk, ablk);
  a2_tb_textract(tb, t->b0[h], t->b1[g % 2], sl * bblk, bblk);
  a2_tb_tmatmul(tb, t->acc, t->a0[h], t->b0[h], A2_GEMM_BM, A2_GEMM_BK, A2_GEMM_BN,
                p > 0 || sl > 0);
  return 0;
}
