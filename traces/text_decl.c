/* Top-level declarations into the AST (docs/program-format.md,
 * "Declarations"). Buffer and tile names, kinds and element types are fixed
 * here; their sizes (and every other number) stay expressions, evaluated for
 * the chosen P in text_expand.c. */
#include <stdio.h>
#include <string.h>

#include "traces/text_internal.h"

/* Indices into a2t_decl_words. */
enum {
  KW_BUILTIN,
  KW_RANKS,
  KW_CORES,
  KW_SEED,
  KW_LET,
  KW_TENSOR,
  KW_WINDOW,
  KW_SIGNAL,
  KW_TILE,
  KW_GOLDEN,
  KW_CARD,
  KW_PARAM,
  KW_CUBE_CORES,
  KW_KERNEL /* the deprecated spelling of KW_BUILTIN */
};

static a2_code word(a2t_parser *p, const char *w, const char *what) {
  if (!a2t_tok_is(&p->cur, w)) return a2t_expected(p, what);
  return a2t_next(p);
}

/* builtin NAME [size EXPR] [root EXPR] [op OP] [dtype DTYPE]; `spelled` is
 * the keyword as written (builtin, or its deprecated spelling kernel). */
static a2_code parse_builtin(a2t_parser *p, a2t_decl *d, const char *spelled) {
  static const char *const opts[] = {"size", "root", "op", "dtype"};
  int seen[4] = {0};
  a2_code rc;
  char what[48];
  snprintf(what, sizeof what, "the built-in's name after '%s'", spelled);
  d->kind = D_BUILTIN;
  if ((rc = a2t_expect_name(p, what, p->ast->algo))) return rc;
  while (p->cur.kind == TK_NAME) {
    int i = 0;
    while (i < 4 && !a2t_tok_is(&p->cur, opts[i])) i++;
    if (i == 4) break;
    if (seen[i]++) return a2t_fail(p, p->cur.line, p->cur.col, "'%s' given twice", opts[i]);
    if ((rc = a2t_next(p))) return rc;
    a2_reduce_op op;
    a2_dtype dt;
    switch (i) {
    case 0: rc = a2t_parse_int(p, &d->e[0]); break;
    case 1: rc = a2t_parse_int(p, &d->e[1]); break;
    case 2: rc = a2t_parse_redop(p, &op), d->op = (uint8_t)op; break;
    default: rc = a2t_parse_dtype(p, &dt), d->dtype = (uint8_t)dt; break;
    }
    if (rc) return rc;
  }
  if (p->cur.kind != TK_EOL && p->cur.kind != TK_EOF)
    return a2t_expected(p, "'size', 'root', 'op', 'dtype' or end of line");
  return A2_OK;
}

/* tensor / window / signal / tile NAME [DTYPE][EXPR] [= pattern | = zero] */
static a2_code parse_storage(a2t_parser *p, int kw, a2t_decl *d) {
  static const char *const what[] = {[KW_TENSOR] = "a tensor name after 'tensor'",
                                     [KW_WINDOW] = "a window name after 'window'",
                                     [KW_SIGNAL] = "a signal name after 'signal'",
                                     [KW_TILE] = "a tile name after 'tile'"};
  a2t_ast *a = p->ast;
  int is_tile = kw == KW_TILE;
  uint32_t n = is_tile ? a->ntiles : a->nbufs, max = is_tile ? A2_MAX_TILES : A2_MAX_BUFS;
  a2t_tok t = p->cur;
  char nm[A2_NAME_MAX];
  a2_dtype dt = A2_INT32;
  a2_code rc = a2t_expect_name(p, what[kw], nm);
  if (rc) return rc;
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(nm, is_tile ? a->tiles[i].name : a->bufs[i].name))
      return a2t_fail(p, t.line, t.col, "%s '%s' is already declared (line %d)",
                      is_tile ? "tile" : "buffer", nm, is_tile ? p->tile_line[i] : p->buf_line[i]);
  int arr = is_tile ? a2t_tile_array_find(a, nm, strlen(nm)) : -1;
  if (arr >= 0)
    return a2t_fail(p, t.line, t.col, "tile '%s' is already declared (line %d)", nm,
                    p->tile_line[a->tarr[arr].first]);
  if (n == max)
    return a2t_fail(p, t.line, t.col, "more than %u %s", max, is_tile ? "tiles" : "buffers");
  uint32_t count = 0; /* tile NAME[COUNT]: a tile array (text_tiles.c); 0: a single tile */
  if (is_tile && p->cur.kind == TK_LBRACK && strlen(nm) > A2T_MAX_ARRAY_NAME)
    return a2t_fail(p, t.line, t.col, "tile array name '%s' is longer than %d characters", nm,
                    A2T_MAX_ARRAY_NAME);
  if (is_tile && (rc = a2t_parse_tile_count(p, n, &count))) return rc;
  if (kw == KW_SIGNAL && p->cur.kind == TK_NAME)
    return a2t_fail(p, p->cur.line, p->cur.col,
                    "a signal has no element type (its cells are int32): write 'signal %s[N]'", nm);
  if (kw != KW_SIGNAL && (rc = a2t_parse_dtype(p, &dt))) return rc;
  if ((rc = a2t_expect(p, TK_LBRACK, "'[' and an element count")) ||
      (rc = a2t_parse_int(p, &d->e[0])))
    return rc;
  if (p->cur.kind == TK_COMMA) { /* signal NAME[ROWS, COLS] (text_cells.c) */
    if (kw != KW_SIGNAL)
      return a2t_fail(p, p->cur.line, p->cur.col,
                      "only a signal takes two dimensions, [ROWS, COLS]: a %s has one element "
                      "count",
                      a2t_decl_words[kw]);
    if ((rc = a2t_next(p)) || (rc = a2t_parse_int(p, &d->e[1]))) return rc;
    a->sig2d[n] = 1;
  }
  if ((rc = a2t_expect(p, TK_RBRACK,
                       kw != KW_SIGNAL ? "']' after the element count"
                       : a->sig2d[n]   ? "']' after the column count"
                                       : "']' (or ', COLS') after the cell count")))
    return rc;
  a2_init_kind init = A2_INIT_ZERO;
  uint8_t space = A2_SPACE_UB;
  if (is_tile && a2t_tok_is(&p->cur, "in")) { /* tile NAME T[N] in l1 | l0a | l0b | l0c | ub */
    if ((rc = a2t_next(p))) return rc;
    int sp = 0;
    while (sp < A2_SPACES && !a2t_tok_is(&p->cur, a2_space_name((a2_space)sp))) sp++;
    if (sp == A2_SPACES)
      return a2t_expected(p, "a tile space after 'in' (ub, l1, l0a, l0b or l0c)");
    space = (uint8_t)sp;
    if ((rc = a2t_next(p))) return rc;
  }
  if (p->cur.kind == TK_ASSIGN) {
    if (kw != KW_TENSOR)
      return a2t_fail(p, p->cur.line, p->cur.col,
                      "only a tensor takes '= pattern' or '= zero' (windows, signals and tiles "
                      "start zeroed)");
    if ((rc = a2t_next(p))) return rc;
    if (a2t_tok_is(&p->cur, "pattern"))
      init = A2_INIT_PATTERN;
    else if (!a2t_tok_is(&p->cur, "zero"))
      return a2t_expected(p, "'pattern' or 'zero' after '='");
    if ((rc = a2t_next(p))) return rc;
  }
  d->index = (uint16_t)n;
  if (is_tile) {
    d->kind = D_TILE;
    int is_array = count > 0;
    if (!is_array) count = 1;
    d->index2 = (uint16_t)count;
    if (is_array) {
      snprintf(a->tarr[a->ntarr].name, A2_NAME_MAX, "%s", nm);
      a->tarr[a->ntarr].first = (uint16_t)n;
      a->tarr[a->ntarr].count = (uint16_t)count;
    }
    for (uint32_t j = 0; j < count; j++) {
      a2_tile_decl *td = &a->tiles[n + j];
      if (is_array) { /* NAME[j], as reports and the writer (a2t_tile_array_run) name it;
                         the name and count bounds above keep it within A2_NAME_MAX */
        char full[A2_NAME_MAX + 16];
        int len = snprintf(full, sizeof full, "%s[%u]", nm, j);
        if (len < 0) len = 0;
        if (len >= A2_NAME_MAX) len = A2_NAME_MAX - 1;
        memcpy(td->name, full, (size_t)len);
        td->name[len] = 0;
      } else
        snprintf(td->name, A2_NAME_MAX, "%s", nm);
      td->dtype = dt;
      td->space = space;
      a->tile_array[n + j] = is_array ? (uint8_t)a->ntarr : A2T_NO_ARRAY;
      p->tile_line[a->ntiles++] = t.line;
    }
    if (is_array) a->ntarr++;
  } else {
    d->kind = D_BUF;
    snprintf(a->bufs[n].name, A2_NAME_MAX, "%s", nm);
    a->bufs[n].kind = kw == KW_TENSOR   ? A2_BUF_TENSOR
                      : kw == KW_WINDOW ? A2_BUF_WINDOW
                                        : A2_BUF_SIGNAL;
    a->bufs[n].dtype = dt;
    a->init[n] = init;
    p->buf_line[a->nbufs++] = t.line;
  }
  return A2_OK;
}

/* golden KIND [OP] [ROOT] IN -> OUT n */
static a2_code parse_golden(a2t_parser *p, a2t_decl *d) {
  const int nk = A2_GOLDEN_KINDS;
  int k = 0;
  a2_code rc;
  while (k < nk && !a2t_tok_is(&p->cur, a2_golden_name((a2_golden_kind)k))) k++;
  if (k == nk)
    return a2t_expected(
        p,
        "a golden kind (allreduce, broadcast, allgather, reduce_scatter, "
        "all_to_all, bcast_allreduce_allgather, gemm, gemm_allreduce, allgather_gemm, reduce, "
        "gather, scatter or none)");
  d->kind = D_GOLDEN;
  d->golden = (uint8_t)k;
  if ((rc = a2t_next(p)) || k == A2_GOLDEN_NONE) return rc;
  if (a2_golden_is_gemm(k)) {
    /* golden gemm A B -> C M K N block BM BK BN */
    if ((rc = a2t_buf_ref(p, &d->index)) || (rc = a2t_buf_ref(p, &d->index3)) ||
        (rc = a2t_expect(p, TK_ARROW, "'->' between the operands and the output buffer")) ||
        (rc = a2t_buf_ref(p, &d->index2)))
      return rc;
    for (int i = 0; i < 3; i++)
      if ((rc = a2t_parse_int(p, &d->e[i]))) return rc;
    if ((rc = word(p, "block", "'block' and the tile blocking BM BK BN after M K N"))) return rc;
    for (int i = 3; i < 6; i++)
      if ((rc = a2t_parse_int(p, &d->e[i]))) return rc;
    return A2_OK;
  }
  if (a2_golden_has_op(k)) {
    a2_reduce_op op;
    if ((rc = a2t_parse_redop(p, &op))) return rc;
    d->op = (uint8_t)op;
  }
  if (a2_golden_has_root(k))
    if ((rc = a2t_parse_int(p, &d->e[1]))) return rc;
  if ((rc = a2t_buf_ref(p, &d->index)) ||
      (rc = a2t_expect(p, TK_ARROW, "'->' between the input and the output buffer")) ||
      (rc = a2t_buf_ref(p, &d->index2)))
    return rc;
  if (p->cur.kind == TK_EOL || p->cur.kind == TK_EOF)
    return a2t_expected(p, "the block's element count n after the output buffer");
  return a2t_parse_int(p, &d->e[0]);
}

static a2_code parse_card(a2t_parser *p, a2t_decl *d) {
  a2_code rc;
  d->kind = D_CARD;
  if ((rc = word(p, "remote_read", "'remote_read' after 'card'")) ||
      (rc = a2t_parse_int(p, &d->e[0])) ||
      (rc = word(p, "remote_write", "'remote_write' after the remote_read bytes")) ||
      (rc = a2t_parse_int(p, &d->e[1])) ||
      (rc = word(p, "rounds", "'rounds' after the remote_write bytes")))
    return rc;
  return a2t_parse_int(p, &d->e[2]);
}

a2_code a2t_parse_decl(a2t_parser *p, int kw) {
  a2t_tok t = p->cur;
  const char *written = a2t_decl_words[kw];
  if (kw == KW_KERNEL) kw = KW_BUILTIN; /* one line either way */
  a2t_decl d = {.line = t.line, .col = t.col, .e = {A2T_NONE, A2T_NONE, A2T_NONE}};
  a2_code rc = A2_OK;
  if (kw != KW_LET && kw != KW_PARAM && kw != KW_TENSOR && kw != KW_WINDOW && kw != KW_SIGNAL &&
      kw != KW_TILE) {
    if (p->decl_line[kw])
      return a2t_fail(p, t.line, t.col, "'%s' given twice (first at line %d)", written,
                      p->decl_line[kw]);
    p->decl_line[kw] = t.line;
  }
  if (kw == KW_LET) {
    d.kind = D_LET;
    rc = a2t_parse_let(p, "let", &d.slot, &d.e[0], NULL); /* reads to the end of the line */
  } else if (kw == KW_PARAM) {
    a2t_ast *a = p->ast;
    if (a->nparams == A2T_MAX_PARAMS)
      return a2t_fail(p, t.line, t.col, "more than %d 'param' declarations", A2T_MAX_PARAMS);
    d.kind = D_PARAM;
    d.index = (uint16_t)a->nparams;
    rc = a2t_parse_let(p, "param", &d.slot, &d.e[0], a->params[a->nparams].name);
    if (!rc) a->params[a->nparams++].line = t.line;
  } else {
    if ((rc = a2t_next(p))) return rc;
    switch (kw) {
    case KW_BUILTIN: rc = parse_builtin(p, &d, written); break;
    case KW_RANKS:
    case KW_CORES:
    case KW_CUBE_CORES:
    case KW_SEED:
      d.kind = kw == KW_RANKS        ? D_RANKS
               : kw == KW_CORES      ? D_CORES
               : kw == KW_CUBE_CORES ? D_CUBE_CORES
                                     : D_SEED;
      rc = a2t_parse_int(p, &d.e[0]);
      if (kw == KW_CORES) p->cores_seen = 1; /* after its value: `cores $ncores` is undefined */
      break;
    case KW_GOLDEN: rc = parse_golden(p, &d); break;
    case KW_CARD: rc = parse_card(p, &d); break;
    default: rc = parse_storage(p, kw, &d); break;
    }
    char after[48];
    snprintf(after, sizeof after, "the '%s' declaration", written);
    if (!rc) rc = a2t_expect_eol(p, after);
  }
  if (rc) return rc;
  a2t_ast *a = p->ast;
  if ((rc = a2t_grow((void **)&a->dl, &a->capdl, a->ndl, sizeof *a->dl, p->err))) return rc;
  a->dl[a->ndl++] = d;
  return A2_OK;
}
