/* The AST expanded for a given P into an a2_kernel: declarations are
 * evaluated in file order, then every program block is run for each
 * (rank, core) it matches, unrolling loops and taking branches.
 *
 * Programs are expanded twice: first only counting (so that a refused file
 * allocates nothing and an accepted one gets exactly-sized programs), then
 * filling. Work is bounded before it is done where possible: a loop whose
 * trip count alone would pass the step or instruction limit is refused at
 * its `for`, without running an iteration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/text_internal.h"

typedef struct {
  const a2t_ast *a;
  const char *name;
  a2_kernel *k;
  a2_err *err;
  int64_t *env;
  uint64_t steps, ninstrs;
  int emit; /* 0: count into prog->cap; 1: append */
  a2_program *prog;
} xp;

static a2_code val(xp *x, uint32_t e, int64_t *v) {
  return a2t_eval(x->a, e, x->env, x->name, v, x->err);
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

static a2_code decl(xp *x, const a2t_decl *d, a2_kernel *k) {
  const a2t_ast *a = x->a;
  int64_t v = 0, w = 0;
  uint64_t b;
  a2_code rc = A2_OK;
  switch ((a2t_decl_kind)d->kind) {
  case D_KERNEL:
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
      return a2_err_set(x->err, A2_E_NOMEM, x->name, d->line, d->col,
                        "%u ranks x %lld cores is more than %u programs", k->nranks, (long long)v,
                        A2T_MAX_PROGS);
    k->ncores = (uint32_t)v;
    x->env[A2T_SLOT_NCORES] = v;
    return A2_OK;
  case D_SEED:
    if ((rc = ranged(x, d->e[0], 0, UINT32_MAX, "seed", &v))) return rc;
    k->seed = (uint32_t)v;
    return A2_OK;
  case D_LET: return val(x, d->e[0], &x->env[d->slot]);
  case D_BUF:
    if ((rc = bytes_of(x, d->e[0], a2_dtype_size(a->bufs[d->index].dtype), A2T_MAX_BYTES,
                       "element count", &b)))
      return rc;
    k->bufs[d->index].bytes = b;
    return A2_OK;
  case D_TILE:
    if ((rc = bytes_of(x, d->e[0], a2_dtype_size(a->tiles[d->index].dtype), A2T_MAX_BYTES,
                       "element count", &b)))
      return rc;
    k->tiles[d->index].bytes = b;
    return A2_OK;
  case D_GOLDEN:
    k->golden.kind = (a2_golden_kind)d->golden;
    if (d->golden == A2_GOLDEN_NONE) return A2_OK;
    k->golden.op = (a2_reduce_op)d->op;
    k->golden.in_buf = d->index;
    k->golden.out_buf = d->index2;
    if (d->e[1] != A2T_NONE && (rc = ranged(x, d->e[1], 0, UINT32_MAX, "root", &w))) return rc;
    k->golden.root = (uint32_t)w;
    return bytes_of(x, d->e[0], a2_dtype_size(a->bufs[d->index].dtype), A2T_MAX_BYTES,
                    "block size n", &k->golden.bytes);
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
  switch ((a2_opcode)s->op) {
  case A2_OP_NOTIFY:
  case A2_OP_WAIT:
    in->len = 4;
    if ((rc = bytes_of(x, e[E_OFF], 4, UINT64_MAX, "cell", &in->off)) ||
        (rc = int32_of(x, e[E_AUX], "value", &in->value)))
      return rc;
    break;
  case A2_OP_VADD:
  case A2_OP_VMAX:
  case A2_OP_VMIN:
  case A2_OP_VMUL:
    return bytes_of(x, e[E_LEN], a2_dtype_size(x->a->tiles[s->tile].dtype), UINT64_MAX, "length",
                    &in->len);
  case A2_OP_COMPUTE: return int32_of(x, e[E_AUX], "cycles", &in->value);
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
    break;
  }
  if (e[E_PEER] != A2T_NONE) rc = int32_of(x, e[E_PEER], "peer", &in->peer);
  return rc;
}

static a2_code step(xp *x, const a2t_stmt *s) {
  if (++x->steps <= A2T_MAX_STEPS) return A2_OK;
  return a2_err_set(x->err, A2_E_NOMEM, x->name, s->line, s->col,
                    "expansion runs more than 2^28 statements and loop iterations (a loop too "
                    "long?)");
}

static a2_code block(xp *x, uint32_t i);

static a2_code loop(xp *x, const a2t_stmt *s) {
  int64_t from, to;
  a2_code rc;
  if ((rc = val(x, s->e[0], &from)) || (rc = val(x, s->e[1], &to))) return rc;
  uint64_t n = to > from ? (uint64_t)to - (uint64_t)from : 0, cost;
  /* each iteration costs at least itself plus its body's statements */
  if (__builtin_mul_overflow(n, (uint64_t)s->nbody + 1, &cost) || cost > A2T_MAX_STEPS - x->steps)
    return a2_err_set(x->err, A2_E_NOMEM, x->name, s->line, s->col,
                      "loop of %llu iterations passes the expansion limit of 2^28 statements "
                      "and loop iterations",
                      (unsigned long long)n);
  if (__builtin_mul_overflow(n, (uint64_t)s->min_instrs, &cost) ||
      cost > A2T_MAX_INSTRS - x->ninstrs)
    return a2_err_set(x->err, A2_E_NOMEM, x->name, s->line, s->col,
                      "loop of %llu iterations makes more than 2^24 instructions",
                      (unsigned long long)n);
  for (int64_t v = from; v < to; v++) {
    x->env[s->slot] = v;
    if ((rc = step(x, s)) || (rc = block(x, s->body))) return rc;
  }
  return A2_OK;
}

static a2_code block(xp *x, uint32_t i) {
  a2_code rc;
  int64_t v;
  for (; i != A2T_NONE; i = x->a->st[i].next) {
    const a2t_stmt *s = &x->a->st[i];
    if ((rc = step(x, s))) return rc;
    switch ((a2t_st_kind)s->kind) {
    case ST_LET: rc = val(x, s->e[0], &x->env[s->slot]); break;
    case ST_IF:
      if (!(rc = val(x, s->e[0], &v))) rc = block(x, v ? s->body : s->other);
      break;
    case ST_FOR: rc = loop(x, s); break;
    case ST_INSTR: {
      if (++x->ninstrs > A2T_MAX_INSTRS)
        return a2_err_set(x->err, A2_E_NOMEM, x->name, s->line, s->col,
                          "more than 2^24 instructions in the file");
      a2_instr in;
      if ((rc = instr(x, s, &in))) return rc;
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

static a2_code programs(xp *x) {
  const a2t_ast *a = x->a;
  a2_kernel *k = x->k;
  a2_code rc;
  x->steps = x->ninstrs = 0;
  for (uint32_t b = 0; b < a->npg; b++) {
    const a2t_block *pb = &a->pg[b];
    int64_t r0 = 0, r1 = k->nranks, c = 0;
    if (pb->rank_e != A2T_NONE) {
      if ((rc = ranged(x, pb->rank_e, 0, (int64_t)k->nranks - 1, "program rank", &r0))) return rc;
      r1 = r0 + 1;
    }
    if (pb->core_e != A2T_NONE &&
        (rc = ranged(x, pb->core_e, 0, (int64_t)k->ncores - 1, "program core", &c)))
      return rc;
    for (int64_t r = r0; r < r1; r++) {
      x->env[a->slot_rank] = r;
      x->env[a->slot_core] = c;
      x->prog = a2_kernel_prog(k, (uint32_t)r, (uint32_t)c);
      if ((rc = block(x, pb->body))) return rc;
    }
  }
  return A2_OK;
}

static a2_code expand(xp *x, uint32_t nranks) {
  const a2t_ast *a = x->a;
  a2_kernel *k = x->k;
  a2_code rc;
  a2_kernel *d = calloc(1, sizeof *d); /* declarations, before the programs exist */
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
  if (!rc) rc = a2_kernel_init(k, nranks, d->ncores, x->err);
  if (!rc) {
    a2_program *progs = k->progs;
    *k = *d;
    k->progs = progs;
  }
  free(d);
  if (rc) return rc;
  if ((rc = programs(x))) return rc; /* count */
  for (size_t i = 0; i < (size_t)nranks * k->ncores; i++) {
    a2_program *p = &k->progs[i];
    if (!p->cap) continue;
    p->v = malloc((size_t)p->cap * sizeof *p->v);
    if (!p->v)
      return a2_err_set(x->err, A2_E_NOMEM, x->name, 0, 0, "out of memory for %u instructions",
                        p->cap);
  }
  x->emit = 1;
  return programs(x); /* fill: cannot fail, the count pass saw every value */
}

a2_code a2t_expand(const a2t_ast *ast, const char *name, uint32_t nranks, a2_kernel *k,
                   a2_err *err) {
  memset(k, 0, sizeof *k);
  if (nranks == 0 || nranks > A2T_MAX_PROGS)
    return a2_err_set(err, A2_E_INPUT, name, 0, 0, "%u ranks: expected 1..%u", nranks,
                      A2T_MAX_PROGS);
  xp x = {.a = ast, .name = name, .k = k, .err = err};
  x.env = calloc(ast->nslots, sizeof *x.env);
  if (!x.env) return a2_err_set(err, A2_E_NOMEM, name, 0, 0, "out of memory");
  a2_code rc = expand(&x, nranks);
  free(x.env);
  if (rc && k->progs) /* leave no half-counted programs behind */
    for (size_t i = 0; i < (size_t)k->nranks * k->ncores; i++) k->progs[i].n = k->progs[i].cap = 0;
  return rc;
}
