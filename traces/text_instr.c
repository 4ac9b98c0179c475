/* One instruction statement into the AST (docs/program-format.md,
 * "Instructions"). Names are resolved here; offsets, lengths and peers stay
 * expressions, converted from elements to bytes when the file is expanded
 * (text_expand.c). */
#include <stdio.h>
#include <string.h>

#include "traces/text_internal.h"

typedef enum { LOCAL, REMOTE } side;
typedef enum { OFF_LEN, OFF_ONLY, CELL } shape;

/* BUF[OFF:LEN], BUF@PEER[OFF:LEN], BUF[OFF] or SIG@PEER[CELL]; a 2-D
 * signal's cell is [ROW, COL], the column into *len (text_cells.c). */
static a2_code region(a2t_parser *p, const char *op, side sd, shape sh, uint16_t *buf,
                      uint32_t *peer, uint32_t *off, uint32_t *len) {
  a2_code rc;
  if ((rc = a2t_buf_ref(p, buf))) return rc;
  if (p->cur.kind == TK_AT && sd == LOCAL) {
    const char *hint = !strcmp(op, "load")    ? " (use remote_load to read a peer's window)"
                       : !strcmp(op, "store") ? " (use remote_store to write a peer's window)"
                                              : "";
    return a2t_fail(p, p->cur.line, p->cur.col,
                    "'%s' takes a local region here, without "
                    "'@PEER'%s",
                    op, hint);
  }
  if (sd == REMOTE) {
    if (p->cur.kind != TK_AT) return a2t_expected(p, "'@' and the peer rank after the buffer name");
    if ((rc = a2t_next(p)) || (rc = a2t_parse_int(p, peer))) return rc;
  }
  if ((rc = a2t_expect(p, TK_LBRACK,
                       sh == CELL ? "'[' and a cell index after the signal"
                                  : "'[' and an offset after the buffer")) ||
      (rc = a2t_parse_int(p, off)))
    return rc;
  if (sh == CELL && p->ast->sig2d[*buf]) {
    const char *nm = p->ast->bufs[*buf].name;
    if (p->cur.kind != TK_COMMA) {
      char what[64 + 2 * A2_NAME_MAX]; /* the text and the name twice */
      snprintf(what, sizeof what,
               "',' and a column: signal '%s' has rows and columns, %s[ROW, COL]", nm, nm);
      return a2t_expected(p, what);
    }
    if ((rc = a2t_next(p)) || (rc = a2t_parse_int(p, len))) return rc;
  } else if (sh == CELL && p->cur.kind == TK_COMMA) {
    return a2t_fail(p, p->cur.line, p->cur.col,
                    "signal '%s' has one dimension: one cell index, not [ROW, COL]",
                    p->ast->bufs[*buf].name);
  } else if (sh == OFF_LEN) {
    if ((rc = a2t_expect(p, TK_COLON, "':' and a length after the offset")) ||
        (rc = a2t_parse_int(p, len)))
      return rc;
  } else if (p->cur.kind == TK_COLON) {
    return a2t_fail(p, p->cur.line, p->cur.col,
                    sh == CELL ? "a signal cell takes one index, not OFF:LEN"
                               : "only an offset here: the length is the first region's");
  }
  return a2t_expect(p, TK_RBRACK, "']' to close the region");
}

/* Tile operand j (0: tile, 1: tile_a, 2: tile_b) of st. */
static a2_code tile(a2t_parser *p, a2t_stmt *st, int j, const char *comma_after) {
  uint16_t *t = j == 0 ? &st->tile : j == 1 ? &st->tile_a : &st->tile_b;
  a2_code rc = a2t_tile_ref(p, t, &st->tix[j]);
  if (rc || !comma_after) return rc;
  char what[64];
  snprintf(what, sizeof what, "',' after %s", comma_after);
  return a2t_expect(p, TK_COMMA, what);
}

/* A word from a fixed pair (set|add, eq|ge): index 0 or 1. */
static a2_code pick(a2t_parser *p, const char *w0, const char *w1, uint8_t *mode) {
  char what[48];
  snprintf(what, sizeof what, "'%s' or '%s'", w0, w1);
  if (a2t_tok_is(&p->cur, w0))
    *mode = 0;
  else if (a2t_tok_is(&p->cur, w1))
    *mode = 1;
  else
    return a2t_expected(p, what);
  return a2t_next(p);
}

/* put / get: options in any order, each at most once: [atomic_add] (put
 * only), [queue EXPR], [chunk EXPR [pipeline]]. */
static a2_code dma_options(a2t_parser *p, a2t_stmt *st) {
  a2_code rc;
  for (;;) {
    int line = p->cur.line, col = p->cur.col;
    if (a2t_tok_is(&p->cur, "pipeline")) {
      return a2t_fail(p, line, col,
                      st->has_chunk ? "'pipeline' goes right after 'chunk N'"
                                    : "'pipeline' needs 'chunk N' before it");
    } else if (a2t_tok_is(&p->cur, "chunk")) {
      if (st->has_chunk) return a2t_fail(p, line, col, "'chunk' is given twice");
      if ((rc = a2t_next(p)) || (rc = a2t_parse_int(p, &st->e[E_AUX]))) return rc;
      st->has_chunk = 1;
      if (a2t_tok_is(&p->cur, "pipeline")) {
        st->mode |= A2_MODE_PIPELINE;
        if ((rc = a2t_next(p))) return rc;
      }
    } else if (a2t_tok_is(&p->cur, "queue")) {
      if (st->e[E_QUEUE] != A2T_NONE) return a2t_fail(p, line, col, "'queue' is given twice");
      if ((rc = a2t_next(p)) || (rc = a2t_parse_int(p, &st->e[E_QUEUE]))) return rc;
    } else if (a2t_tok_is(&p->cur, "atomic_add")) {
      if (st->op != A2_OP_PUT)
        return a2t_fail(p, line, col,
                        "'atomic_add' is for put (a get writes its local region plainly)");
      if (st->mode & A2_MODE_DMA_ATOMIC_ADD)
        return a2t_fail(p, line, col, "'atomic_add' is given twice");
      st->mode |= A2_MODE_DMA_ATOMIC_ADD;
      if ((rc = a2t_next(p))) return rc;
    } else {
      return A2_OK;
    }
  }
}

/* What may still follow a put/get ("'queue', 'chunk' or "), for messages. */
static void dma_more(const a2t_stmt *st, char *out, size_t n) {
  const char *w[3];
  int k = 0;
  if (st->op == A2_OP_PUT && !(st->mode & A2_MODE_DMA_ATOMIC_ADD)) w[k++] = "'atomic_add'";
  if (st->e[E_QUEUE] == A2T_NONE) w[k++] = "'queue'";
  if (!st->has_chunk) w[k++] = "'chunk'";
  out[0] = 0;
  for (int i = 0; i < k; i++)
    snprintf(out + strlen(out), n - strlen(out), "%s%s", w[i], i + 1 < k ? ", " : " or ");
}

static a2_code operands(a2t_parser *p, a2t_stmt *st, const char *op) {
  a2_code rc;
  uint32_t *e = st->e;
  switch ((a2_opcode)st->op) {
  case A2_OP_LOAD:
  case A2_OP_STORE:
    if ((rc = tile(p, st, 0, "tile name"))) return rc;
    return region(p, op, LOCAL, OFF_LEN, &st->buf, NULL, &e[E_OFF], &e[E_LEN]);
  case A2_OP_RLOAD:
  case A2_OP_RSTORE:
    if ((rc = tile(p, st, 0, "tile name")) ||
        (rc = region(p, op, REMOTE, OFF_LEN, &st->buf, &e[E_PEER], &e[E_OFF], &e[E_LEN])))
      return rc;
    if (st->op == A2_OP_RSTORE && a2t_tok_is(&p->cur, "atomic_add")) {
      st->mode = A2_MODE_ATOMIC_ADD;
      return a2t_next(p);
    }
    return A2_OK;
  case A2_OP_PUT:
    if ((rc = region(p, op, REMOTE, OFF_LEN, &st->buf, &e[E_PEER], &e[E_OFF], &e[E_LEN])) ||
        (rc = a2t_expect(p, TK_COMMA, "',' after the destination region")) ||
        (rc = region(p, op, LOCAL, OFF_ONLY, &st->buf2, NULL, &e[E_OFF2], NULL)))
      return rc;
    return dma_options(p, st);
  case A2_OP_GET:
    if ((rc = region(p, op, LOCAL, OFF_LEN, &st->buf, NULL, &e[E_OFF], &e[E_LEN])) ||
        (rc = a2t_expect(p, TK_COMMA, "',' after the destination region")) ||
        (rc = region(p, op, REMOTE, OFF_ONLY, &st->buf2, &e[E_PEER], &e[E_OFF2], NULL)))
      return rc;
    return dma_options(p, st);
  case A2_OP_NOTIFY:
    if ((rc = region(p, op, REMOTE, CELL, &st->buf, &e[E_PEER], &e[E_OFF], &e[E_COL])) ||
        (rc = pick(p, "set", "add", &st->mode)))
      return rc;
    return a2t_parse_int(p, &e[E_AUX]);
  case A2_OP_WAIT:
    if ((rc = region(p, op, LOCAL, CELL, &st->buf, NULL, &e[E_OFF], &e[E_COL])) ||
        (rc = pick(p, "eq", "ge", &st->mode)))
      return rc;
    return a2t_parse_int(p, &e[E_AUX]);
  case A2_OP_VADD:
  case A2_OP_VMAX:
  case A2_OP_VMIN:
  case A2_OP_VMUL:
    if ((rc = tile(p, st, 0, "the destination tile")) ||
        (rc = tile(p, st, 1, "the first source tile")) ||
        (rc = tile(p, st, 2, "the second source tile")))
      return rc;
    return a2t_parse_int(p, &e[E_LEN]);
  case A2_OP_COMPUTE: return a2t_parse_int(p, &e[E_AUX]);
  case A2_OP_TLOAD:    /* tload L1TILE, BUF[OFF:LEN] */
  case A2_OP_TFIXPIPE: /* tstore_fixpipe L0CTILE, BUF[OFF:LEN] */
    if ((rc = tile(p, st, 0, "tile name"))) return rc;
    return region(p, op, LOCAL, OFF_LEN, &st->buf, NULL, &e[E_OFF], &e[E_LEN]);
  case A2_OP_TEXTRACT: /* textract L0TILE, L1TILE[OFF:LEN] */
    if ((rc = tile(p, st, 0, "the destination tile")) ||
        (rc = a2t_tile_ref(p, &st->tile_a, &st->tix[1])) ||
        (rc = a2t_expect(p, TK_LBRACK, "'[' and an offset after the source tile")) ||
        (rc = a2t_parse_int(p, &e[E_OFF2])) ||
        (rc = a2t_expect(p, TK_COLON, "':' and a length after the offset")) ||
        (rc = a2t_parse_int(p, &e[E_LEN])))
      return rc;
    return a2t_expect(p, TK_RBRACK, "']' to close the region");
  case A2_OP_TMATMUL: /* tmatmul L0C, L0A, L0B, M, K, N [acc] */
    if ((rc = tile(p, st, 0, "the accumulator tile")) ||
        (rc = tile(p, st, 1, "the left operand tile")) ||
        (rc = tile(p, st, 2, "the right operand tile")) || (rc = a2t_parse_int(p, &e[E_AUX])) ||
        (rc = a2t_expect(p, TK_COMMA, "',' after M")) || (rc = a2t_parse_int(p, &e[E_OFF2])) ||
        (rc = a2t_expect(p, TK_COMMA, "',' after K")) || (rc = a2t_parse_int(p, &e[E_OFF])))
      return rc;
    if (a2t_tok_is(&p->cur, "acc")) {
      st->mode = 1;
      return a2t_next(p);
    }
    return A2_OK;
  default: break;
  }
  return a2t_fail(p, st->line, st->col, "internal error: opcode %u", st->op);
}

a2_code a2t_parse_instr(a2t_parser *p, a2_opcode op, uint32_t *s) {
  a2t_stmt st = {.kind = ST_INSTR, .op = (uint8_t)op, .line = p->cur.line, .col = p->cur.col};
  for (int i = 0; i < E_SLOTS; i++) st.e[i] = A2T_NONE;
  for (int i = 0; i < 3; i++) st.tix[i] = A2T_NONE;
  const char *name = a2_op_names[op];
  a2_code rc = a2t_next(p);
  if (!rc) rc = operands(p, &st, name);
  if (rc) return rc;
  if (p->cur.kind != TK_EOL && p->cur.kind != TK_EOF) {
    char what[128], more[64] = "";
    if (op == A2_OP_RSTORE && !st.mode) snprintf(more, sizeof more, "'atomic_add' or ");
    if (op == A2_OP_TMATMUL && !st.mode) snprintf(more, sizeof more, "'acc' or ");
    if (op == A2_OP_PUT || op == A2_OP_GET) dma_more(&st, more, sizeof more);
    snprintf(what, sizeof what, "%send of line after the '%s' instruction", more, name);
    return a2t_expected(p, what);
  }
  if ((rc = a2t_expect_eol(p, name))) return rc;
  return a2t_add_stmt(p, &st, s);
}
