/* `assert COND "message"`: a condition the file states about its
 * parameters (P a power of two, a size divisible by P), checked where it
 * stands while the file is expanded; when it is false the run is refused
 * with the message at the assert's line. Messages live in one text pool of
 * the AST, referred to by offset. */
#include <string.h>

#include "traces/text_internal.h"

#define A2T_MAX_MESSAGE 200 /* characters of one message */

static a2_code add_text(a2t_parser *p, const char *s, size_t n, uint32_t *at) {
  a2t_ast *a = p->ast;
  a2_code rc;
  /* a2t_grow makes room for one more element: grow until the message fits */
  while (a->ntext + n + 1 > a->captext)
    if ((rc = a2t_grow((void **)&a->text, &a->captext, a->captext, 1, p->err))) return rc;
  *at = a->ntext;
  memcpy(a->text + a->ntext, s, n);
  a->text[a->ntext + n] = '\0';
  a->ntext += (uint32_t)n + 1;
  return A2_OK;
}

a2_code a2t_parse_assert(a2t_parser *p, uint32_t *cond, uint32_t *msg) {
  a2_code rc;
  if ((rc = a2t_next(p)) || (rc = a2t_parse_cond(p, cond))) return rc;
  if (p->cur.kind != TK_STR)
    return a2t_expected(p, "the message in double quotes after the condition of 'assert'");
  if (p->cur.n > A2T_MAX_MESSAGE)
    return a2t_fail(p, p->cur.line, p->cur.col, "assert message longer than %d characters",
                    A2T_MAX_MESSAGE);
  if ((rc = add_text(p, p->cur.s, p->cur.n, msg)) || (rc = a2t_next(p))) return rc;
  return a2t_expect_eol(p, "the message");
}

a2_code a2t_assert_failed(const a2t_ast *a, const char *name, int line, int col, uint32_t msg,
                          a2_err *err) {
  return a2_err_set(err, A2_E_INPUT, name, line, col, "assert failed: %s", a->text + msg);
}
