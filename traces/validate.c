#include "traces/validate.h"

#include <stdio.h>

#define FAIL(...) return a2_err_set(err, A2_E_INPUT, name, (int)in->line, 0, __VA_ARGS__)

static int region_ok(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

/* x is not a whole number of elements of t (sizes are powers of two: no
 * division, this runs for every instruction a streamed program produces). */
static int misaligned(uint64_t x, a2_dtype t) {
  return (x & (a2_dtype_size(t) - 1)) != 0;
}

/* inlined in its one caller: no call and register saves per instruction */
static inline __attribute__((always_inline)) a2_code check_instr(const a2_program *k,
                                                                 const a2_instr *in, uint32_t rank,
                                                                 const char *name, a2_err *err) {
  /* the name only when a message needs it: this runs for every instruction */
#define OPN a2_op_name((a2_opcode)in->op)
  if (in->op >= A2_OP_COUNT_) FAIL("unknown opcode %u", in->op);
  /* which operands each opcode has (a table: one load instead of a chain of
   * compares per instruction) */
  enum { BUF = 1, TILE = 2, PEER = 4 };
  static const uint8_t uses[A2_OP_COUNT_] = {[A2_OP_LOAD] = BUF | TILE,
                                             [A2_OP_STORE] = BUF | TILE,
                                             [A2_OP_RLOAD] = BUF | TILE | PEER,
                                             [A2_OP_RSTORE] = BUF | TILE | PEER,
                                             [A2_OP_NOTIFY] = BUF | PEER,
                                             [A2_OP_WAIT] = BUF,
                                             [A2_OP_VADD] = TILE,
                                             [A2_OP_VMAX] = TILE,
                                             [A2_OP_VMIN] = TILE,
                                             [A2_OP_VMUL] = TILE,
                                             [A2_OP_COMPUTE] = 0,
                                             [A2_OP_PUT] = BUF | PEER,
                                             [A2_OP_GET] = BUF | PEER,
                                             [A2_OP_TLOAD] = BUF | TILE,
                                             [A2_OP_TEXTRACT] = TILE,
                                             [A2_OP_TMATMUL] = 0,
                                             [A2_OP_TFIXPIPE] = BUF};
  int uses_buf = uses[in->op] & BUF, uses_tile = uses[in->op] & TILE;
  int uses_peer = uses[in->op] & PEER;
  const a2_buf_decl *b = NULL;
  const a2_tile_decl *t = NULL;
  if (uses_buf) {
    if (in->buf >= k->nbufs) FAIL("%s: unknown buffer #%u", OPN, in->buf);
    b = &k->bufs[in->buf];
  }
  if (uses_tile) {
    if (in->tile >= k->ntiles) FAIL("%s: unknown tile #%u", OPN, in->tile);
    t = &k->tiles[in->tile];
    if (in->len > t->bytes)
      FAIL("%s: %llu bytes do not fit tile '%s' (%llu bytes)", OPN, (unsigned long long)in->len,
           t->name, (unsigned long long)t->bytes);
    if (in->len == 0) FAIL("%s: length must be > 0", OPN);
    if (misaligned(in->len, t->dtype))
      FAIL("%s: length %llu is not a whole number of %s elements", OPN, (unsigned long long)in->len,
           a2_dtype_name(t->dtype));
  }
  if (uses_peer && (in->peer < 0 || (uint32_t)in->peer >= k->nranks))
    FAIL("%s: peer %d outside 0..%u", OPN, in->peer, k->nranks - 1);
  switch ((a2_opcode)in->op) {
  case A2_OP_LOAD:
  case A2_OP_STORE:
    if (b->kind == A2_BUF_SIGNAL) FAIL("%s: '%s' is a signal, not data", OPN, b->name);
    /* fallthrough */
  case A2_OP_RLOAD:
  case A2_OP_RSTORE:
    if ((in->op == A2_OP_RLOAD || in->op == A2_OP_RSTORE) && b->kind != A2_BUF_WINDOW)
      FAIL("%s: '%s' is not a window (only windows are reachable by peers)", OPN, b->name);
    if (!region_ok(in->off, in->len, b->bytes)) {
      uint32_t es = a2_dtype_size(b->dtype);
      FAIL("%s: elements [%llu, %llu) are outside '%s' (%llu elements; bytes [%llu, %llu) of %llu)",
           OPN, (unsigned long long)(in->off / es), (unsigned long long)((in->off + in->len) / es),
           b->name, (unsigned long long)(b->bytes / es), (unsigned long long)in->off,
           (unsigned long long)(in->off + in->len), (unsigned long long)b->bytes);
    }
    if (misaligned(in->off, b->dtype))
      FAIL("%s: offset %llu is not a whole number of %s elements", OPN, (unsigned long long)in->off,
           a2_dtype_name(b->dtype));
    if (b->dtype != t->dtype)
      FAIL("%s: element type mismatch: '%s' is %s, tile '%s' is %s", OPN, b->name,
           a2_dtype_name(b->dtype), t->name, a2_dtype_name(t->dtype));
    break;
  case A2_OP_NOTIFY:
  case A2_OP_WAIT:
    if (b->kind != A2_BUF_SIGNAL) FAIL("%s: '%s' is not a signal", OPN, b->name);
    if (in->off % 4 || !region_ok(in->off, 4, b->bytes))
      FAIL("%s: cell at byte %llu is outside signal '%s' (%llu cells)", OPN,
           (unsigned long long)in->off, b->name, (unsigned long long)(b->bytes / 4));
    break;
  case A2_OP_VADD:
  case A2_OP_VMAX:
  case A2_OP_VMIN:
  case A2_OP_VMUL:
    if (in->tile_a >= k->ntiles || in->tile_b >= k->ntiles) FAIL("%s: unknown source tile", OPN);
    if (k->tiles[in->tile_a].dtype != t->dtype || k->tiles[in->tile_b].dtype != t->dtype)
      FAIL("%s: element type mismatch between '%s', '%s' and '%s'", OPN, t->name,
           k->tiles[in->tile_a].name, k->tiles[in->tile_b].name);
    if (in->len > k->tiles[in->tile_a].bytes || in->len > k->tiles[in->tile_b].bytes)
      FAIL("%s: %llu bytes exceed a source tile", OPN, (unsigned long long)in->len);
    break;
  case A2_OP_PUT:
  case A2_OP_GET: {
    /* put: buf is the peer's window, buf2 the local source; get: the reverse */
    const a2_buf_decl *win = in->op == A2_OP_PUT ? b : NULL, *loc = in->op == A2_OP_PUT ? NULL : b;
    if (in->buf2 >= k->nbufs) FAIL("%s: unknown buffer #%u", OPN, in->buf2);
    const a2_buf_decl *b2 = &k->bufs[in->buf2];
    if (in->op == A2_OP_PUT)
      loc = b2;
    else
      win = b2;
    if (win->kind != A2_BUF_WINDOW)
      FAIL("%s: '%s' is not a window (only windows are reachable by peers)", OPN, win->name);
    if (loc->kind == A2_BUF_SIGNAL) FAIL("%s: '%s' is a signal, not data", OPN, loc->name);
    if (b->dtype != b2->dtype)
      FAIL("%s: element type mismatch: '%s' is %s, '%s' is %s", OPN, b->name,
           a2_dtype_name(b->dtype), b2->name, a2_dtype_name(b2->dtype));
    if (in->mode & ~(A2_MODE_PIPELINE | A2_MODE_DMA_ATOMIC_ADD) ||
        (in->op == A2_OP_GET && in->mode & A2_MODE_DMA_ATOMIC_ADD))
      FAIL("%s: mode %u (pipeline and, for a put, atomic_add)", OPN, in->mode);
    uint32_t es = a2_dtype_size(b->dtype);
    if (in->len == 0 || in->len % es || in->off % es || in->off2 % es || in->chunk % es)
      FAIL("%s: offsets, length and chunk must be whole %s elements (length > 0)", OPN,
           a2_dtype_name(b->dtype));
    if (!region_ok(in->off, in->len, b->bytes))
      FAIL("%s: region [%llu, %llu) is outside '%s' (%llu bytes)", OPN, (unsigned long long)in->off,
           (unsigned long long)(in->off + in->len), b->name, (unsigned long long)b->bytes);
    if (!region_ok(in->off2, in->len, b2->bytes))
      FAIL("%s: region [%llu, %llu) is outside '%s' (%llu bytes)", OPN,
           (unsigned long long)in->off2, (unsigned long long)(in->off2 + in->len), b2->name,
           (unsigned long long)b2->bytes);
    break;
  }
  case A2_OP_COMPUTE:
    if (in->value < 0) FAIL("compute: cycles must be >= 0");
    break;
  case A2_OP_TLOAD:
  case A2_OP_TEXTRACT:
  case A2_OP_TMATMUL:
  case A2_OP_TFIXPIPE: {
    a2_code rc = a2_validate_cube_instr(k, in, name, err);
    if (rc) return rc;
    break;
  }
  default: break;
  }
  (void)rank;
  return A2_OK;
#undef OPN
}

/* The golden's buffers must exist and hold the blocks its formula indexes. */
static a2_code check_golden(const a2_program *k, const char *name, a2_err *err) {
  const a2_golden *g = &k->golden;
  if (g->kind == A2_GOLDEN_NONE) return A2_OK;
  if (g->in_buf >= k->nbufs || g->out_buf >= k->nbufs)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0, "golden: unknown buffer");
  if (a2_golden_is_gemm(g->kind)) return a2_validate_gemm_golden(k, name, err);
  uint64_t P = k->nranks;
  int in_wide = g->kind == A2_GOLDEN_REDUCE_SCATTER || g->kind == A2_GOLDEN_ALLTOALL ||
                g->kind == A2_GOLDEN_SCATTER;
  int out_wide = g->kind == A2_GOLDEN_ALLGATHER || g->kind == A2_GOLDEN_ALLTOALL ||
                 g->kind == A2_GOLDEN_BCAST_ALLREDUCE_ALLGATHER || g->kind == A2_GOLDEN_GATHER;
  const a2_buf_decl *in = &k->bufs[g->in_buf], *out = &k->bufs[g->out_buf];
  if (in->dtype != out->dtype || g->bytes % a2_dtype_size(in->dtype))
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "golden: '%s' and '%s' must have one element type and whole elements",
                      in->name, out->name);
  if (in->bytes < (in_wide ? P : 1) * g->bytes || out->bytes < (out_wide ? P : 1) * g->bytes)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "golden: '%s' or '%s' is too small for %llu-byte blocks at %llu ranks",
                      in->name, out->name, (unsigned long long)g->bytes, (unsigned long long)P);
  if (g->root >= P)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0, "golden: root %u outside 0..%llu", g->root,
                      (unsigned long long)(P - 1));
  return A2_OK;
}

a2_code a2_program_validate(const a2_program *k, uint64_t ub_bytes, uint32_t max_cores,
                            const char *name, a2_err *err) {
  if (k->nranks == 0) return a2_err_set(err, A2_E_INPUT, name, 0, 0, "no ranks");
  if (k->ncube > k->ncores)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0, "%u cube cores of %u cores", k->ncube,
                      k->ncores);
  if (k->ncores == 0 || k->ncores - k->ncube > max_cores)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "%u vector cores per rank requested; the chip has %u", k->ncores - k->ncube,
                      max_cores);
  uint64_t ub = 0;
  for (uint32_t i = 0; i < k->ntiles; i++)
    if (k->tiles[i].space == A2_SPACE_UB) ub += k->tiles[i].bytes;
  if (ub > ub_bytes)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0,
                      "tiles need %llu bytes of unified buffer per core; the chip has %llu",
                      (unsigned long long)ub, (unsigned long long)ub_bytes);
  for (uint32_t i = 0; i < k->nbufs; i++)
    if (k->bufs[i].bytes % a2_dtype_size(k->bufs[i].dtype))
      return a2_err_set(err, A2_E_INPUT, name, 0, 0, "buffer '%s' is not a whole number of %s",
                        k->bufs[i].name, a2_dtype_name(k->bufs[i].dtype));
  a2_code grc = check_golden(k, name, err);
  if (grc) return grc;
  if (k->source) return A2_OK; /* streamed: each batch is checked as it is filled */
  for (uint32_t r = 0; r < k->nranks; r++)
    for (uint32_t c = 0; c < k->ncores; c++) {
      const a2_instrs *p = &k->progs[r * k->ncores + c];
      a2_code rc = a2_validate_batch(k, r, c, p->v, p->n, name, err);
      if (rc) return rc;
    }
  return A2_OK;
}

a2_code a2_validate_batch(const a2_program *k, uint32_t rank, uint32_t core, const a2_instr *v,
                          uint32_t n, const char *name, a2_err *err) {
  int cube = core >= k->ncores - k->ncube;
  for (uint32_t i = 0; i < n; i++) {
    a2_code rc = check_instr(k, &v[i], rank, name, err);
    if (!rc && (k->ncube || v[i].op >= A2_OP_TLOAD))
      rc = a2_validate_core_kind(k, &v[i], cube, name, err);
    if (rc) return rc;
  }
  return A2_OK;
}
