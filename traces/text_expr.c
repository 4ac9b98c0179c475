/* Expressions: recursive descent into AST nodes, then evaluation with 64-bit
 * signed arithmetic where every overflow and division by zero is an error at
 * the operator. Nodes carry a type (number or condition) so that misuse such
 * as `if $p` or `$a < $b < $c` is a parse error, not a surprise. */
#include <stdio.h>
#include <string.h>

#include "traces/text_internal.h"

typedef struct {
  int line, col;
} pos;

static a2_code node(a2t_parser *p, a2t_expr n, uint32_t *out) {
  a2t_ast *a = p->ast;
  uint16_t da = n.kind >= EX_NEG ? a->ex[n.a].depth : 0;
  uint16_t db = n.kind == EX_BIN ? a->ex[n.b].depth : 0; /* EX_LOG2 has only a */
  n.depth = (uint16_t)((da > db ? da : db) + 1);
  if (n.depth > A2T_MAX_EXPR_DEPTH)
    return a2t_fail(p, n.line, n.col, "expression has more than %d operators in a chain",
                    A2T_MAX_EXPR_DEPTH);
  if (a->nex == A2T_MAX_EXPRS)
    return a2t_fail(p, n.line, n.col,
                    "more than 2^%d numbers, variables and operators in the file (use loops "
                    "and variables)",
                    A2T_MAX_EXPRS_LOG2);
  a2_code rc = a2t_grow((void **)&a->ex, &a->capex, a->nex, sizeof *a->ex, p->err);
  if (rc) return rc;
  a->ex[a->nex] = n;
  *out = a->nex++;
  return A2_OK;
}

static const a2t_expr *ex(const a2t_parser *p, uint32_t i) {
  return &p->ast->ex[i];
}

/* Operands of arithmetic and comparisons are numbers; of && || ! conditions. */
static a2_code want_type(a2t_parser *p, uint32_t e, int want_bool, const char *op) {
  const a2t_expr *x = ex(p, e);
  if (x->is_bool == want_bool) return A2_OK;
  if (want_bool)
    return a2t_fail(p, x->sline, x->scol, "'%s' needs a comparison %s", op,
                    op[0] == '!' ? "after it" : "on each side");
  return a2t_fail(p, x->sline, x->scol, "'%s' needs a number here, not a comparison", op);
}

static a2_code parse_or(a2t_parser *p, uint32_t *out);

static a2_code parse_var(a2t_parser *p, uint32_t *out) {
  a2t_tok t = p->cur;
  uint32_t i = a2t_find_var(p, t.s, t.n);
  if (i != A2T_NONE) {
    if (i == A2T_SLOT_NCORES && !p->in_program && !p->cores_seen)
      return a2t_fail(p, t.line, t.col,
                      "undefined variable $ncores (at the top level it exists from the "
                      "'cores' line on)");
    a2_code rc = a2t_next(p);
    if (rc) return rc;
    return node(
        p,
        (a2t_expr){
            .kind = EX_VAR, .line = t.line, .col = t.col, .sline = t.line, .scol = t.col, .v = i},
        out);
  }
  int rc_only = (t.n == 4 && !memcmp(t.s, "rank", 4)) || (t.n == 4 && !memcmp(t.s, "core", 4));
  return a2t_fail(p, t.line, t.col, "undefined variable $%.*s%s", (int)t.n, t.s,
                  rc_only ? " (only defined inside a program block)" : "");
}

/* min(A, B), max(A, B), log2(A): numbers in, a number out. */
static a2_code parse_call(a2t_parser *p, uint32_t *out) {
  a2t_tok t = p->cur;
  int is_log2 = t.n == 4;
  const char *fn = is_log2 ? "log2" : t.s[1] == 'i' ? "min" : "max";
  char what[64];
  uint32_t a, b = 0;
  a2_code rc;
  if (++p->parens > A2T_MAX_PARENS)
    return a2t_fail(p, t.line, t.col, "expression nested more than %d levels deep", A2T_MAX_PARENS);
  snprintf(what, sizeof what, "'(' after '%s'", fn);
  if ((rc = a2t_next(p)) || (rc = a2t_expect(p, TK_LPAREN, what)) || (rc = parse_or(p, &a)) ||
      (rc = want_type(p, a, 0, fn)))
    return rc;
  if (!is_log2) {
    snprintf(what, sizeof what, "',' between the two arguments of '%s'", fn);
    if ((rc = a2t_expect(p, TK_COMMA, what)) || (rc = parse_or(p, &b)) ||
        (rc = want_type(p, b, 0, fn)))
      return rc;
  }
  snprintf(what, sizeof what, "')' to close '%s(' at column %d", fn, t.col);
  if ((rc = a2t_expect(p, TK_RPAREN, what))) return rc;
  p->parens--;
  a2t_expr n = {.kind = is_log2 ? EX_LOG2 : EX_BIN,
                .op = (uint8_t)(is_log2         ? 0
                                : t.s[1] == 'i' ? TK_MIN
                                                : TK_MAX),
                .line = t.line,
                .col = t.col,
                .sline = t.line,
                .scol = t.col,
                .a = a,
                .b = b};
  return node(p, n, out);
}

static a2_code parse_primary(a2t_parser *p, uint32_t *out) {
  a2t_tok t = p->cur;
  a2_code rc;
  if (t.kind == TK_NUM) {
    if ((rc = a2t_next(p))) return rc;
    return node(p,
                (a2t_expr){.kind = EX_NUM,
                           .line = t.line,
                           .col = t.col,
                           .sline = t.line,
                           .scol = t.col,
                           .v = t.num},
                out);
  }
  if (t.kind == TK_VAR) return parse_var(p, out);
  if (t.kind == TK_LPAREN) {
    if (++p->parens > A2T_MAX_PARENS)
      return a2t_fail(p, t.line, t.col, "expression nested more than %d levels deep",
                      A2T_MAX_PARENS);
    if ((rc = a2t_next(p)) || (rc = parse_or(p, out))) return rc;
    p->parens--;
    char what[64];
    snprintf(what, sizeof what, "')' to close the '(' at column %d", t.col);
    if ((rc = a2t_expect(p, TK_RPAREN, what))) return rc;
    /* the group starts at its '(' */
    p->ast->ex[*out].sline = t.line;
    p->ast->ex[*out].scol = t.col;
    return A2_OK;
  }
  if (t.kind == TK_NAME &&
      (a2t_tok_is(&t, "min") || a2t_tok_is(&t, "max") || a2t_tok_is(&t, "log2")))
    return parse_call(p, out);
  if (t.kind == TK_NAME)
    return a2t_fail(p, t.line, t.col,
                    "expected a number, a $variable or '(', found '%.*s' (variables are "
                    "written $%.*s)",
                    (int)t.n, t.s, (int)t.n, t.s);
  return a2t_expected(p, "a number, a $variable or '('");
}

/* Unary '-' (numbers) and '!' (conditions); recursion bounded like '('. */
static a2_code parse_prefix(a2t_parser *p, a2t_tok_kind op,
                            a2_code (*sub)(a2t_parser *, uint32_t *), uint32_t *out) {
  a2t_tok t = p->cur;
  a2_code rc;
  if (++p->parens > A2T_MAX_PARENS)
    return a2t_fail(p, t.line, t.col, "expression nested more than %d levels deep", A2T_MAX_PARENS);
  uint32_t a;
  if ((rc = a2t_next(p)) || (rc = sub(p, &a))) return rc;
  p->parens--;
  int is_not = op == TK_NOT;
  if ((rc = want_type(p, a, is_not, is_not ? "!" : "-"))) return rc;
  return node(p,
              (a2t_expr){.kind = is_not ? EX_NOT : EX_NEG,
                         .is_bool = (uint8_t)is_not,
                         .line = t.line,
                         .col = t.col,
                         .sline = t.line,
                         .scol = t.col,
                         .a = a},
              out);
}

static a2_code parse_unary(a2t_parser *p, uint32_t *out) {
  if (p->cur.kind == TK_MINUS) return parse_prefix(p, TK_MINUS, parse_unary, out);
  return parse_primary(p, out);
}

/* Binary levels, loosest first: 0 ||, 1 &&, 2 comparisons, 3 |, 4 ^, 5 &,
 * 6 << >>, 7 + -, 8 * / % (the bitwise operators bind tighter than the
 * comparisons, so `$a & 1 == 1` means `($a & 1) == 1`). */
#define LEVEL_MUL 8
static int is_op(a2t_tok_kind k, int level) {
  switch (level) {
  case 0: return k == TK_OR;
  case 1: return k == TK_AND;
  case 2: return k >= TK_EQ && k <= TK_GE;
  case 3: return k == TK_PIPE;
  case 4: return k == TK_CARET;
  case 5: return k == TK_AMP;
  case 6: return k == TK_SHL || k == TK_SHR;
  case 7: return k == TK_PLUS || k == TK_MINUS;
  default: return k == TK_STAR || k == TK_SLASH || k == TK_PERCENT;
  }
}

static a2_code parse_level(a2t_parser *p, int level, uint32_t *out);

static a2_code parse_not(a2t_parser *p, uint32_t *out) {
  if (p->cur.kind == TK_NOT) return parse_prefix(p, TK_NOT, parse_not, out);
  return parse_level(p, 2, out);
}

static a2_code parse_operand(a2t_parser *p, int level, uint32_t *out) {
  if (level == 1) return parse_not(p, out);
  if (level == LEVEL_MUL) return parse_unary(p, out);
  return parse_level(p, level + 1, out);
}

/* One binary precedence level (is_op); comparisons do not chain; all
 * left-associative. */
static a2_code parse_level(a2t_parser *p, int level, uint32_t *out) {
  a2_code rc;
  uint32_t a;
  if ((rc = parse_operand(p, level, &a))) return rc;
  while (is_op(p->cur.kind, level)) {
    a2t_tok t = p->cur;
    char opname[3] = {0};
    memcpy(opname, t.s, t.n < 2 ? t.n : 2);
    int logical = level <= 1;
    if (level == 2 && ex(p, a)->is_bool)
      return a2t_fail(p, t.line, t.col, "comparisons cannot be chained (use '&&')");
    if ((rc = want_type(p, a, logical, opname))) return rc;
    uint32_t b = 0;
    if ((rc = a2t_next(p)) || (rc = parse_operand(p, level, &b))) return rc;
    if ((rc = want_type(p, b, logical, opname))) return rc;
    const a2t_expr *x = ex(p, a);
    a2t_expr n = {.kind = EX_BIN,
                  .op = (uint8_t)t.kind,
                  .is_bool = (uint8_t)(level <= 2),
                  .line = t.line,
                  .col = t.col,
                  .sline = x->sline,
                  .scol = x->scol,
                  .a = a,
                  .b = b};
    if ((rc = node(p, n, &a))) return rc;
    if (level == 2 && is_op(p->cur.kind, 2))
      return a2t_fail(p, p->cur.line, p->cur.col, "comparisons cannot be chained (use '&&')");
  }
  *out = a;
  return A2_OK;
}

static a2_code parse_or(a2t_parser *p, uint32_t *out) {
  return parse_level(p, 0, out);
}

a2_code a2t_parse_int(a2t_parser *p, uint32_t *out) {
  a2_code rc = parse_or(p, out);
  if (rc) return rc;
  const a2t_expr *x = ex(p, *out);
  if (x->is_bool)
    return a2t_fail(p, x->sline, x->scol,
                    "expected a number, found a comparison (comparisons are for 'if')");
  return A2_OK;
}

a2_code a2t_parse_cond(a2t_parser *p, uint32_t *out) {
  a2_code rc = parse_or(p, out);
  if (rc) return rc;
  const a2t_expr *x = ex(p, *out);
  if (!x->is_bool)
    return a2t_fail(p, x->sline, x->scol,
                    "expected a condition such as '$p != $rank' (==, !=, <, <=, >, >=)");
  return A2_OK;
}

/* ---- evaluation ---- */

typedef struct {
  const a2t_ast *a;
  const int64_t *env;
  const char *name;
  uint64_t steps; /* nodes evaluated */
  a2_err *err;
} eval_ctx;

static a2_code eval_fail(const eval_ctx *c, const a2t_expr *x, const char *msg) {
  return a2_err_set(c->err, A2_E_INPUT, c->name, x->line, x->col, "%s", msg);
}

/* Mathematical modulo: the result is in 0..|b|-1 for any non-zero b. */
static int64_t mod_floor(int64_t a, int64_t b) {
  if (b == -1) return 0; /* INT64_MIN % -1 traps in C */
  int64_t r = a % b;
  if (r < 0) r += b < 0 ? -b : b;
  return r;
}

static a2_code eval_rec(eval_ctx *c, uint32_t e, int64_t *out);

/* A number or variable without a call (most operands are one). */
static inline a2_code operand(eval_ctx *c, uint32_t e, int64_t *out) {
  const a2t_expr *x = &c->a->ex[e];
  if (x->kind == EX_NUM) return c->steps++, *out = x->v, A2_OK;
  if (x->kind == EX_VAR) return c->steps++, *out = c->env[x->v], A2_OK;
  return eval_rec(c, e, out);
}

static a2_code eval_rec(eval_ctx *c, uint32_t e, int64_t *out) {
  const a2t_expr *x = &c->a->ex[e];
  int64_t l, r;
  a2_code rc;
  c->steps++;
  switch ((a2t_ex_kind)x->kind) {
  case EX_NUM: *out = x->v; return A2_OK;
  case EX_VAR: *out = c->env[x->v]; return A2_OK;
  case EX_NEG:
    if ((rc = operand(c, x->a, &l))) return rc;
    if (l == INT64_MIN) return eval_fail(c, x, "integer overflow in '-'");
    *out = -l;
    return A2_OK;
  case EX_NOT:
    if ((rc = operand(c, x->a, &l))) return rc;
    *out = !l;
    return A2_OK;
  case EX_LOG2:
    if ((rc = operand(c, x->a, &l))) return rc;
    if (l <= 0 || (l & (l - 1)))
      return a2_err_set(c->err, A2_E_INPUT, c->name, x->line, x->col,
                        "log2 of %lld: not a power of two", (long long)l);
    *out = __builtin_ctzll((unsigned long long)l);
    return A2_OK;
  case EX_BIN: break;
  }
  if ((rc = operand(c, x->a, &l))) return rc;
  /* && and || short-circuit, so `$p != 0 && 8 / $p > 1` is safe */
  if (x->op == TK_AND && !l) return *out = 0, A2_OK;
  if (x->op == TK_OR && l) return *out = 1, A2_OK;
  if ((rc = operand(c, x->b, &r))) return rc;
  int ovf = 0;
  switch ((a2t_tok_kind)x->op) {
  case TK_PLUS: ovf = __builtin_add_overflow(l, r, out); break;
  case TK_MINUS: ovf = __builtin_sub_overflow(l, r, out); break;
  case TK_STAR: ovf = __builtin_mul_overflow(l, r, out); break;
  case TK_SLASH:
  case TK_PERCENT:
    if (r == 0) return eval_fail(c, x, x->op == TK_SLASH ? "division by zero" : "modulo by zero");
    if (x->op == TK_PERCENT) {
      *out = mod_floor(l, r);
    } else {
      ovf = l == INT64_MIN && r == -1;
      *out = ovf ? 0 : l / r;
    }
    break;
  case TK_EQ: *out = l == r; break;
  case TK_NE: *out = l != r; break;
  case TK_LT: *out = l < r; break;
  case TK_LE: *out = l <= r; break;
  case TK_GT: *out = l > r; break;
  case TK_GE: *out = l >= r; break;
  case TK_AND:
  case TK_OR: *out = r != 0; break;
  case TK_AMP: *out = l & r; break;
  case TK_PIPE: *out = l | r; break;
  case TK_CARET: *out = l ^ r; break;
  case TK_MIN: *out = l < r ? l : r; break;
  case TK_MAX: *out = l > r ? l : r; break;
  case TK_SHL:
  case TK_SHR:
    if (r < 0 || r > 63)
      return a2_err_set(c->err, A2_E_INPUT, c->name, x->line, x->col,
                        "shift by %lld: expected 0..63", (long long)r);
    if (x->op == TK_SHR) {
      *out = l < 0 ? ~(~l >> r) : l >> r; /* arithmetic: rounds toward minus infinity */
    } else {
      ovf = (r == 63 && l != 0) || (r < 63 && __builtin_mul_overflow(l, (int64_t)1 << r, out));
    }
    break;
  default: return a2_err_set(c->err, A2_E_INTERNAL, c->name, x->line, x->col, "bad operator");
  }
  if (ovf) {
    static const char *const names[] = {
        [TK_PLUS] = "+", [TK_MINUS] = "-", [TK_STAR] = "*", [TK_SLASH] = "/", [TK_SHL] = "<<"};
    return a2_err_set(c->err, A2_E_INPUT, c->name, x->line, x->col,
                      "integer overflow in '%s' (%lld and %lld)", names[x->op], (long long)l,
                      (long long)r);
  }
  return A2_OK;
}

a2_code a2t_eval(const a2t_ast *a, uint32_t e, const int64_t *env, const char *name, int64_t *out,
                 uint64_t *steps, a2_err *err) {
  eval_ctx c = {a, env, name, 0, err};
  a2_code rc = operand(&c, e, out);
  *steps += c.steps;
  return rc;
}
