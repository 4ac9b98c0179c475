/* The AST expanded for a given P into an a2_program: declarations are
 * evaluated in file order, then every program block is run for each
 * (rank, core) it matches, unrolling loops and taking branches.
 *
 * Programs are expanded twice: first only counting (so that a refused file
 * allocates nothing and an accepted one gets exactly-sized programs), then
 * filling. Work is bounded before it is done where possible: a loop whose
 * trip count alone would pass the step or instruction limit is refused at
 * its `for`, without running an iteration. Otherwise every step (statement,
 * iteration, program block run for a rank, expression node) is counted as
 * it runs, so no file expands for longer than A2T_MAX_STEPS steps.
 *
 * Values that depend on $rank and $core are checked here, where the rank,
 * the core and the expression's column are known: peers and regions (the
 * same rules as traces/validate.c, which sees only the line), and every
 * error inside a program names the rank (and core) being expanded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/text_internal.h"

typedef struct {
  const a2t_ast *a;
  const char *name;
  a2_program *k;
  a2_err *err;
  int64_t *env;
  uint64_t steps, ninstrs;
  int emit; /* 0: count into prog->cap; 1: append */
  a2_instrs *prog;
  const a2_program_param *params; /* overrides of `param` values */
  size_t nparams;
  uint64_t rows[A2_MAX_BUFS], cols[A2_MAX_BUFS]; /* 2-D signals (a2t_ast.sig2d) */
} xp;

#define STEPS_WHAT "steps (statements run, loop iterations, program blocks and expression nodes)"

static a2_code val(xp *x, uint32_t e, int64_t *v) {
  a2_code rc = a2t_eval(x->a, e, x->env, x->name, v, &x->steps, x->err);
  if (rc || x->steps <= A2T_MAX_STEPS) return rc;
  const a2t_expr *n = &x->a->ex[e];
  return a2_err_set(x->err, A2_E_LIMIT, x->name, n->sline, n->scol,
                    "expansion takes more than 2^%d " STEPS_WHAT, A2T_MAX_STEPS_LOG2);
}

/* Evaluates e and requires lo <= value <= hi; errors name the expression. */
static a2_code ranged(xp *x, uint32_t e, int64_t lo, int64_t hi, const char *what, int64_t *v) {
  a2_code rc = val(x, e, v);
  if (rc) return rc;
  const a2t_expr *n = &x->a->ex[e];
  if (*v < lo && lo == 0)
    return a2_err_set(x->err, A2_E_INPUT, x->name, n->sline, n->scol, "%s %lld is negative", what,
                      (long long)*v);
  if (*v < lo || *v > hi)
    return a2_err_set(x->err, A2_E_INPUT, x->name, n->sline, n->scol,
                      "%s %lld is outside %lld..%lld", what, (long long)*v, (long long)lo,
                      (long long)hi);
  return A2_OK;
}

/* An element count or index in bytes of elements of esz bytes. */
static a2_code bytes_of(xp *x, uint32_t e, uint32_t esz, uint64_t max, const char *what,
                        uint64_t *out) {
  int64_t v;
  a2_code rc = ranged(x, e, 0, INT64_MAX, what, &v);
  if (rc) return rc;
  if ((uint64_t)v > max / esz) {
    const a2t_expr *n = &x->a->ex[e];
    return a2_err_set(x->err, A2_E_INPUT, x->name, n->sline, n->scol,
                      "%s %lld is too large (%llu bytes at most)", what, (long long)v,
                      (unsigned long long)max);
  }
  *out = (uint64_t)v * esz;
  return A2_OK;
}

/* ---- declarations ---- */

static a2_code decl(xp *x, const a2t_decl *d, a2_program *k) {
  const a2t_ast *a = x->a;
  int64_t v = 0, w = 0;
  uint64_t b;
  a2_code rc = A2_OK;
  switch ((a2t_decl_kind)d->kind) {
  case D_BUILTIN:
    snprintf(k->algo, sizeof k->algo, "%s", a->algo);
    k->op = d->op;
    k->dtype = (a2_dtype)d->dtype;
    if (d->e[0] != A2T_NONE && (rc = ranged(x, d->e[0], 0, INT64_MAX, "size", &v))) return rc;
    if (d->e[1] != A2T_NONE && (rc = ranged(x, d->e[1], 0, UINT32_MAX, "root", &w))) return rc;
    k->size_bytes = (uint64_t)v;
    k->root = (uint32_t)w;
    return A2_OK;
  case D_RANKS:
    if ((rc = val(x, d->e[0], &v))) return rc;
    if (v != (int64_t)k->nranks) {
      const a2t_expr *n = &a->ex[d->e[0]];
      return a2_err_set(x->err, A2_E_INPUT, x->name, n->sline, n->scol,
                        "this file is for %lld ranks ('ranks' on line %d), not %u", (long long)v,
                        d->line, k->nranks);
    }
    return A2_OK;
  case D_CORES:
    if ((rc = ranged(x, d->e[0], 1, A2T_MAX_CORES, "cores", &v))) return rc;
    if ((uint64_t)v * k->nranks > A2T_MAX_PROGS)
      return a2_err_set(x->err, A2_E_LIMIT, x->name, d->line, d->col,
                        "%u ranks x %lld cores is more than %u programs", k->nranks, (long long)v,
                        A2T_MAX_PROGS);
    k->ncores = (uint32_t)v;
    x->env[A2T_SLOT_NCORES] = v;
    return A2_OK;
  case D_CUBE_CORES: /* the cube cores follow the vector cores (expand adds them) */
    if ((rc = ranged(x, d->e[0], 0, A2T_MAX_CORES, "cube_cores", &v))) return rc;
    k->ncube = (uint32_t)v;
    return A2_OK;
  case D_SEED:
    if ((rc = ranged(x, d->e[0], 0, UINT32_MAX, "seed", &v))) return rc;
    k->seed = (uint32_t)v;
    return A2_OK;
  case D_LET: return val(x, d->e[0], &x->env[d->slot]);
  case D_PARAM:
    for (size_t i = 0; i < x->nparams; i++)
      if (!strcmp(x->params[i].name, a->params[d->index].name)) {
        x->env[d->slot] = x->params[i].value; /* the file's default is not evaluated */
        return A2_OK;
      }
    return val(x, d->e[0], &x->env[d->slot]);
  case D_BUF:
    if (a->sig2d[d->index]) { /* signal NAME[ROWS, COLS] */
      uint64_t rb, cb;
      if ((rc = bytes_of(x, d->e[0], 4, A2T_MAX_BYTES, "row count", &rb)) ||
          (rc = bytes_of(x, d->e[1], 4, A2T_MAX_BYTES, "column count", &cb)))
        return rc;
      x->rows[d->index] = rb / 4;
      x->cols[d->index] = cb / 4;
      if (x->cols[d->index] && x->rows[d->index] > A2T_MAX_BYTES / 4 / x->cols[d->index])
        return a2_err_set(x->err, A2_E_INPUT, x->name, d->line, d->col,
                          "signal of %llu rows x %llu columns is too large (%llu bytes at most)",
                          (unsigned long long)x->rows[d->index],
                          (unsigned long long)x->cols[d->index], (unsigned long long)A2T_MAX_BYTES);
      k->bufs[d->index].bytes = x->rows[d->index] * x->cols[d->index] * 4;
      return A2_OK;
    }
    if ((rc = bytes_of(x, d->e[0], a2_dtype_size(a->bufs[d->index].dtype), A2T_MAX_BYTES,
                       "element count", &b)))
      return rc;
    k->bufs[d->index].bytes = b;
    return A2_OK;
  case D_TILE: /* a tile, or the index2 tiles of a tile array */
    if ((rc = bytes_of(x, d->e[0], a2_dtype_size(a->tiles[d->index].dtype), A2T_MAX_BYTES,
                       "element count", &b)))
      return rc;
    for (uint32_t j = 0; j < d->index2; j++) k->tiles[d->index + j].bytes = b;
    return A2_OK;
  case D_GOLDEN:
    k->golden.kind = (a2_golden_kind)d->golden;
    if (d->golden == A2_GOLDEN_NONE) return A2_OK;
    if (a2_golden_is_gemm(d->golden)) {
      static const char *const what[6] = {"M", "K", "N", "BM", "BK", "BN"};
      uint32_t *dims[6] = {&k->gemm.m,  &k->gemm.k,  &k->gemm.n,
                           &k->gemm.bm, &k->gemm.bk, &k->gemm.bn};
      for (int i = 0; i < 6; i++) {
        if ((rc = ranged(x, d->e[i], 1, 1 << 20, what[i], &v))) return rc;
        *dims[i] = (uint32_t)v;
      }
      k->golden.in_buf = d->index;
      k->golden.out_buf = d->index2;
      k->gemm.b_buf = d->index3;
      k->golden.bytes = (uint64_t)k->gemm.m * k->gemm.n * a2_dtype_size(a->bufs[d->index2].dtype);
      return A2_OK;
    }
    k->golden.op = (a2_reduce_op)d->op;
    k->golden.in_buf = d->index;
    k->golden.out_buf = d->index2;
    if (d->e[1] != A2T_NONE &&
        (rc = ranged(x, d->e[1], 0, (int64_t)k->nranks - 1, "golden root", &w)))
      return rc;
    k->golden.root = (uint32_t)w;
    return bytes_of(x, d->e[0], a2_dtype_size(a->bufs[d->index].dtype), A2T_MAX_BYTES,
                    "block size n", &k->golden.bytes);
  case D_ASSERT:
    if ((rc = val(x, d->e[0], &v))) return rc;
    return v ? A2_OK : a2t_assert_failed(a, x->name, d->line, d->col, d->slot, x->err);
  case D_CARD:
    k->has_card = 1;
    if ((rc = ranged(x, d->e[0], 0, INT64_MAX, "remote_read", &v))) return rc;
    k->card_read_bytes = (uint64_t)v;
    if ((rc = ranged(x, d->e[1], 0, INT64_MAX, "remote_write", &v))) return rc;
    k->card_write_bytes = (uint64_t)v;
    if ((rc = ranged(x, d->e[2], 0, INT64_MAX, "rounds", &v))) return rc;
    k->card_rounds = (uint64_t)v;
    return A2_OK;
  }
  return A2_OK;
}

/* ---- programs ---- */

static uint32_t esz_buf(const xp *x, uint16_t b) {
  return a2_dtype_size(x->a->bufs[b].dtype);
}

static a2_code int32_of(xp *x, uint32_t e, const char *what, int32_t *out) {
  int64_t v;
  a2_code rc = ranged(x, e, INT32_MIN, INT32_MAX, what, &v);
  *out = (int32_t)v;
  return rc;
}

static a2_code instr(xp *x, const a2t_stmt *s, a2_instr *in) {
  const uint32_t *e = s->e;
  uint64_t cb = 0;
  a2_code rc = A2_OK;
  *in = (a2_instr){.op = s->op,
                   .mode = s->mode,
                   .tile = s->tile,
                   .tile_a = s->tile_a,
                   .tile_b = s->tile_b,
                   .buf = s->buf,
                   .buf2 = s->buf2,
                   .line = (uint32_t)s->line};
  uint16_t *tiles[3] = {&in->tile, &in->tile_a, &in->tile_b};
  for (int j = 0; j < 3; j++) /* elements of tile arrays (text_tiles.c) */
    if (s->tix[j] != A2T_NONE) {
      int64_t v;
      if ((rc = val(x, s->tix[j], &v)) ||
          (rc = a2t_tile_index(x->a, x->name, a2_op_name((a2_opcode)s->op), *tiles[j], s->tix[j], v,
                               tiles[j], x->err)))
        return rc;
    }
  switch ((a2_opcode)s->op) {
  case A2_OP_NOTIFY:
  case A2_OP_WAIT:
    in->len = 4;
    if (e[E_COL] != A2T_NONE) { /* a 2-D signal's [ROW, COL] (text_cells.c) */
      int64_t row, col;
      uint64_t cell;
      if ((rc = val(x, e[E_OFF], &row)) || (rc = val(x, e[E_COL], &col)) ||
          (rc = a2t_signal_cell(x->a, x->name, a2_op_name((a2_opcode)s->op), &x->k->bufs[s->buf],
                                e[E_OFF], e[E_COL], row, col, x->rows[s->buf], x->cols[s->buf],
                                &cell, x->err)))
        return rc;
      in->off = cell * 4;
    } else if ((rc = bytes_of(x, e[E_OFF], 4, UINT64_MAX, "cell", &in->off))) {
      return rc;
    }
    if ((rc = int32_of(x, e[E_AUX], "value", &in->value))) return rc;
    break;
  case A2_OP_VADD:
  case A2_OP_VMAX:
  case A2_OP_VMIN:
  case A2_OP_VMUL:
    return bytes_of(x, e[E_LEN], a2_dtype_size(x->a->tiles[s->tile].dtype), UINT64_MAX, "length",
                    &in->len);
  case A2_OP_COMPUTE: return int32_of(x, e[E_AUX], "cycles", &in->value);
  case A2_OP_TEXTRACT: {
    uint32_t es = a2_dtype_size(x->a->tiles[s->tile_a].dtype);
    return (rc = bytes_of(x, e[E_OFF2], es, UINT64_MAX, "offset", &in->off2))
               ? rc
               : bytes_of(x, e[E_LEN], es, UINT64_MAX, "length", &in->len);
  }
  case A2_OP_TMATMUL: { /* M, K, N: element counts (value, chunk, off) */
    int64_t kk, n;
    if ((rc = int32_of(x, e[E_AUX], "M", &in->value)) ||
        (rc = ranged(x, e[E_OFF2], 0, UINT32_MAX, "K", &kk)) ||
        (rc = ranged(x, e[E_OFF], 0, UINT32_MAX, "N", &n)))
      return rc;
    in->chunk = (uint32_t)kk;
    in->off = (uint64_t)n;
    return A2_OK;
  }
  default:
    if ((rc = bytes_of(x, e[E_OFF], esz_buf(x, s->buf), UINT64_MAX, "offset", &in->off)) ||
        (rc = bytes_of(x, e[E_LEN], esz_buf(x, s->buf), UINT64_MAX, "length", &in->len)))
      return rc;
    if (e[E_OFF2] != A2T_NONE &&
        (rc = bytes_of(x, e[E_OFF2], esz_buf(x, s->buf2), UINT64_MAX, "offset", &in->off2)))
      return rc;
    if (s->has_chunk) {
      if ((rc = bytes_of(x, e[E_AUX], esz_buf(x, s->buf), UINT32_MAX, "chunk", &cb))) return rc;
      in->chunk = (uint32_t)cb;
    }
    if (s->op == A2_OP_PUT || s->op == A2_OP_GET) {
      int64_t q = A2_QUEUE_ANY;
      if (e[E_QUEUE] != A2T_NONE && (rc = ranged(x, e[E_QUEUE], 0, A2_QUEUE_ANY - 1, "queue", &q)))
        return rc;
      in->queue = (uint16_t)q;
      x->k->uses_dma = 1;
    }
    break;
  }
  if (e[E_PEER] != A2T_NONE) rc = int32_of(x, e[E_PEER], "peer", &in->peer);
  return rc;
}

static int region_ok(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

/* The peer is a rank and the regions lie inside their buffers (the rules
 * and words of traces/validate.c, at the column of the expression). Buffer
 * kinds and element types do not depend on the rank: validate.c checks
 * them, and these checks leave an instruction that breaks them to it. */
static a2_code placed(xp *x, const a2t_stmt *s, const a2_instr *in) {
  const a2_program *k = x->k;
  const char *op = a2_op_name((a2_opcode)in->op);
  const a2t_expr *at;
  if (s->e[E_PEER] != A2T_NONE && (in->peer < 0 || (uint32_t)in->peer >= k->nranks)) {
    at = &x->a->ex[s->e[E_PEER]];
    return a2_err_set(x->err, A2_E_INPUT, x->name, at->sline, at->scol, "%s: peer %d outside 0..%u",
                      op, in->peer, k->nranks - 1);
  }
  if (s->e[E_OFF] == A2T_NONE) return A2_OK;
  at = &x->a->ex[s->e[E_OFF]];
  const a2_buf_decl *b = &k->bufs[in->buf];
  uint32_t es = a2_dtype_size(b->dtype);
  switch ((a2_opcode)in->op) {
  case A2_OP_LOAD:
  case A2_OP_STORE:
  case A2_OP_RLOAD:
  case A2_OP_RSTORE:
    if (in->len == 0 || region_ok(in->off, in->len, b->bytes)) return A2_OK;
    return a2_err_set(x->err, A2_E_INPUT, x->name, at->sline, at->scol,
                      "%s: elements [%llu, %llu) are outside '%s' (%llu elements; bytes [%llu, "
                      "%llu) of %llu)",
                      op, (unsigned long long)(in->off / es),
                      (unsigned long long)((in->off + in->len) / es), b->name,
                      (unsigned long long)(b->bytes / es), (unsigned long long)in->off,
                      (unsigned long long)(in->off + in->len), (unsigned long long)b->bytes);
  case A2_OP_NOTIFY:
  case A2_OP_WAIT:
    if (b->kind != A2_BUF_SIGNAL || region_ok(in->off, 4, b->bytes)) return A2_OK;
    return a2_err_set(x->err, A2_E_INPUT, x->name, at->sline, at->scol,
                      "%s: cell at byte %llu is outside signal '%s' (%llu cells)", op,
                      (unsigned long long)in->off, b->name, (unsigned long long)(b->bytes / 4));
  case A2_OP_PUT:
  case A2_OP_GET: {
    const a2_buf_decl *b2 = &k->bufs[in->buf2];
    if (in->len == 0 || b->dtype != b2->dtype) return A2_OK;
    int first = !region_ok(in->off, in->len, b->bytes);
    if (!first && region_ok(in->off2, in->len, b2->bytes)) return A2_OK;
    const a2_buf_decl *bad = first ? b : b2;
    uint64_t off = first ? in->off : in->off2;
    if (!first) at = &x->a->ex[s->e[E_OFF2]];
    return a2_err_set(x->err, A2_E_INPUT, x->name, at->sline, at->scol,
                      "%s: region [%llu, %llu) is outside '%s' (%llu bytes)", op,
                      (unsigned long long)off, (unsigned long long)(off + in->len), bad->name,
                      (unsigned long long)bad->bytes);
  }
  default: return A2_OK;
  }
}

static a2_code step(xp *x, int line, int col) {
  if (++x->steps <= A2T_MAX_STEPS) return A2_OK;
  return a2_err_set(x->err, A2_E_LIMIT, x->name, line, col,
                    "expansion takes more than 2^%d " STEPS_WHAT " (a loop too long?)",
                    A2T_MAX_STEPS_LOG2);
}

static a2_code block(xp *x, uint32_t i);

/* `for v in from .. to [step d]`: from, from + d, ... while below `to`
 * (d > 0) or above it (d < 0); d = 0 is an error at the step. */
static a2_code loop(xp *x, const a2t_stmt *s) {
  int64_t from, to, d = 1;
  a2_code rc;
  if ((rc = val(x, s->e[0], &from)) || (rc = val(x, s->e[1], &to))) return rc;
  if (s->e[2] != A2T_NONE) {
    if ((rc = val(x, s->e[2], &d))) return rc;
    if (d == 0) {
      const a2t_expr *n = &x->a->ex[s->e[2]];
      return a2_err_set(x->err, A2_E_INPUT, x->name, n->sline, n->scol,
                        "loop step 0: expected a positive or negative step");
    }
  }
  /* the span and the step as magnitudes (no overflow for any int64 bounds) */
  uint64_t span = d > 0 ? (to > from ? (uint64_t)to - (uint64_t)from : 0)
                        : (from > to ? (uint64_t)from - (uint64_t)to : 0);
  uint64_t ad = d > 0 ? (uint64_t)d : 0 - (uint64_t)d;
  uint64_t n = span / ad + (span % ad != 0), cost;
  /* each iteration costs at least itself plus its body's statements */
  if (__builtin_mul_overflow(n, (uint64_t)s->nbody + 1, &cost) || cost > A2T_MAX_STEPS ||
      x->steps > A2T_MAX_STEPS - cost)
    return a2_err_set(x->err, A2_E_LIMIT, x->name, s->line, s->col,
                      "loop of %llu iterations passes the expansion limit of 2^%d " STEPS_WHAT,
                      (unsigned long long)n, A2T_MAX_STEPS_LOG2);
  if (__builtin_mul_overflow(n, (uint64_t)s->min_instrs, &cost) ||
      cost > A2T_MAX_INSTRS - x->ninstrs)
    return a2_err_set(x->err, A2_E_LIMIT, x->name, s->line, s->col,
                      "loop of %llu iterations makes more than 2^%d instructions",
                      (unsigned long long)n, A2T_MAX_INSTRS_LOG2);
  for (uint64_t i = 0; i < n; i++) {
    /* from + i*d lies between from and to: computed unsigned, it wraps back into range */
    x->env[s->slot] = (int64_t)((uint64_t)from + i * (uint64_t)d);
    if ((rc = step(x, s->line, s->col)) || (rc = block(x, s->body))) return rc;
  }
  return A2_OK;
}

static a2_code block(xp *x, uint32_t i) {
  a2_code rc;
  int64_t v;
  for (; i != A2T_NONE; i = x->a->st[i].next) {
    const a2t_stmt *s = &x->a->st[i];
    if ((rc = step(x, s->line, s->col))) return rc;
    switch ((a2t_st_kind)s->kind) {
    case ST_LET: rc = val(x, s->e[0], &x->env[s->slot]); break;
    case ST_IF:
      if (!(rc = val(x, s->e[0], &v))) rc = block(x, v ? s->body : s->other);
      break;
    case ST_FOR: rc = loop(x, s); break;
    case ST_ASSERT:
      if (!(rc = val(x, s->e[0], &v)) && !v)
        rc = a2t_assert_failed(x->a, x->name, s->line, s->col, s->slot, x->err);
      break;
    case ST_INSTR: {
      if (++x->ninstrs > A2T_MAX_INSTRS)
        return a2_err_set(x->err, A2_E_LIMIT, x->name, s->line, s->col,
                          "more than 2^%d instructions in the file", A2T_MAX_INSTRS_LOG2);
      a2_instr in;
      if ((rc = instr(x, s, &in)) || (rc = placed(x, s, &in))) return rc;
      if (!x->emit) {
        x->prog->cap++;
      } else if (x->prog->n < x->prog->cap) {
        x->prog->v[x->prog->n++] = in; /* sized by the counting pass */
      } else {
        return a2_err_set(x->err, A2_E_INTERNAL, x->name, s->line, s->col,
                          "expansion differs between its two passes");
      }
      break;
    }
    }
    if (rc) return rc;
  }
  return A2_OK;
}

/* An error while expanding program block code for (rank r, core c) says so. */
static a2_code in_program(xp *x, a2_code rc, int64_t r, int64_t c) {
  if (!x->err || rc == A2_E_INTERNAL) return rc;
  size_t n = strlen(x->err->msg);
  if (x->k->ncores > 1)
    snprintf(x->err->msg + n, sizeof x->err->msg - n, " (rank %lld, core %lld)", (long long)r,
             (long long)c);
  else
    snprintf(x->err->msg + n, sizeof x->err->msg - n, " (rank %lld)", (long long)r);
  return rc;
}

static a2_code programs(xp *x) {
  const a2t_ast *a = x->a;
  a2_program *k = x->k;
  a2_code rc;
  x->steps = x->ninstrs = 0;
  for (uint32_t b = 0; b < a->npg; b++) {
    const a2t_block *pb = &a->pg[b];
    int64_t r0 = 0, r1 = k->nranks, c0 = 0, c1;
    if (pb->rank_e != A2T_NONE) {
      if ((rc = ranged(x, pb->rank_e, 0, (int64_t)k->nranks - 1, "program rank", &r0))) return rc;
      r1 = r0 + 1;
    }
    /* a `cube` block's cores are the last k->ncube; $core counts from 0 there */
    int64_t nk = pb->cube ? k->ncube : k->ncores - k->ncube,
            base = pb->cube ? k->ncores - k->ncube : 0;
    if (pb->cube && !k->ncube)
      return a2_err_set(x->err, A2_E_INPUT, x->name, pb->line, 1,
                        "a 'program cube' block needs cube cores: declare 'cube_cores N'");
    if (pb->core_e != A2T_NONE &&
        (rc = ranged(x, pb->core_e, 0, nk - 1, pb->cube ? "program cube" : "program core", &c0)))
      return rc;
    c1 = pb->core_all ? nk : c0 + 1;
    for (int64_t r = r0; r < r1; r++)
      for (int64_t c = c0; c < c1; c++) {
        x->env[a->slot_rank] = r;
        x->env[a->slot_core] = c;
        x->prog = a2_program_instrs(k, (uint32_t)r, (uint32_t)(base + c));
        if ((rc = step(x, pb->line, 1)) || (rc = block(x, pb->body)))
          return in_program(x, rc, r, c);
      }
  }
  return A2_OK;
}

/* A program without a single instruction runs and checks nothing: refused,
 * with what is missing. */
static a2_code no_work(const xp *x) {
  const a2t_ast *a = x->a;
  if (!a->npg)
    return a2_err_set(x->err, A2_E_INPUT, x->name, a->end_line, a->end_col,
                      "no 'program' block, so no instruction to run: add one after the "
                      "declarations ('program', instructions, 'end'; docs/program-format.md)");
  return a2_err_set(x->err, A2_E_INPUT, x->name, a->pg[0].line, 1,
                    "no instruction on any of the %u ranks: the 'program' blocks are empty for "
                    "this rank count (are their 'rank', 'core', 'if' or loop bounds right?)",
                    x->k->nranks);
}

static a2_code expand(xp *x, uint32_t nranks) {
  const a2t_ast *a = x->a;
  a2_program *k = x->k;
  a2_code rc;
  a2_program *d = calloc(1, sizeof *d); /* declarations, before the programs exist */
  if (!d) return a2_err_set(x->err, A2_E_NOMEM, x->name, 0, 0, "out of memory");
  d->nranks = nranks;
  d->ncores = 1;
  d->seed = 1;
  d->nbufs = a->nbufs;
  d->ntiles = a->ntiles;
  memcpy(d->bufs, a->bufs, sizeof d->bufs);
  memcpy(d->init, a->init, sizeof d->init);
  memcpy(d->tiles, a->tiles, sizeof d->tiles);
  x->env[A2T_SLOT_NRANKS] = nranks;
  x->env[A2T_SLOT_NCORES] = 1;
  rc = A2_OK;
  for (uint32_t i = 0; i < a->ndl && !rc; i++) rc = decl(x, &a->dl[i], d);
  if (!rc && (uint64_t)(d->ncores + d->ncube) * nranks > A2T_MAX_PROGS)
    rc = a2_err_set(x->err, A2_E_NOMEM, x->name, 0, 0, "more than %u programs", A2T_MAX_PROGS);
  if (!rc) rc = a2_program_init(k, nranks, d->ncores + d->ncube, x->err);
  if (!rc) {
    a2_instrs *progs = k->progs;
    *k = *d;
    k->progs = progs;
    k->ncores = d->ncores + d->ncube; /* the vector cores, then the cube cores */
  }
  free(d);
  if (rc) return rc;
  if ((rc = programs(x))) return rc; /* count */
  if (!x->ninstrs) return no_work(x);
  for (size_t i = 0; i < (size_t)nranks * k->ncores; i++) {
    a2_instrs *p = &k->progs[i];
    if (!p->cap) continue;
    p->v = malloc((size_t)p->cap * sizeof *p->v);
    if (!p->v)
      return a2_err_set(x->err, A2_E_NOMEM, x->name, 0, 0, "out of memory for %u instructions",
                        p->cap);
  }
  x->emit = 1;
  return programs(x); /* fill: cannot fail, the count pass saw every value */
}

a2_code a2t_expand(const a2t_ast *ast, const char *name, uint32_t nranks,
                   const a2_program_param *params, size_t nparams, a2_program *k, a2_err *err) {
  memset(k, 0, sizeof *k);
  if (nranks == 0 || nranks > A2T_MAX_PROGS)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0, "%u ranks: expected 1..%u", nranks,
                      A2T_MAX_PROGS);
  xp x = {.a = ast, .name = name, .k = k, .err = err, .params = params, .nparams = nparams};
  x.env = calloc(ast->nslots, sizeof *x.env);
  if (!x.env) return a2_err_set(err, A2_E_NOMEM, name, 0, 0, "out of memory");
  a2_code rc = expand(&x, nranks);
  free(x.env);
  if (rc && k->progs) /* leave no half-counted programs behind */
    for (size_t i = 0; i < (size_t)k->nranks * k->ncores; i++) k->progs[i].n = k->progs[i].cap = 0;
  return rc;
}
