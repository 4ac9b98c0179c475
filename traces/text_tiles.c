/* Tile arrays (docs/program-format.md, "Tile arrays"): `tile NAME[COUNT]
 * DTYPE[EXPR] [in SPACE]` declares COUNT tiles of one type, size and space,
 * and `NAME[EXPR]` names one of them in an instruction, so that a loop can
 * alternate buffers (`buf[$i % 2]`) without a branch per buffer. The count
 * is a number, fixed when the file is read (the tile set does not depend on
 * P); the index is any expression, checked against the count when the file
 * is expanded. In the program the tiles are NAME[0] .. NAME[COUNT-1]. */
#include <stdio.h>

#include "traces/text_internal.h"

int a2t_tile_array_find(const a2t_ast *a, const char *s, size_t n) {
  for (uint32_t i = 0; i < a->ntarr; i++)
    if (strlen(a->tarr[i].name) == n && !memcmp(a->tarr[i].name, s, n)) return (int)i;
  return -1;
}

a2_code a2t_parse_tile_count(a2t_parser *p, uint32_t ntiles, uint32_t *count) {
  *count = 0;
  if (p->cur.kind != TK_LBRACK) return A2_OK;
  a2_code rc = a2t_next(p);
  if (rc) return rc;
  a2t_tok t = p->cur;
  if (t.kind != TK_NUM)
    return a2t_expected(p,
                        "the number of tiles of the array (a number: the tile set does not "
                        "depend on P)");
  uint32_t room = A2_MAX_TILES - ntiles;
  if (t.num < 1 || t.num > room)
    return a2t_fail(p, t.line, t.col,
                    "tile array of %lld tiles: expected 1..%u (at most %d tiles in all, %u "
                    "declared before)",
                    (long long)t.num, room, A2_MAX_TILES, ntiles);
  *count = (uint32_t)t.num;
  if ((rc = a2t_next(p))) return rc;
  return a2t_expect(p, TK_RBRACK, "']' after the number of tiles");
}

a2_code a2t_tile_ref(a2t_parser *p, uint16_t *idx, uint32_t *ix) {
  *ix = A2T_NONE;
  int i = p->cur.kind == TK_NAME ? a2t_tile_array_find(p->ast, p->cur.s, p->cur.n) : -1;
  if (i < 0) return a2t_tile_name_ref(p, idx);
  a2t_tok t = p->cur;
  a2_code rc = a2t_next(p);
  if (rc) return rc;
  if (p->cur.kind != TK_LBRACK)
    return a2t_fail(p, t.line, t.col, "'%.*s' is an array of %u tiles: name one, %.*s[INDEX]",
                    (int)t.n, t.s, p->ast->tarr[i].count, (int)t.n, t.s);
  *idx = p->ast->tarr[i].first;
  if ((rc = a2t_next(p)) || (rc = a2t_parse_int(p, ix))) return rc;
  return a2t_expect(p, TK_RBRACK, "']' after the tile index");
}

a2_code a2t_tile_index(const a2t_ast *a, const char *name, const char *op, uint16_t first,
                       uint32_t ix, int64_t v, uint16_t *tile, a2_err *err) {
  uint8_t arr = a->tile_array[first];
  uint32_t count = arr == A2T_NO_ARRAY ? 1 : a->tarr[arr].count;
  if (v >= 0 && v < (int64_t)count) {
    *tile = (uint16_t)(first + v);
    return A2_OK;
  }
  const a2t_expr *n = &a->ex[ix];
  return a2_err_set(err, A2_E_INPUT, name, n->sline, n->scol,
                    "%s: tile index %lld is outside '%s' (%u tiles: 0..%u)", op, (long long)v,
                    arr == A2T_NO_ARRAY ? "?" : a->tarr[arr].name, count, count - 1);
}

/* Whether s[0..n) is a name of the format ([A-Za-z_][A-Za-z0-9_]*). */
static int is_name(const char *s, size_t n) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
  }
  return 1;
}

uint32_t a2t_tile_array_run(const a2_program *k, uint32_t i, char base[A2_NAME_MAX]) {
  const char *nm = k->tiles[i].name;
  const char *br = memchr(nm, '[', strnlen(nm, A2_NAME_MAX));
  size_t n = br ? (size_t)(br - nm) : 0;
  if (!br || n > A2T_MAX_ARRAY_NAME || !is_name(nm, n) || strcmp(br, "[0]")) return 0;
  memcpy(base, nm, n);
  base[n] = '\0';
  uint32_t m = 1;
  for (; i + m < k->ntiles; m++) {
    const a2_tile_decl *t = &k->tiles[i + m], *t0 = &k->tiles[i];
    char want[A2_NAME_MAX + 16];
    snprintf(want, sizeof want, "%s[%u]", base, m);
    if (strcmp(t->name, want) || t->dtype != t0->dtype || t->bytes != t0->bytes ||
        t->space != t0->space)
      break;
  }
  for (uint32_t j = 0; j < k->ntiles; j++) /* the array's name is its own */
    if ((j < i || j >= i + m) && !strncmp(k->tiles[j].name, base, n) &&
        (k->tiles[j].name[n] == '\0' || k->tiles[j].name[n] == '['))
      return 0;
  return m;
}
