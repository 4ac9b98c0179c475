/* Internals of the trace text reader (docs/program-format.md), shared by
 * text_lex.c (tokens), text_expr.c (expressions), text_parse.c and
 * text_decl.c (statements -> AST), text_expand.c (AST -> a2_program) and
 * text_load.c (the public entry points). Not a public API.
 *
 * The file is parsed once into an AST whose names are already resolved:
 * buffers and tiles to indices, variables to slots of an environment array.
 * Expansion then only evaluates numbers, so it can run twice (count, then
 * fill) and every expansion error is about values, never about names. */
#ifndef A2_TEXT_INTERNAL_H
#define A2_TEXT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "traces/program.h"
#include "traces/text.h"

/* Limits (docs/program-format.md, "Limits"): they keep hostile input from
 * crashing (stack depth), taking more than a fraction of a second (steps,
 * instructions) or taking unbounded memory. */
#define A2T_MAX_FILE (16u << 20) /* bytes of trace text */
#define A2T_MAX_INSTRS_LOG2 21   /* instructions per file, all programs (~117 MB) */
#define A2T_MAX_INSTRS (1u << A2T_MAX_INSTRS_LOG2)
/* Expansion steps: statements run, loop iterations, program blocks run for
 * a rank, and expression nodes evaluated (per pass; about 0.1 s). */
#define A2T_MAX_STEPS_LOG2 25
#define A2T_MAX_STEPS (1ull << A2T_MAX_STEPS_LOG2)
/* Expression nodes (numbers, variables, operators) in the file: 128 MB; a
 * file written by a2_program_write that fits A2T_MAX_FILE has fewer than 3 M. */
#define A2T_MAX_EXPRS_LOG2 22
#define A2T_MAX_EXPRS (1u << A2T_MAX_EXPRS_LOG2)
#define A2T_MAX_NEST 64            /* for/if blocks inside one program block */
#define A2T_MAX_VARS 256           /* variables visible at once */
#define A2T_MAX_PARENS 100         /* nested parentheses / unary operators */
#define A2T_MAX_EXPR_DEPTH 1000    /* operators in one chain (tree depth) */
#define A2T_MAX_CORES 1024         /* `cores` */
#define A2T_MAX_PROGS (1u << 22)   /* ranks x cores */
#define A2T_MAX_BYTES (1ull << 40) /* one buffer, tile or golden block */
#define A2T_NONE UINT32_MAX        /* "no index" */
#define A2T_MAX_PARAMS 32          /* `param` declarations */
#define A2T_NO_ARRAY 0xff          /* a2t_ast.tile_array: a single tile */
#define A2T_MAX_ARRAY_NAME 40      /* a tile array's name: NAME[63] fits A2_NAME_MAX */

/* ---- tokens (text_lex.c) ---- */

typedef enum {
  TK_EOF,
  TK_EOL,
  TK_NAME,
  TK_VAR,
  TK_NUM,
  TK_LBRACK,
  TK_RBRACK,
  TK_COLON,
  TK_AT,
  TK_COMMA,
  TK_LPAREN,
  TK_RPAREN,
  TK_ASSIGN,
  TK_PLUS,
  TK_MINUS,
  TK_STAR,
  TK_SLASH,
  TK_PERCENT,
  TK_EQ,
  TK_NE,
  TK_LT,
  TK_LE,
  TK_GT,
  TK_GE,
  TK_AND,
  TK_OR,
  TK_NOT,
  TK_ARROW,
  TK_DOTDOT,
  TK_AMP,   /* & (bitwise and) */
  TK_PIPE,  /* | (bitwise or) */
  TK_CARET, /* ^ (bitwise xor) */
  TK_SHL,   /* << */
  TK_SHR,   /* >> */
  TK_STR,   /* "text" (assert messages; s, n: the text between the quotes) */
  TK_MIN,   /* min(a, b): not a token, the operator of its EX_BIN node */
  TK_MAX    /* max(a, b): likewise */
} a2t_tok_kind;

typedef struct {
  a2t_tok_kind kind;
  int line, col; /* 1-based; col counts bytes */
  const char *s; /* the token's text (TK_VAR: without the '$') */
  size_t n;
  int64_t num; /* TK_NUM */
} a2t_tok;

typedef struct {
  const char *text;
  size_t len, pos;
  int line;
  size_t line_start;       /* offset of the current line's first byte */
  int last_line, last_end; /* line and column just after the last token other than
                              an end of line (1, 1 before the first) */
  const char *name;        /* file name for errors */
  a2_err *err;
} a2t_lexer;

void a2t_lex_init(a2t_lexer *lx, const char *text, size_t len, const char *name, a2_err *err);
a2_code a2t_lex(a2t_lexer *lx, a2t_tok *t);
/* "'load'", "','", "end of line", ... for "expected X, found Y" messages. */
void a2t_tok_describe(const a2t_tok *t, char *out, size_t size);
/* Whether t is the name `word` (inline: the parser asks it many times a
 * statement; the first character rules out most words). */
static inline int a2t_tok_is(const a2t_tok *t, const char *word) {
  return t->kind == TK_NAME && t->s[0] == word[0] && !strncmp(t->s, word, t->n) &&
         word[t->n] == '\0';
}

/* ---- AST ---- */

/* EX_LOG2: log2 of operand a, a power of two (an error otherwise). */
typedef enum { EX_NUM, EX_VAR, EX_NEG, EX_NOT, EX_BIN, EX_LOG2 } a2t_ex_kind;

typedef struct {
  uint8_t kind;    /* a2t_ex_kind */
  uint8_t op;      /* EX_BIN: the operator's a2t_tok_kind */
  uint8_t is_bool; /* a comparison / condition rather than a number */
  uint16_t depth;  /* height of the tree below, bounded by A2T_MAX_EXPR_DEPTH */
  int line, col;   /* the operator (errors while evaluating) */
  int sline, scol; /* the expression's first token (errors about its value) */
  union {          /* 32 bytes a node: a 16 MiB file may hold millions */
    struct {
      uint32_t a, b; /* EX_NEG, EX_NOT, EX_BIN: operands */
    };
    int64_t v; /* EX_NUM: value; EX_VAR: slot */
  };
} a2t_expr;

typedef enum { ST_INSTR, ST_FOR, ST_IF, ST_LET, ST_ASSERT } a2t_st_kind;

/* Expression slots of an instruction statement. */
enum {
  E_OFF = 0,
  E_LEN,
  E_PEER,
  E_OFF2,
  E_AUX,   /* chunk, or notify/wait/compute value */
  E_QUEUE, /* put/get: queue */
  E_COL,   /* notify/wait on a 2-D signal: the column (E_OFF is the row) */
  E_SLOTS
};

typedef struct {
  uint8_t kind;     /* a2t_st_kind */
  uint8_t op, mode; /* ST_INSTR: a2_opcode, A2_MODE_* */
  uint8_t has_chunk;
  int line, col;
  uint16_t tile, tile_a, tile_b, buf, buf2; /* tiles of a tile array: its first tile */
  uint32_t tix[3];     /* the index expressions of tile, tile_a, tile_b in their tile arrays
                          (A2T_NONE: a single tile) */
  uint32_t e[E_SLOTS]; /* ST_INSTR: E_*; ST_FOR: from, to, step (A2T_NONE: 1); ST_IF and
                          ST_ASSERT: cond; ST_LET: value */
  uint32_t slot;       /* ST_FOR / ST_LET: the variable; ST_ASSERT: its message (a2t_ast.text) */
  uint32_t next;       /* next statement of the same block */
  uint32_t body;       /* ST_FOR / ST_IF: first statement of the body (then-branch) */
  uint32_t other;      /* ST_IF: first statement of the else branch */
  uint32_t nbody;      /* ST_FOR: statements directly in the body */
  uint32_t min_instrs; /* ST_FOR: fewest instructions one iteration emits */
} a2t_stmt;

typedef enum {
  D_BUILTIN,
  D_RANKS,
  D_CORES,
  D_CUBE_CORES,
  D_SEED,
  D_LET,
  D_BUF,
  D_TILE,
  D_GOLDEN,
  D_CARD,
  D_PARAM,
  D_ASSERT
} a2t_decl_kind;

/* One top-level declaration; evaluated in file order. */
typedef struct {
  uint8_t kind;   /* a2t_decl_kind */
  uint8_t golden; /* D_GOLDEN: a2_golden_kind */
  uint8_t op;     /* D_GOLDEN / D_BUILTIN: a2_reduce_op */
  uint8_t dtype;  /* D_BUILTIN */
  int line, col;
  uint16_t index, index2; /* D_BUF / D_TILE: which (D_TILE: the first of index2 tiles);
                             D_GOLDEN: in, out buffers */
  uint16_t index3;        /* D_GOLDEN gemm: B's buffer */
  uint32_t e[6];          /* D_BUILTIN: size, root; D_GOLDEN: n, root (gemm: M K N BM BK BN);
                             D_CARD: read, write, rounds; otherwise e[0] = the value / count
                             (a 2-D signal: e[0] rows, e[1] columns) */
  uint32_t slot;          /* D_LET, D_PARAM (index: which of a2t_ast.params); D_ASSERT: its
                             message (offset in a2t_ast.text); e[0] its condition */
} a2t_decl;

typedef struct {
  int line;
  uint32_t rank_e, core_e; /* A2T_NONE when absent */
  int core_all;            /* `core all`: every core (core_e is A2T_NONE) */
  int cube;                /* `cube ...` in place of `core ...`: the cube cores */
  uint32_t body;
} a2t_block;

typedef struct {
  a2t_expr *ex;
  uint32_t nex, capex;
  a2t_stmt *st;
  uint32_t nst, capst;
  a2t_decl *dl;
  uint32_t ndl, capdl;
  a2t_block *pg;
  uint32_t npg, cappg;
  char *text; /* assert messages, each NUL-terminated; referred to by offset */
  uint32_t ntext, captext;
  uint32_t nslots;               /* environment size */
  uint32_t slot_rank, slot_core; /* where programs keep $rank and $core */
  uint32_t nbufs, ntiles;
  a2_buf_decl bufs[A2_MAX_BUFS]; /* bytes still 0: sizes are expressions (D_BUF) */
  a2_init_kind init[A2_MAX_BUFS];
  a2_tile_decl tiles[A2_MAX_TILES];
  /* Tile arrays (`tile NAME[COUNT] ...`, text_tiles.c): COUNT consecutive
   * tiles, named NAME[0] .. NAME[COUNT-1] in the program. tile_array[t] is
   * the array tile t belongs to, or A2T_NO_ARRAY. */
  struct {
    char name[A2_NAME_MAX];
    uint16_t first, count;
  } tarr[A2_MAX_TILES];
  uint32_t ntarr;
  uint8_t tile_array[A2_MAX_TILES];
  uint8_t sig2d[A2_MAX_BUFS]; /* a signal declared with rows and columns (text_cells.c) */
  char algo[A2_NAME_MAX];     /* `builtin NAME` */
  struct {
    char name[A2_NAME_MAX];
    int line;
  } params[A2T_MAX_PARAMS]; /* `param NAME = EXPR`, in file order */
  uint32_t nparams;
  int end_line, end_col; /* just after the file's last token (1, 1 if none) */
} a2t_ast;

/* Fixed slots: $nranks and $ncores exist in every environment. */
enum { A2T_SLOT_NRANKS = 0, A2T_SLOT_NCORES = 1 };

/* Grow *v (elements of `size` bytes, *cap of them) to hold n + 1. */
a2_code a2t_grow(void **v, uint32_t *cap, uint32_t n, size_t size, a2_err *err);
void a2t_ast_free(a2t_ast *a);

/* ---- parser state (text_parse.c, text_decl.c, text_expr.c) ---- */

typedef struct {
  char name[A2_NAME_MAX];
  int line;      /* where defined; 0 = predefined */
  uint32_t n;    /* strlen(name) */
  uint32_t next; /* the next visible variable in the same hash bucket, or A2T_NONE */
} a2t_var;

/* Buckets of the hash of visible variable names (a power of two). */
#define A2T_VAR_BUCKETS 512

/* A block being read: its keyword ("program", "for", "if") and where. */
typedef struct {
  const char *word;
  int line, col;
} a2t_open;

typedef struct {
  a2t_lexer lx;
  a2t_tok cur;
  a2t_ast *ast;
  a2_err *err;
  const char *name;
  a2t_var vars[A2T_MAX_VARS]; /* visible variables; index = slot; names are unique */
  uint32_t nvars;
  uint32_t var_head[A2T_VAR_BUCKETS]; /* newest variable of each bucket, or A2T_NONE */
  /* Blocks open now, outermost first (a program block and its for/if), and
   * the first `end` of the current program block that is indented like an
   * enclosing opener rather than the block it closes: the likely place of a
   * missing `end`, named when the file ends with blocks open. */
  a2t_open open[A2T_MAX_NEST + 2];
  int nopen;
  struct {
    int end_line;    /* 0: none seen */
    a2t_open closed; /* the block that `end` closed */
    a2t_open like;   /* the enclosing opener it is indented like */
  } misfit;
  int cores_seen;    /* the `cores` line has been read: $ncores is defined at the top */
  int in_program;    /* $ncores is always defined inside program blocks */
  int parens;        /* expression recursion depth */
  int nest;          /* for/if depth inside the current program block */
  int decl_line[16]; /* line of the first builtin/ranks/cores/seed/golden/card (by kw) */
  int buf_line[A2_MAX_BUFS], tile_line[A2_MAX_TILES];
} a2t_parser;

a2_code a2t_next(a2t_parser *p);
a2_code a2t_fail(a2t_parser *p, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "expected WHAT, found TOKEN" at the current token. */
a2_code a2t_expected(a2t_parser *p, const char *what);
a2_code a2t_expect(a2t_parser *p, a2t_tok_kind kind, const char *what);
a2_code a2t_expect_eol(a2t_parser *p, const char *after);
/* Reads a name (< A2_NAME_MAX characters) into out. */
a2_code a2t_expect_name(a2t_parser *p, const char *what, char out[A2_NAME_MAX]);
/* Defines a variable in the innermost scope; *slot receives its slot. */
a2_code a2t_define_var(a2t_parser *p, const a2t_tok *at, const char *name, uint32_t *slot);
/* The slot of the visible variable named (s, n), or A2T_NONE. */
uint32_t a2t_find_var(const a2t_parser *p, const char *s, size_t n);
/* Ends the variables defined since nvars was `base` (end of a scope). */
void a2t_end_scope(a2t_parser *p, uint32_t base);

a2_code a2t_add_stmt(a2t_parser *p, const a2t_stmt *s, uint32_t *idx);
/* `assert COND "message"` (current token: `assert`), text_assert.c: the
 * condition's expression and the message's offset in ast->text. */
a2_code a2t_parse_assert(a2t_parser *p, uint32_t *cond, uint32_t *msg);
/* The run is refused: an assert's condition is false. */
a2_code a2t_assert_failed(const a2t_ast *a, const char *name, int line, int col, uint32_t msg,
                          a2_err *err);
/* `let NAME = EXPR` or `param NAME = EXPR` (current token: the keyword, `word`);
 * defines the variable and copies its name to name_out when not NULL. */
a2_code a2t_parse_let(a2t_parser *p, const char *word, uint32_t *slot, uint32_t *e, char *name_out);
/* One instruction statement (current token: its name), text_instr.c. */
a2_code a2t_parse_instr(a2t_parser *p, a2_opcode op, uint32_t *s);
/* A declared buffer / tile by name (current token), with a helpful error. */
a2_code a2t_buf_ref(a2t_parser *p, uint16_t *idx);
/* A tile, or an element of a tile array, NAME[EXPR] (text_tiles.c): *idx is
 * the tile (an array's first), *ix the index expression or A2T_NONE. */
a2_code a2t_tile_ref(a2t_parser *p, uint16_t *idx, uint32_t *ix);
/* Tile arrays (text_tiles.c). The declaration's `[COUNT]` after its name
 * (current token: '[' if there is one); *count is 0 when there is none. */
a2_code a2t_parse_tile_count(a2t_parser *p, uint32_t ntiles, uint32_t *count);
/* The tile array named (s, n), or -1. */
int a2t_tile_array_find(const a2t_ast *a, const char *s, size_t n);
/* A single tile by name (text_names.c; a2t_tile_ref handles the arrays). */
a2_code a2t_tile_name_ref(a2t_parser *p, uint16_t *idx);
/* Element v of the array whose first tile is `first`, named by instruction
 * `op` at the index expression ix: *tile is its tile, or an error naming the
 * index and the bound. */
a2_code a2t_tile_index(const a2t_ast *a, const char *name, const char *op, uint16_t first,
                       uint32_t ix, int64_t v, uint16_t *tile, a2_err *err);
/* For the writer: when tiles i, i+1, ... of k are named BASE[0], BASE[1],
 * ... with one type, size and space (and no other tile is named BASE or
 * BASE[...]), copies BASE and returns how many there are (a tile array the
 * reader gives back tile for tile); 0 otherwise. */
uint32_t a2t_tile_array_run(const a2_program *k, uint32_t i, char base[A2_NAME_MAX]);
/* 2-D signals (text_cells.c): the cell of (row, col) in signal buf, or an
 * error at the row or column expression naming the index and the bound. */
a2_code a2t_signal_cell(const a2t_ast *a, const char *name, const char *op, const a2_buf_decl *b,
                        uint32_t row_e, uint32_t col_e, int64_t row, int64_t col, uint64_t rows,
                        uint64_t cols, uint64_t *cell, a2_err *err);
/* fp32 | fp16 | int32, and sum | max | min | prod (current token). */
a2_code a2t_parse_dtype(a2t_parser *p, a2_dtype *t);
a2_code a2t_parse_redop(a2t_parser *p, a2_reduce_op *op);

/* Expressions: a number (no comparison) or a condition (`if`). */
a2_code a2t_parse_int(a2t_parser *p, uint32_t *out);
a2_code a2t_parse_cond(a2t_parser *p, uint32_t *out);
/* Evaluates expression e in env; errors name the operator or expression.
 * Adds the number of nodes evaluated to *steps. */
a2_code a2t_eval(const a2t_ast *a, uint32_t e, const int64_t *env, const char *name, int64_t *out,
                 uint64_t *steps, a2_err *err);

/* Top-level declarations (text_decl.c); the current token is the keyword. */
a2_code a2t_parse_decl(a2t_parser *p, int kw);
/* The declaration keywords, shared by the parser's dispatch and its
 * suggestions (instructions are a2_op_names, traces/program.h). */
extern const char *const a2t_decl_words[]; /* NULL-terminated; index = kw for parse_decl */
/* The word of `words` closest to (s, n), or NULL when none is close. */
const char *a2t_suggest(const char *s, size_t n, const char *const *words, size_t nwords);

/* ---- whole file ---- */

a2_code a2t_parse(const char *text, size_t len, const char *name, a2t_ast *ast, a2_err *err);
/* Expand for nranks ranks; params[0..nparams) override `param` values (every
 * name must be one of ast->params: the caller checks, a2_program_load_params). */
a2_code a2t_expand(const a2t_ast *ast, const char *name, uint32_t nranks,
                   const a2_program_param *params, size_t nparams, a2_program *k, a2_err *err);

#endif
