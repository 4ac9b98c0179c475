/* Tokens of the program format: one statement per line, so a newline is a
 * token (TK_EOL) and `#` comments end at it. The lexer works on demand (one
 * token at a time) so that a huge line never needs a token array. */
#include <stdio.h>
#include <string.h>

#include "traces/text_internal.h"

void a2t_lex_init(a2t_lexer *lx, const char *text, size_t len, const char *name, a2_err *err) {
  memset(lx, 0, sizeof *lx);
  lx->text = text;
  lx->len = len;
  lx->line = 1;
  lx->last_line = lx->last_end = 1;
  lx->name = name;
  lx->err = err;
}

static int is_alpha(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_digit(int c) {
  return c >= '0' && c <= '9';
}

static int col_of(const a2t_lexer *lx, size_t pos) {
  return (int)(pos - lx->line_start) + 1;
}

static a2_code fail_at(a2t_lexer *lx, size_t pos, const char *msg, const char *detail) {
  return a2_err_set(lx->err, A2_E_INPUT, lx->name, lx->line, col_of(lx, pos), "%s%s", msg,
                    detail ? detail : "");
}

/* Scans [A-Za-z0-9_]* from pos; refuses names longer than A2_NAME_MAX - 1. */
static a2_code scan_name(a2t_lexer *lx, size_t start, size_t *end) {
  size_t i = start;
  while (i < lx->len &&
         (is_alpha((unsigned char)lx->text[i]) || is_digit((unsigned char)lx->text[i])))
    i++;
  if (i - start > A2_NAME_MAX - 1)
    return a2_err_set(lx->err, A2_E_INPUT, lx->name, lx->line, col_of(lx, start),
                      "name '%.*s...' is longer than %d characters", A2_NAME_MAX - 1,
                      lx->text + start, A2_NAME_MAX - 1);
  *end = i;
  return A2_OK;
}

/* Decimal digits with '_' between them; a letter right after is refused so
 * that "4KiB" does not silently read as 4 followed by a name. */
static a2_code scan_number(a2t_lexer *lx, a2t_tok *t) {
  size_t i = lx->pos;
  uint64_t v = 0;
  int too_big = 0;
  for (;;) {
    unsigned char c = (unsigned char)lx->text[i];
    if (is_digit(c)) {
      v = v * 10 + (uint64_t)(c - '0');
      if (v > (uint64_t)INT64_MAX) too_big = 1, v = (uint64_t)INT64_MAX;
      i++;
    } else if (c == '_' && i + 1 < lx->len && is_digit((unsigned char)lx->text[i + 1])) {
      i++;
    } else {
      break;
    }
    if (i >= lx->len) break;
  }
  if (i < lx->len && (is_alpha((unsigned char)lx->text[i]) || lx->text[i] == '_'))
    return fail_at(lx, i,
                   "unexpected character after a number (numbers are decimal "
                   "integers, '_' only between digits)",
                   NULL);
  if (too_big)
    return fail_at(lx, lx->pos, "integer literal is larger than 9223372036854775807", NULL);
  t->kind = TK_NUM;
  t->num = (int64_t)v;
  t->n = i - lx->pos;
  lx->pos = i;
  return A2_OK;
}

/* A string: the text up to the next '"' on the same line (no escapes). */
static a2_code scan_string(a2t_lexer *lx, a2t_tok *t) {
  size_t i = lx->pos + 1;
  while (i < lx->len && lx->text[i] != '"' && lx->text[i] != '\n') i++;
  if (i >= lx->len || lx->text[i] != '"')
    return fail_at(lx, lx->pos, "unterminated string: expected '\"' before the end of the line",
                   NULL);
  t->kind = TK_STR;
  t->s = lx->text + lx->pos + 1;
  t->n = i - lx->pos - 1;
  lx->pos = i + 1;
  return A2_OK;
}

/* Punctuation: the token a character starts, and the two-character token it
 * starts when `second` follows (0: none). Looked up by the first character,
 * so a token costs the same whatever the operator. */
typedef struct {
  a2t_tok_kind one, two;
  char second;
} punct_row;

static int punct(unsigned char c, punct_row *r) {
  switch (c) {
  case '=': *r = (punct_row){TK_ASSIGN, TK_EQ, '='}; return 1;
  case '!': *r = (punct_row){TK_NOT, TK_NE, '='}; return 1;
  case '<': *r = (punct_row){TK_LT, TK_LE, '='}; return 1;
  case '>': *r = (punct_row){TK_GT, TK_GE, '='}; return 1;
  case '-': *r = (punct_row){TK_MINUS, TK_ARROW, '>'}; return 1;
  case '&': *r = (punct_row){TK_AMP, TK_AND, '&'}; return 1;
  case '|': *r = (punct_row){TK_PIPE, TK_OR, '|'}; return 1;
  case '^': *r = (punct_row){TK_CARET, TK_EOF, 0}; return 1;
  case '.': *r = (punct_row){TK_EOF, TK_DOTDOT, '.'}; return 1; /* TK_EOF: '.' alone is an error */
  case '[': *r = (punct_row){TK_LBRACK, TK_EOF, 0}; return 1;
  case ']': *r = (punct_row){TK_RBRACK, TK_EOF, 0}; return 1;
  case ':': *r = (punct_row){TK_COLON, TK_EOF, 0}; return 1;
  case '@': *r = (punct_row){TK_AT, TK_EOF, 0}; return 1;
  case ',': *r = (punct_row){TK_COMMA, TK_EOF, 0}; return 1;
  case '(': *r = (punct_row){TK_LPAREN, TK_EOF, 0}; return 1;
  case ')': *r = (punct_row){TK_RPAREN, TK_EOF, 0}; return 1;
  case '+': *r = (punct_row){TK_PLUS, TK_EOF, 0}; return 1;
  case '*': *r = (punct_row){TK_STAR, TK_EOF, 0}; return 1;
  case '/': *r = (punct_row){TK_SLASH, TK_EOF, 0}; return 1;
  case '%': *r = (punct_row){TK_PERCENT, TK_EOF, 0}; return 1;
  default: return 0;
  }
}

static a2_code lex(a2t_lexer *lx, a2t_tok *t);

a2_code a2t_lex(a2t_lexer *lx, a2t_tok *t) {
  a2_code rc = lex(lx, t);
  if (!rc && t->kind != TK_EOL && t->kind != TK_EOF) {
    lx->last_line = t->line;
    lx->last_end = col_of(lx, lx->pos); /* tokens do not span lines */
  }
  return rc;
}

static a2_code lex(a2t_lexer *lx, a2t_tok *t) {
  const char *s = lx->text;
  /* blanks and comments; a newline is a token of its own */
  while (lx->pos < lx->len) {
    char c = s[lx->pos];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->pos++;
    } else if (c == '#') {
      const char *nl = memchr(s + lx->pos, '\n', lx->len - lx->pos);
      lx->pos = nl ? (size_t)(nl - s) : lx->len;
    } else {
      break;
    }
  }
  memset(t, 0, sizeof *t);
  t->line = lx->line;
  t->col = col_of(lx, lx->pos);
  t->s = s + lx->pos;
  if (lx->pos >= lx->len) {
    t->kind = TK_EOF;
    return A2_OK;
  }
  unsigned char c = (unsigned char)s[lx->pos];
  if (c == '\n') {
    t->kind = TK_EOL;
    t->n = 1;
    lx->pos++;
    lx->line++;
    lx->line_start = lx->pos;
    return A2_OK;
  }
  if (is_digit(c)) return scan_number(lx, t);
  if (is_alpha(c)) {
    size_t end;
    a2_code rc = scan_name(lx, lx->pos, &end);
    if (rc) return rc;
    t->kind = TK_NAME;
    t->n = end - lx->pos;
    lx->pos = end;
    return A2_OK;
  }
  if (c == '$') {
    size_t end;
    if (lx->pos + 1 >= lx->len || !is_alpha((unsigned char)s[lx->pos + 1]))
      return fail_at(lx, lx->pos, "expected a variable name after '$'", NULL);
    a2_code rc = scan_name(lx, lx->pos + 1, &end);
    if (rc) return rc;
    t->kind = TK_VAR;
    t->s = s + lx->pos + 1;
    t->n = end - lx->pos - 1;
    lx->pos = end;
    return A2_OK;
  }
  if ((c == '<' || c == '>') && lx->pos + 1 < lx->len && s[lx->pos + 1] == (char)c) {
    t->kind = c == '<' ? TK_SHL : TK_SHR; /* '<<' '>>': the second character repeats */
    t->n = 2;
    lx->pos += 2;
    return A2_OK;
  }
  if (c == '"') return scan_string(lx, t);
  punct_row r;
  if (punct(c, &r)) {
    int two = r.second && lx->pos + 1 < lx->len && s[lx->pos + 1] == r.second;
    if (two || r.one != TK_EOF) {
      t->kind = two ? r.two : r.one;
      t->n = two ? 2 : 1;
      lx->pos += t->n;
      return A2_OK;
    }
  }
  if (c == '.') return fail_at(lx, lx->pos, "unexpected '.' (a range is written 'A .. B')", NULL);
  char what[32];
  if (c >= 0x20 && c < 0x7f)
    snprintf(what, sizeof what, "'%c'", c);
  else
    snprintf(what, sizeof what, "byte 0x%02x", c);
  return fail_at(lx, lx->pos, "unexpected character ", what);
}

void a2t_tok_describe(const a2t_tok *t, char *out, size_t size) {
  switch (t->kind) {
  case TK_EOF: snprintf(out, size, "end of file"); break;
  case TK_EOL: snprintf(out, size, "end of line"); break;
  case TK_VAR: snprintf(out, size, "'$%.*s'", (int)t->n, t->s); break;
  case TK_NUM: snprintf(out, size, "number %.*s", (int)(t->n > 40 ? 40 : t->n), t->s); break;
  case TK_STR: snprintf(out, size, "string \"%.*s\"", (int)(t->n > 40 ? 40 : t->n), t->s); break;
  default: snprintf(out, size, "'%.*s'", (int)t->n, t->s); break;
  }
}
