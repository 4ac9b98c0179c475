/* Names in a program file: the keyword tables, "did you mean" suggestions, and
 * references to declared buffers and tiles, element types and reductions. */
#include <stdio.h>
#include <string.h>

#include "traces/text_internal.h"

/* Indexed by KW_* (text_decl.c); "kernel" is the deprecated spelling of
 * "builtin" (docs/program-format.md, "Declarations"). */
const char *const a2t_decl_words[] = {"builtin", "ranks",  "cores",      "seed",   "let",
                                      "tensor",  "window", "signal",     "tile",   "golden",
                                      "card",    "param",  "cube_cores", "kernel", NULL};

/* Optimal string alignment distance (edits incl. one transposition); names
 * are at most A2_NAME_MAX - 1 characters, longer inputs are never close. */
static int distance(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  if (n >= A2_NAME_MAX || m >= A2_NAME_MAX) return 99;
  int d[A2_NAME_MAX + 1][A2_NAME_MAX + 1];
  for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      int cost = a[i - 1] != b[j - 1];
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[n][m];
}

const char *a2t_suggest(const char *s, size_t n, const char *const *words, size_t nwords) {
  const char *best = NULL;
  int best_d = n <= 2 ? 0 : n <= 4 ? 1 : 2; /* a one-letter name is never "close" */
  for (size_t i = 0; i < nwords; i++) {
    int d = words[i] ? distance(s, n, words[i]) : 99;
    if (d <= best_d && d > 0) best = words[i], best_d = d - 1;
  }
  return best;
}

/* A buffer (want_buf) or tile by name; the other table explains mix-ups. */
static a2_code ref(a2t_parser *p, int want_buf, uint16_t *idx) {
  const a2t_ast *a = p->ast;
  a2t_tok t = p->cur;
  const char *what = want_buf ? "buffer" : "tile";
  if (t.kind != TK_NAME) {
    char exp[32];
    snprintf(exp, sizeof exp, "a %s name", what);
    return a2t_expected(p, exp);
  }
  int b = -1, ti = -1;
  for (uint32_t k = 0; k < a->nbufs; k++)
    if (a2t_tok_is(&t, a->bufs[k].name)) b = (int)k;
  for (uint32_t k = 0; k < a->ntiles; k++)
    if (a2t_tok_is(&t, a->tiles[k].name)) ti = (int)k;
  if (ti < 0 && a2t_tile_array_find(a, t.s, t.n) >= 0) ti = 0; /* only "is a tile" below */
  int i = want_buf ? b : ti;
  if (i >= 0) {
    *idx = (uint16_t)i;
    return a2t_next(p);
  }
  if ((want_buf ? ti : b) >= 0)
    return a2t_fail(p, t.line, t.col, "'%.*s' is a %s, not a %s", (int)t.n, t.s,
                    want_buf ? "tile" : "buffer", what);
  const char *names[A2_MAX_TILES];
  uint32_t n = 0;
  if (want_buf)
    for (uint32_t k = 0; k < a->nbufs; k++) names[n++] = a->bufs[k].name;
  else /* single tiles and the names of tile arrays */
    for (uint32_t k = 0; k < a->ntiles; k++)
      if (a->tile_array[k] == A2T_NO_ARRAY)
        names[n++] = a->tiles[k].name;
      else if (a->tarr[a->tile_array[k]].first == k)
        names[n++] = a->tarr[a->tile_array[k]].name;
  const char *near = a2t_suggest(t.s, t.n, names, n);
  if (near)
    return a2t_fail(p, t.line, t.col, "unknown %s '%.*s' (did you mean '%s'?)", what, (int)t.n, t.s,
                    near);
  return a2t_fail(p, t.line, t.col, "unknown %s '%.*s'", what, (int)t.n, t.s);
}

a2_code a2t_buf_ref(a2t_parser *p, uint16_t *idx) {
  return ref(p, 1, idx);
}
a2_code a2t_tile_name_ref(a2t_parser *p, uint16_t *idx) {
  return ref(p, 0, idx);
}

static int word_of(const a2t_tok *t, const char *const *w, int n) {
  for (int i = 0; i < n; i++)
    if (a2t_tok_is(t, w[i])) return i;
  return -1;
}

a2_code a2t_parse_dtype(a2t_parser *p, a2_dtype *t) {
  int i = word_of(&p->cur, a2_dtype_names, A2_DTYPE_COUNT);
  if (i < 0) return a2t_expected(p, "an element type (fp32, fp16 or int32)");
  *t = (a2_dtype)i;
  return a2t_next(p);
}

a2_code a2t_parse_redop(a2t_parser *p, a2_reduce_op *op) {
  const char *w[A2_REDUCE_OPS];
  for (int k = 0; k < A2_REDUCE_OPS; k++) w[k] = a2_reduce_name((a2_reduce_op)k);
  int i = word_of(&p->cur, w, A2_REDUCE_OPS);
  if (i < 0) return a2t_expected(p, "a reduction (sum, max, min or prod)");
  *op = (a2_reduce_op)i;
  return a2t_next(p);
}
