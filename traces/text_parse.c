/* Statements of a program file into the AST: the top-level loop, program
 * blocks and control flow (for / if / else / let / end). Declarations are in
 * text_decl.c, instructions in text_instr.c, expressions in text_expr.c.
 * Scoping is lexical and resolved here: a variable is visible from its
 * definition to the `end` of the block that holds it, and its slot is its
 * position on the scope stack. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/text_internal.h"

a2_code a2t_next(a2t_parser *p) {
  return a2t_lex(&p->lx, &p->cur);
}

a2_code a2t_fail(a2t_parser *p, int line, int col, const char *fmt, ...) {
  char msg[sizeof p->err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return a2_err_set(p->err, A2_E_INPUT, p->name, line, col, "%s", msg);
}

a2_code a2t_expected(a2t_parser *p, const char *what) {
  char found[64];
  a2t_tok_describe(&p->cur, found, sizeof found);
  return a2t_fail(p, p->cur.line, p->cur.col, "expected %s, found %s", what, found);
}

a2_code a2t_expect(a2t_parser *p, a2t_tok_kind kind, const char *what) {
  if (p->cur.kind != kind) return a2t_expected(p, what);
  return a2t_next(p);
}

a2_code a2t_expect_eol(a2t_parser *p, const char *after) {
  if (p->cur.kind == TK_EOF) return A2_OK;
  if (p->cur.kind == TK_EOL) return a2t_next(p);
  char what[96];
  snprintf(what, sizeof what, "end of line after %s", after);
  return a2t_expected(p, what);
}

a2_code a2t_expect_name(a2t_parser *p, const char *what, char out[A2_NAME_MAX]) {
  if (p->cur.kind == TK_VAR)
    return a2t_fail(p, p->cur.line, p->cur.col, "expected %s (a name is written without '$')",
                    what);
  if (p->cur.kind != TK_NAME) return a2t_expected(p, what);
  memcpy(out, p->cur.s, p->cur.n);
  out[p->cur.n] = 0;
  return a2t_next(p);
}

/* Variables are found through a hash of their names (a file may refer to
 * one of 256 visible variables millions of times). Visible names are unique
 * and leave scope newest first, so each bucket is a stack. */
static uint32_t var_bucket(const char *s, size_t n) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h & (A2T_VAR_BUCKETS - 1);
}

uint32_t a2t_find_var(const a2t_parser *p, const char *s, size_t n) {
  for (uint32_t i = p->var_head[var_bucket(s, n)]; i != A2T_NONE; i = p->vars[i].next)
    if (p->vars[i].n == n && !memcmp(p->vars[i].name, s, n)) return i;
  return A2T_NONE;
}

void a2t_end_scope(a2t_parser *p, uint32_t base) {
  while (p->nvars > base) {
    const a2t_var *v = &p->vars[--p->nvars];
    p->var_head[var_bucket(v->name, v->n)] = v->next;
  }
}

/* Pushes a variable known not to be visible yet; line 0 = predefined. */
static a2_code push_var(a2t_parser *p, const a2t_tok *at, int line, const char *name,
                        uint32_t *slot) {
  if (p->nvars == A2T_MAX_VARS)
    return a2t_fail(p, at->line, at->col, "more than %d variables visible at once", A2T_MAX_VARS);
  a2t_var *v = &p->vars[p->nvars];
  v->n = (uint32_t)strlen(name); /* < A2_NAME_MAX: names are read by a2t_expect_name */
  memcpy(v->name, name, v->n + 1);
  v->line = line;
  uint32_t *head = &p->var_head[var_bucket(v->name, v->n)];
  v->next = *head;
  *head = p->nvars;
  *slot = p->nvars++;
  if (p->nvars > p->ast->nslots) p->ast->nslots = p->nvars;
  return A2_OK;
}

a2_code a2t_define_var(a2t_parser *p, const a2t_tok *at, const char *name, uint32_t *slot) {
  uint32_t i = a2t_find_var(p, name, strlen(name));
  if (i != A2T_NONE) {
    if (!p->vars[i].line)
      return a2t_fail(p, at->line, at->col, "$%s is a predefined variable", name);
    return a2t_fail(p, at->line, at->col, "variable $%s is already defined (line %d)", name,
                    p->vars[i].line);
  }
  return push_var(p, at, at->line, name, slot);
}

a2_code a2t_add_stmt(a2t_parser *p, const a2t_stmt *s, uint32_t *idx) {
  a2t_ast *a = p->ast;
  a2_code rc = a2t_grow((void **)&a->st, &a->capst, a->nst, sizeof *a->st, p->err);
  if (rc) return rc;
  a->st[a->nst] = *s;
  a->st[a->nst].next = A2T_NONE;
  *idx = a->nst++;
  return A2_OK;
}

a2_code a2t_parse_let(a2t_parser *p, const char *word, uint32_t *slot, uint32_t *e,
                      char *name_out) {
  static const char *const reserved[] = {"rank", "nranks", "core", "ncores"};
  a2t_tok t;
  char nm[A2_NAME_MAX], what[32];
  a2_code rc;
  if ((rc = a2t_next(p))) return rc;
  t = p->cur;
  snprintf(what, sizeof what, "a name after '%s'", word);
  if ((rc = a2t_expect_name(p, what, nm))) return rc;
  if (name_out) memcpy(name_out, nm, sizeof nm);
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (!strcmp(nm, reserved[i]))
      return a2t_fail(p, t.line, t.col, "$%s is a predefined variable", nm);
  if ((rc = a2t_expect(p, TK_ASSIGN, "'=' after the name")) || (rc = a2t_parse_int(p, e)) ||
      (rc = a2t_expect_eol(p, "the value")))
    return rc;
  /* defined after its value is read: `let x = $x + 1` is an error */
  return a2t_define_var(p, &t, nm, slot);
}

/* ---- blocks ---- */

typedef enum { BLK_PROGRAM, BLK_FOR, BLK_IF, BLK_ELSE } blk_kind;
static const char *const blk_word[] = {"program", "for", "if", "if"};
typedef struct {
  uint32_t first, n, min_instrs;
  int ended_by_else;
} blk;

static a2_code parse_stmt(a2t_parser *p, uint32_t *s, uint32_t *min_instrs);

static uint32_t sat_add(uint32_t a, uint32_t b) {
  return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* An `end` at column col closes the innermost open block: if it is indented
 * like an enclosing opener instead, remember the first such `end`. */
static void note_end(a2t_parser *p, int line, int col) {
  const a2t_open *in = &p->open[p->nopen - 1];
  if (p->misfit.end_line || col == in->col) return;
  for (int i = p->nopen - 2; i >= 0; i--)
    if (p->open[i].col == col) {
      p->misfit.end_line = line;
      p->misfit.closed = *in;
      p->misfit.like = p->open[i];
      return;
    }
}

/* The file ended inside blocks: name the innermost one and the `end` it
 * needs, or, when an `end` inside it was indented like an enclosing opener,
 * the block that `end` closed instead (most likely the one missing its own:
 * each later `end` then closes the block around the one it was meant for). */
static a2_code unterminated(a2t_parser *p) {
  const a2t_open *in = &p->open[p->nopen - 1];
  if (p->misfit.end_line > in->line) { /* inside the block left open */
    const a2t_open *c = &p->misfit.closed, *o = &p->misfit.like;
    return a2t_fail(p, c->line, c->col,
                    "expected 'end' for the '%s' at line %d: the 'end' at line %d is indented "
                    "like the '%s' at line %d but closes this '%s', so the '%s' at line %d is "
                    "still open at the end of the file",
                    c->word, c->line, p->misfit.end_line, o->word, o->line, c->word, in->word,
                    in->line);
  }
  return a2t_fail(p, p->lx.last_line, p->lx.last_end,
                  "unterminated '%s' (opened at line %d): expected 'end' before the end of the "
                  "file",
                  in->word, in->line);
}

/* Statements up to the `end` (or `else`) closing the opener `at` (the
 * `program`, `for` or `if` token). */
static a2_code parse_block(a2t_parser *p, blk_kind kind, const a2t_tok *at, blk *b) {
  uint32_t base = p->nvars, last = A2T_NONE;
  a2_code rc;
  memset(b, 0, sizeof *b);
  b->first = A2T_NONE;
  p->open[p->nopen++] = (a2t_open){blk_word[kind], at->line, at->col};
  for (;;) {
    while (p->cur.kind == TK_EOL)
      if ((rc = a2t_next(p))) return rc;
    if (p->cur.kind == TK_EOF) return unterminated(p);
    if (a2t_tok_is(&p->cur, "end")) {
      note_end(p, p->cur.line, p->cur.col);
      if ((rc = a2t_next(p)) || (rc = a2t_expect_eol(p, "'end'"))) return rc;
      break;
    }
    if (a2t_tok_is(&p->cur, "else")) {
      if (kind == BLK_ELSE)
        return a2t_fail(p, p->cur.line, p->cur.col, "second 'else' for the 'if' at line %d",
                        at->line);
      if (kind == BLK_FOR) /* likely a missing `end` of the loop */
        return a2t_fail(p, p->cur.line, p->cur.col,
                        "'else' without 'if' (the 'for' at line %d is still open)", at->line);
      if (kind != BLK_IF) return a2t_fail(p, p->cur.line, p->cur.col, "'else' without 'if'");
      if ((rc = a2t_next(p))) return rc;
      if (a2t_tok_is(&p->cur, "if"))
        return a2t_fail(p, p->cur.line, p->cur.col,
                        "'else if' is not supported: put the 'if' on its own line inside the "
                        "'else' (it needs its own 'end')");
      if ((rc = a2t_expect_eol(p, "'else'"))) return rc;
      b->ended_by_else = 1;
      break;
    }
    uint32_t s, m;
    if ((rc = parse_stmt(p, &s, &m))) return rc;
    if (last == A2T_NONE)
      b->first = s;
    else
      p->ast->st[last].next = s;
    last = s;
    b->n++;
    b->min_instrs = sat_add(b->min_instrs, m);
  }
  a2t_end_scope(p, base); /* the block's variables go out of scope */
  p->nopen--;
  return A2_OK;
}

static a2_code nest_in(a2t_parser *p, const a2t_tok *t) {
  if (++p->nest > A2T_MAX_NEST)
    return a2t_fail(p, t->line, t->col, "'for'/'if' blocks nested more than %d deep", A2T_MAX_NEST);
  return A2_OK;
}

static a2_code parse_for(a2t_parser *p, uint32_t *s) {
  a2t_tok t = p->cur, v;
  a2t_stmt st = {.kind = ST_FOR, .line = t.line, .col = t.col, .e = {[2] = A2T_NONE}};
  char nm[A2_NAME_MAX];
  blk b;
  a2_code rc;
  if ((rc = nest_in(p, &t)) || (rc = a2t_next(p))) return rc;
  v = p->cur;
  if ((rc = a2t_expect_name(p, "a loop variable name after 'for'", nm))) return rc;
  if (!a2t_tok_is(&p->cur, "in")) return a2t_expected(p, "'in' after the loop variable");
  if ((rc = a2t_next(p)) || (rc = a2t_parse_int(p, &st.e[0])) ||
      (rc = a2t_expect(p, TK_DOTDOT, "'..' between the loop bounds")) ||
      (rc = a2t_parse_int(p, &st.e[1])))
    return rc;
  if (a2t_tok_is(&p->cur, "step") && ((rc = a2t_next(p)) || (rc = a2t_parse_int(p, &st.e[2]))))
    return rc;
  if ((rc = a2t_expect_eol(
           p, st.e[2] == A2T_NONE ? "the loop bounds (or 'step EXPR')" : "the loop step")))
    return rc;
  uint32_t base = p->nvars;
  if ((rc = a2t_define_var(p, &v, nm, &st.slot)) || (rc = parse_block(p, BLK_FOR, &t, &b)))
    return rc;
  a2t_end_scope(p, base);
  p->nest--;
  st.body = b.first;
  st.nbody = b.n;
  st.min_instrs = b.min_instrs;
  return a2t_add_stmt(p, &st, s);
}

static a2_code parse_if(a2t_parser *p, uint32_t *s, uint32_t *min_instrs) {
  a2t_tok t = p->cur;
  a2t_stmt st = {.kind = ST_IF, .line = t.line, .col = t.col, .other = A2T_NONE};
  blk then_b, else_b = {A2T_NONE, 0, 0, 0};
  a2_code rc;
  if ((rc = nest_in(p, &t)) || (rc = a2t_next(p)) || (rc = a2t_parse_cond(p, &st.e[0])) ||
      (rc = a2t_expect_eol(p, "the condition")) || (rc = parse_block(p, BLK_IF, &t, &then_b)))
    return rc;
  if (then_b.ended_by_else && (rc = parse_block(p, BLK_ELSE, &t, &else_b))) return rc;
  p->nest--;
  st.body = then_b.first;
  st.other = else_b.first;
  /* only instructions on both paths are certain */
  *min_instrs = then_b.min_instrs < else_b.min_instrs ? then_b.min_instrs : else_b.min_instrs;
  return a2t_add_stmt(p, &st, s);
}

static int word_index(const a2t_tok *t, const char *const *words, int n) {
  for (int i = 0; i < n; i++)
    if (words[i] && a2t_tok_is(t, words[i])) return i;
  return -1;
}

static int decl_index(const a2t_tok *t) {
  int n = 0;
  while (a2t_decl_words[n]) n++;
  return word_index(t, a2t_decl_words, n);
}

static a2_code parse_stmt(a2t_parser *p, uint32_t *s, uint32_t *min_instrs) {
  static const char *const control[] = {"for", "if", "let", "end", "else", "assert"};
  a2t_tok t = p->cur;
  *min_instrs = 0;
  if (t.kind != TK_NAME) return a2t_expected(p, "an instruction or 'end'");
  if (a2t_tok_is(&t, "for")) return parse_for(p, s);
  if (a2t_tok_is(&t, "if")) return parse_if(p, s, min_instrs);
  if (a2t_tok_is(&t, "let")) {
    a2t_stmt st = {.kind = ST_LET, .line = t.line, .col = t.col};
    a2_code rc = a2t_parse_let(p, "let", &st.slot, &st.e[0], NULL);
    return rc ? rc : a2t_add_stmt(p, &st, s);
  }
  if (a2t_tok_is(&t, "assert")) {
    a2t_stmt st = {.kind = ST_ASSERT, .line = t.line, .col = t.col};
    a2_code rc = a2t_parse_assert(p, &st.e[0], &st.slot);
    return rc ? rc : a2t_add_stmt(p, &st, s);
  }
  if (a2t_tok_is(&t, "program"))
    return a2t_fail(p, t.line, t.col,
                    "'program' inside a program block (is an 'end' missing before it?)");
  if (decl_index(&t) >= 0)
    return a2t_fail(p, t.line, t.col,
                    "'%.*s' is a declaration: declarations go before the first 'program'", (int)t.n,
                    t.s);
  int op = word_index(&t, a2_op_names, A2_OP_COUNT_);
  if (op >= 0) {
    *min_instrs = 1;
    return a2t_parse_instr(p, (a2_opcode)op, s);
  }
  const char *near = a2t_suggest(t.s, t.n, a2_op_names, A2_OP_COUNT_);
  if (!near) near = a2t_suggest(t.s, t.n, control, sizeof control / sizeof control[0]);
  if (near)
    return a2t_fail(p, t.line, t.col, "unknown instruction '%.*s' (did you mean '%s'?)", (int)t.n,
                    t.s, near);
  return a2t_fail(p, t.line, t.col, "unknown instruction '%.*s'", (int)t.n, t.s);
}

static a2_code parse_program(a2t_parser *p) {
  a2t_tok t = p->cur;
  a2t_block pb = {.line = t.line, .rank_e = A2T_NONE, .core_e = A2T_NONE};
  a2t_ast *a = p->ast;
  a2_code rc;
  p->in_program = 1;
  if ((rc = a2t_next(p))) return rc;
  while (p->cur.kind == TK_NAME) {
    int is_rank = a2t_tok_is(&p->cur, "rank"), is_cube = a2t_tok_is(&p->cur, "cube");
    if (!is_rank && !is_cube && !a2t_tok_is(&p->cur, "core")) break;
    uint32_t *e = is_rank ? &pb.rank_e : &pb.core_e;
    if (!is_rank && (*e != A2T_NONE || pb.core_all) && pb.cube != is_cube)
      return a2t_fail(p, p->cur.line, p->cur.col,
                      "'core' and 'cube' both given: a block is for vector cores or for cube "
                      "cores");
    if (*e != A2T_NONE || (!is_rank && pb.core_all))
      return a2t_fail(p, p->cur.line, p->cur.col, "'%s' given twice",
                      is_rank   ? "rank"
                      : is_cube ? "cube"
                                : "core");
    if (is_cube) pb.cube = 1;
    if ((rc = a2t_next(p))) return rc;
    if (!is_rank && p->cur.kind == TK_NAME && a2t_tok_is(&p->cur, "all")) { /* every core */
      pb.core_all = 1;
      if ((rc = a2t_next(p))) return rc;
      continue;
    }
    if ((rc = a2t_parse_int(p, e))) return rc;
  }
  if (p->cur.kind != TK_EOL && p->cur.kind != TK_EOF)
    return a2t_expected(p,
                        "'rank EXPR', 'core EXPR', 'core all', 'cube EXPR', 'cube all' or end of "
                        "line after 'program'");
  if ((rc = a2t_expect_eol(p, "the program header"))) return rc;
  uint32_t base = p->nvars;
  /* predefined (line 0); `rank` and `core` cannot be taken at the top level */
  if ((rc = push_var(p, &t, 0, "rank", &a->slot_rank)) ||
      (rc = push_var(p, &t, 0, "core", &a->slot_core)))
    return rc;
  p->nest = 0;
  p->misfit.end_line = 0;
  blk b;
  if ((rc = parse_block(p, BLK_PROGRAM, &t, &b))) return rc;
  a2t_end_scope(p, base);
  p->in_program = 0;
  pb.body = b.first;
  if ((rc = a2t_grow((void **)&a->pg, &a->cappg, a->npg, sizeof *a->pg, p->err))) return rc;
  a->pg[a->npg++] = pb;
  return A2_OK;
}

static a2_code add_decl(a2t_parser *p, const a2t_decl *d) {
  a2t_ast *a = p->ast;
  a2_code rc = a2t_grow((void **)&a->dl, &a->capdl, a->ndl, sizeof *a->dl, p->err);
  if (!rc) a->dl[a->ndl++] = *d;
  return rc;
}

static a2_code parse_top(a2t_parser *p) {
  static const char *const others[] = {"program"};
  a2_code rc;
  for (;;) {
    while (p->cur.kind == TK_EOL)
      if ((rc = a2t_next(p))) return rc;
    a2t_tok t = p->cur;
    if (t.kind == TK_EOF) return A2_OK;
    if (t.kind != TK_NAME)
      return a2t_expected(p, "a declaration or 'program' at the start of the line");
    int kw = decl_index(&t);
    if (a2t_tok_is(&t, "program")) {
      rc = parse_program(p);
    } else if (a2t_tok_is(&t, "assert")) { /* at the top level, or in a program block */
      a2t_decl d = {.kind = D_ASSERT, .line = t.line, .col = t.col};
      if (!(rc = a2t_parse_assert(p, &d.e[0], &d.slot))) rc = add_decl(p, &d);
    } else if (kw >= 0) {
      if (p->ast->npg)
        return a2t_fail(p, t.line, t.col,
                        "'%.*s' after a 'program' block: declarations go before the first one",
                        (int)t.n, t.s);
      rc = a2t_parse_decl(p, kw);
    } else if (a2t_tok_is(&t, "end")) {
      return a2t_fail(p, t.line, t.col, "'end' without 'for'/'if'/'program'");
    } else if (a2t_tok_is(&t, "else")) {
      return a2t_fail(p, t.line, t.col, "'else' without 'if'");
    } else if (a2t_tok_is(&t, "for") || a2t_tok_is(&t, "if") ||
               word_index(&t, a2_op_names, A2_OP_COUNT_) >= 0) {
      return a2t_fail(p, t.line, t.col,
                      "'%.*s' outside a program block (put it between "
                      "'program' and 'end')",
                      (int)t.n, t.s);
    } else {
      int n = 0;
      while (a2t_decl_words[n]) n++;
      const char *near = a2t_suggest(t.s, t.n, a2t_decl_words, (size_t)n);
      if (near && !strcmp(near, "kernel")) near = "builtin"; /* its current spelling */
      if (!near) near = a2t_suggest(t.s, t.n, others, 1);
      if (near)
        return a2t_fail(p, t.line, t.col, "unknown declaration '%.*s' (did you mean '%s'?)",
                        (int)t.n, t.s, near);
      return a2t_fail(p, t.line, t.col, "unknown declaration '%.*s'", (int)t.n, t.s);
    }
    if (rc) return rc;
  }
}

a2_code a2t_parse(const char *text, size_t len, const char *name, a2t_ast *ast, a2_err *err) {
  memset(ast, 0, sizeof *ast);
  a2t_parser *p = calloc(1, sizeof *p);
  if (!p) return a2_err_set(err, A2_E_NOMEM, name, 0, 0, "out of memory for the parser");
  p->ast = ast;
  p->err = err;
  p->name = name;
  a2t_lex_init(&p->lx, text, len, name, err);
  for (uint32_t i = 0; i < A2T_VAR_BUCKETS; i++) p->var_head[i] = A2T_NONE;
  a2t_tok none = {.line = 1, .col = 1};
  uint32_t slot;
  a2_code rc = push_var(p, &none, 0, "nranks", &slot);
  if (!rc) rc = push_var(p, &none, 0, "ncores", &slot); /* A2T_SLOT_NRANKS, A2T_SLOT_NCORES */
  if (!rc) rc = a2t_next(p);
  if (!rc) rc = parse_top(p);
  ast->end_line = p->lx.last_line;
  ast->end_col = p->lx.last_end;
  free(p);
  return rc;
}
