/* a2_program_write: a program as program-format text ("Files written by gen"
 * in docs/program-format.md): header lines, declarations, golden, card, then
 * one `program rank R core C` block per non-empty instruction list with
 * literal numbers in elements. The program is checked completely in a dry run
 * first, so a program the format cannot express (a byte offset inside an element, a
 * name that is not a name) writes nothing and returns A2_E_INTERNAL. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "traces/text.h"
#include "traces/text_internal.h"

typedef struct {
  FILE *f;
  int dry; /* check only */
  a2_err *err;
  a2_code rc;               /* first error */
  char where[64];           /* "rank 1 core 0 instruction 7" for messages */
  unsigned long long bytes; /* text the dry run would write */
} wr;

static void line(wr *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(wr *w, const char *fmt, ...) {
  if (w->rc) return;
  va_list ap;
  va_start(ap, fmt);
  if (w->dry) { /* count what would be written: the reader has a size limit */
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    w->bytes += (unsigned long long)(n > 0 ? n : 0) + 1;
    return;
  }
  vfprintf(w->f, fmt, ap);
  va_end(ap);
  fputc('\n', w->f);
}

static int bad(wr *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(wr *w, const char *fmt, ...) {
  if (w->rc) return 1;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  w->rc = a2_err_set(w->err, A2_E_INTERNAL, NULL, 0, 0, "cannot write the trace: %s%s%s", w->where,
                     w->where[0] ? ": " : "", msg);
  return 1;
}

static int name_ok(const char *s) {
  size_t n = strnlen(s, A2_NAME_MAX);
  if (n == 0 || n == A2_NAME_MAX) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
  }
  return 1;
}

/* bytes as elements of esz bytes; 0 (and an error) when not whole. */
static unsigned long long el(wr *w, uint64_t bytes, uint32_t esz, const char *what) {
  if (bytes % esz)
    bad(w, "%s of %llu bytes is not a whole number of %u-byte elements", what,
        (unsigned long long)bytes, esz);
  return (unsigned long long)(bytes / esz);
}

static void decls(wr *w, const a2_program *k) {
  static const char *const kinds[] = {"tensor", "window", "signal"};
  if (k->nbufs > A2_MAX_BUFS || k->ntiles > A2_MAX_TILES) bad(w, "too many buffers or tiles");
  for (uint32_t i = 0; i < k->nbufs && !w->rc; i++) {
    const a2_buf_decl *b = &k->bufs[i];
    if (!name_ok(b->name)) bad(w, "buffer #%u has no valid name", i);
    for (uint32_t j = 0; j < i; j++)
      if (!strcmp(b->name, k->bufs[j].name)) bad(w, "two buffers are named '%s'", b->name);
    if (b->kind > A2_BUF_SIGNAL || b->dtype > A2_INT32) bad(w, "buffer '%s': bad kind", b->name);
    if (b->kind == A2_BUF_SIGNAL && b->dtype != A2_INT32)
      bad(w, "signal '%s' is not int32", b->name);
    if (b->kind != A2_BUF_TENSOR && k->init[i] != A2_INIT_ZERO)
      bad(w, "'%s': only tensors can start with a pattern", b->name);
    if (w->rc) return;
    unsigned long long n = el(w, b->bytes, a2_dtype_size(b->dtype), b->name);
    if (b->kind == A2_BUF_SIGNAL)
      line(w, "signal %s[%llu]", b->name, n);
    else
      line(w, "%s %s %s[%llu]%s", kinds[b->kind], b->name, a2_dtype_name(b->dtype), n,
           k->init[i] == A2_INIT_PATTERN ? " = pattern" : "");
  }
  for (uint32_t i = 0; i < k->ntiles && !w->rc; i++) {
    const a2_tile_decl *t = &k->tiles[i];
    char base[A2_NAME_MAX];
    uint32_t run = 0; /* tiles NAME[0], NAME[1], ...: written as one tile array */
    if (!name_ok(t->name) && !(run = a2t_tile_array_run(k, i, base)))
      bad(w, "tile #%u has no valid name", i);
    for (uint32_t j = 0; j < i; j++)
      if (!strcmp(t->name, k->tiles[j].name)) bad(w, "two tiles are named '%s'", t->name);
    if (t->dtype > A2_INT32) bad(w, "tile '%s': bad element type", t->name);
    if (w->rc) return;
    if (t->space >= A2_SPACES) bad(w, "tile '%s': bad space", t->name);
    char sp[16] = "";
    if (t->space != A2_SPACE_UB)
      snprintf(sp, sizeof sp, " in %s", a2_space_name((a2_space)t->space));
    if (run) {
      line(w, "tile %s[%u] %s[%llu]%s", base, run, a2_dtype_name(t->dtype),
           el(w, t->bytes, a2_dtype_size(t->dtype), t->name), sp);
      i += run - 1;
    } else {
      line(w, "tile %s %s[%llu]%s", t->name, a2_dtype_name(t->dtype),
           el(w, t->bytes, a2_dtype_size(t->dtype), t->name), sp);
    }
  }
}

static void golden(wr *w, const a2_program *k) {
  const a2_golden *g = &k->golden;
  if (g->kind >= A2_GOLDEN_KINDS || g->op > A2_RED_PROD)
    bad(w, "golden: unknown kind or reduction");
  else if (a2_golden_is_gemm(g->kind) && k->gemm.b_buf >= k->nbufs)
    bad(w, "golden: unknown buffer");
  else if (g->kind != A2_GOLDEN_NONE && (g->in_buf >= k->nbufs || g->out_buf >= k->nbufs))
    bad(w, "golden: unknown buffer");
  if (w->rc) return;
  if (g->kind == A2_GOLDEN_NONE) {
    line(w, "golden none");
    return;
  }
  if (a2_golden_is_gemm(g->kind)) {
    line(w, "golden %s %s %s -> %s %u %u %u block %u %u %u", a2_golden_name(g->kind),
         k->bufs[g->in_buf].name, k->bufs[k->gemm.b_buf].name, k->bufs[g->out_buf].name, k->gemm.m,
         k->gemm.k, k->gemm.n, k->gemm.bm, k->gemm.bk, k->gemm.bn);
    return;
  }
  char pre[48] = "";
  int with_op = a2_golden_has_op(g->kind), with_root = a2_golden_has_root(g->kind);
  snprintf(pre, sizeof pre, "%s%s", with_op ? a2_reduce_name(g->op) : "", with_op ? " " : "");
  if (with_root) snprintf(pre + strlen(pre), sizeof pre - strlen(pre), "%u ", g->root);
  const a2_buf_decl *in = &k->bufs[g->in_buf], *out = &k->bufs[g->out_buf];
  line(w, "golden %s %s%s -> %s %llu", a2_golden_name(g->kind), pre, in->name, out->name,
       el(w, g->bytes, a2_dtype_size(in->dtype), "golden block"));
}

/* tload, textract, tmatmul, tstore_fixpipe */
static void cube_instr(wr *w, const a2_program *k, const a2_instr *in) {
  const char *op = a2_op_name((a2_opcode)in->op);
  int bufs = in->op == A2_OP_TLOAD || in->op == A2_OP_TFIXPIPE;
  if (in->tile >= k->ntiles || (!bufs && in->tile_a >= k->ntiles) ||
      (in->op == A2_OP_TMATMUL && in->tile_b >= k->ntiles) || (bufs && in->buf >= k->nbufs)) {
    bad(w, "%s: unknown tile or buffer", op);
    return;
  }
  const char *t = k->tiles[in->tile].name;
  if (bufs) {
    const a2_buf_decl *b = &k->bufs[in->buf];
    uint32_t es = a2_dtype_size(b->dtype);
    unsigned long long o = el(w, in->off, es, "offset"), l = el(w, in->len, es, "length");
    line(w, "  %s %s, %s[%llu:%llu]", op, t, b->name, o, l);
  } else if (in->op == A2_OP_TEXTRACT) {
    uint32_t es = a2_dtype_size(k->tiles[in->tile_a].dtype);
    unsigned long long o = el(w, in->off2, es, "offset"), l = el(w, in->len, es, "length");
    line(w, "  %s %s, %s[%llu:%llu]", op, t, k->tiles[in->tile_a].name, o, l);
  } else {
    if (in->mode > 1) bad(w, "%s: mode %u", op, in->mode);
    line(w, "  %s %s, %s, %s, %d, %u, %llu%s", op, t, k->tiles[in->tile_a].name,
         k->tiles[in->tile_b].name, in->value, in->chunk, (unsigned long long)in->off,
         in->mode ? " acc" : "");
  }
}

static void instr(wr *w, const a2_program *k, const a2_instr *in) {
  const char *op = a2_op_name((a2_opcode)in->op);
  if (in->op >= A2_OP_TLOAD && in->op < A2_OP_COUNT_) {
    cube_instr(w, k, in);
    return;
  }
  int vop = in->op >= A2_OP_VADD && in->op <= A2_OP_VMUL;
  int uses_tile = in->op <= A2_OP_RSTORE || vop;
  int uses_buf = in->op <= A2_OP_WAIT || in->op >= A2_OP_PUT;
  if (in->op >= A2_OP_COUNT_)
    bad(w, "unknown opcode %u", in->op);
  else if (uses_tile &&
           (in->tile >= k->ntiles || (vop && (in->tile_a >= k->ntiles || in->tile_b >= k->ntiles))))
    bad(w, "%s: unknown tile", op);
  else if (uses_buf && (in->buf >= k->nbufs || (in->op >= A2_OP_PUT && in->buf2 >= k->nbufs)))
    bad(w, "%s: unknown buffer", op);
  if (w->rc) return;
  const char *t = uses_tile ? k->tiles[in->tile].name : "";
  const a2_buf_decl *b = uses_buf ? &k->bufs[in->buf] : NULL;
  const a2_buf_decl *b2 = in->op >= A2_OP_PUT ? &k->bufs[in->buf2] : NULL;
  uint32_t es = b ? a2_dtype_size(b->dtype) : 1;
  unsigned long long o = b ? el(w, in->off, es, "offset") : 0;
  unsigned long long l = b ? el(w, in->len, es, "length") : 0;
  switch ((a2_opcode)in->op) {
  case A2_OP_LOAD:
  case A2_OP_STORE: line(w, "  %s %s, %s[%llu:%llu]", op, t, b->name, o, l); break;
  case A2_OP_RLOAD:
  case A2_OP_RSTORE:
    line(w, "  %s %s, %s@%d[%llu:%llu]%s", op, t, b->name, in->peer, o, l,
         in->op == A2_OP_RSTORE && in->mode == A2_MODE_ATOMIC_ADD ? " atomic_add" : "");
    break;
  case A2_OP_NOTIFY:
  case A2_OP_WAIT: {
    if (in->len != 4 || in->off % 4 || in->mode > 1) bad(w, "%s: not one int32 cell", op);
    const char *m = in->op == A2_OP_NOTIFY ? (in->mode ? "add" : "set") : (in->mode ? "ge" : "eq");
    char peer[16] = "";
    if (in->op == A2_OP_NOTIFY) snprintf(peer, sizeof peer, "@%d", in->peer);
    line(w, "  %s %s%s[%llu] %s %d", op, b->name, peer, (unsigned long long)(in->off / 4), m,
         in->value);
    break;
  }
  case A2_OP_COMPUTE: line(w, "  compute %d", in->value); break;
  case A2_OP_PUT:
  case A2_OP_GET: {
    unsigned long long o2 = el(w, in->off2, a2_dtype_size(b2->dtype), "offset");
    char ch[96] = "";
    if (in->mode & ~(A2_MODE_PIPELINE | A2_MODE_DMA_ATOMIC_ADD) ||
        (in->op == A2_OP_GET && in->mode & A2_MODE_DMA_ATOMIC_ADD))
      bad(w, "%s: mode %u", op, in->mode);
    if (in->mode & A2_MODE_DMA_ATOMIC_ADD) snprintf(ch, sizeof ch, " atomic_add");
    if (in->queue != A2_QUEUE_ANY)
      snprintf(ch + strlen(ch), sizeof ch - strlen(ch), " queue %u", in->queue);
    if (in->chunk || in->mode & A2_MODE_PIPELINE)
      snprintf(ch + strlen(ch), sizeof ch - strlen(ch), " chunk %llu%s",
               el(w, in->chunk, es, "chunk"), in->mode & A2_MODE_PIPELINE ? " pipeline" : "");
    if (in->op == A2_OP_PUT)
      line(w, "  put %s@%d[%llu:%llu], %s[%llu]%s", b->name, in->peer, o, l, b2->name, o2, ch);
    else
      line(w, "  get %s[%llu:%llu], %s@%d[%llu]%s", b->name, o, l, b2->name, in->peer, o2, ch);
    break;
  }
  default: { /* vadd, vmax, vmin, vmul */
    unsigned long long n = el(w, in->len, a2_dtype_size(k->tiles[in->tile].dtype), "length");
    line(w, "  %s %s, %s, %s, %llu", op, t, k->tiles[in->tile_a].name, k->tiles[in->tile_b].name,
         n);
  }
  }
}

static void program(wr *w, const a2_program *k) {
  w->where[0] = 0;
  line(w, "# a2a3sim trace (docs/program-format.md)");
  if (k->algo[0]) {
    if (!name_ok(k->algo) || k->op > A2_RED_PROD || k->dtype > A2_INT32)
      bad(w, "the builtin line (name '%.47s', op %u, dtype %u)", k->algo, k->op, k->dtype);
    else
      line(w, "builtin %s size %llu root %u op %s dtype %s", k->algo,
           (unsigned long long)k->size_bytes, k->root, a2_reduce_name((a2_reduce_op)k->op),
           a2_dtype_name(k->dtype));
  }
  if (k->nranks && k->ncores && !k->progs) bad(w, "the program has no instruction lists");
  line(w, "ranks %u", k->nranks);
  if (k->ncube > k->ncores || (k->ncube && k->ncube == k->ncores))
    bad(w, "%u cube cores of %u cores", k->ncube, k->ncores);
  line(w, "cores %u", k->ncores - k->ncube);
  if (k->ncube) line(w, "cube_cores %u", k->ncube);
  line(w, "seed %u", k->seed);
  decls(w, k);
  golden(w, k);
  if (k->has_card)
    line(w, "card remote_read %llu remote_write %llu rounds %llu",
         (unsigned long long)k->card_read_bytes, (unsigned long long)k->card_write_bytes,
         (unsigned long long)k->card_rounds);
  for (uint32_t r = 0; r < k->nranks && !w->rc; r++)
    for (uint32_t c = 0; c < k->ncores && !w->rc; c++) {
      const a2_instrs *p = &k->progs[(size_t)r * k->ncores + c];
      if (!p->n) continue;
      line(w, "%s", "");
      if (c >= k->ncores - k->ncube)
        line(w, "program rank %u cube %u", r, c - (k->ncores - k->ncube));
      else
        line(w, "program rank %u core %u", r, c);
      for (uint32_t i = 0; i < p->n && !w->rc; i++) {
        snprintf(w->where, sizeof w->where, "rank %u core %u instruction %u", r, c, i);
        instr(w, k, &p->v[i]);
      }
      w->where[0] = 0;
      line(w, "end");
    }
}

a2_code a2_program_write(const a2_program *k, FILE *out, a2_err *err) {
  wr w = {.f = out, .dry = 1, .err = err};
  program(&w, k); /* check everything before the first byte is written */
  if (w.rc) return w.rc;
  if (w.bytes > A2T_MAX_FILE) /* the file would not load: say so rather than write it */
    return a2_err_set(err, A2_E_INPUT, NULL, 0, 0,
                      "the trace would be %llu MiB, over the %u MiB a program file may have "
                      "(docs/program-format.md, Limits); run the built-in with --algo instead",
                      w.bytes >> 20, (unsigned)(A2T_MAX_FILE >> 20));
  w.dry = 0;
  program(&w, k);
  if (w.rc) return w.rc;
  if (fflush(out) || ferror(out))
    return a2_err_set(err, A2_E_IO, NULL, 0, 0, "cannot write the trace");
  return A2_OK;
}
