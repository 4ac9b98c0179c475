/* 2-D signal windows (docs/program-format.md, "2-D signals"): `signal
 * NAME[ROWS, COLS]` declares ROWS x COLS int32 cells, row-major, and
 * `NAME[ROW, COL]` (or `NAME@PEER[ROW, COL]`) names cell ROW * COLS + COL,
 * as a flag matrix indexed by two offsets. Both indices are expressions,
 * each checked against its own bound when the file is expanded, so a
 * column past the end of a row is an error rather than the next row's
 * first cell. */
#include "traces/text_internal.h"

a2_code a2t_signal_cell(const a2t_ast *a, const char *name, const char *op, const a2_buf_decl *b,
                        uint32_t row_e, uint32_t col_e, int64_t row, int64_t col, uint64_t rows,
                        uint64_t cols, uint64_t *cell, a2_err *err) {
  int bad_row = row < 0 || (uint64_t)row >= rows;
  if (bad_row || col < 0 || (uint64_t)col >= cols) {
    const a2t_expr *n = &a->ex[bad_row ? row_e : col_e];
    return a2_err_set(err, A2_E_INPUT, name, n->sline, n->scol,
                      "%s: %s %lld is outside signal '%s' of %llu rows x %llu columns (%s 0..%lld)",
                      op, bad_row ? "row" : "column", (long long)(bad_row ? row : col), b->name,
                      (unsigned long long)rows, (unsigned long long)cols,
                      bad_row ? "rows" : "columns", (long long)(bad_row ? rows : cols) - 1);
  }
  *cell = (uint64_t)row * cols + (uint64_t)col;
  return A2_OK;
}
