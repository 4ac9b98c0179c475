/* a2a3sim calibrate: what it prints. The row tables (text for a terminal,
 * Markdown for docs/fidelity.md) and, after a fit, the notes: each key's
 * start and fitted value, keys at an edge of their range, keys the rows
 * cannot tell apart, rows the fit cannot explain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"

bool a2_cal_row_within(const a2_cal_row *row, const a2_cal_sim *s) {
  return s->ok && fabs(s->value / row->measured - 1) <= row->tolerance + 1e-12;
}

size_t a2_cal_rows_within(const a2_cal_runner *r, size_t point) {
  size_t n = 0;
  for (size_t i = 0; i < r->t->nrows; i++)
    n += a2_cal_row_within(&r->t->rows[i], &r->points[point].sims[i]);
  return n;
}

static const char *kernel_of(const a2_cal_row *row) {
  return row->trace_path ? row->trace_path : row->kernel;
}

enum { NCELLS = 9 };

/* The cells of one row of the text table. */
static void cells(const a2_cal_row *row, const a2_cal_sim *s, bool with_residual,
                  char c[NCELLS][160]) {
  snprintf(c[0], 160, "%s", row->id);
  snprintf(c[1], 160, "%s", kernel_of(row));
  snprintf(c[2], 160, "%s", a2_cal_metric_name(row->metric));
  a2_cal_format_figure(row, row->measured, c[3], 160);
  if (s->ok) {
    double ratio = s->value / row->measured;
    a2_cal_format_figure(row, s->value, c[4], 160);
    snprintf(c[5], 160, "%.4f", ratio);
    snprintf(c[6], 160, "%+.4f", log(ratio));
  } else {
    snprintf(c[4], 160, "-");
    snprintf(c[5], 160, "-");
    snprintf(c[6], 160, "-");
  }
  snprintf(c[7], 160, "%s", row->tolerance_text);
  snprintf(c[8], 160, "%s", !s->ok ? "FAILED" : a2_cal_row_within(row, s) ? "yes" : "NO");
  if (!with_residual) {
    memmove(c[6], c[7], 160);
    memmove(c[7], c[8], 160);
  }
}

void a2_cal_print_rows(const a2_cal_runner *r, size_t point, bool with_residual, FILE *out) {
  const char *head[NCELLS] = {"row",   "kernel",    "metric", "measured", "simulated",
                              "ratio", "log ratio", "tol",    "within"};
  if (!with_residual) {
    head[6] = "tol";
    head[7] = "within";
  }
  size_t ncols = with_residual ? NCELLS : NCELLS - 1, w[NCELLS];
  for (size_t c = 0; c < ncols; c++) w[c] = strlen(head[c]);
  char c[NCELLS][160];
  for (size_t i = 0; i < r->t->nrows; i++) {
    cells(&r->t->rows[i], &r->points[point].sims[i], with_residual, c);
    for (size_t k = 0; k < ncols; k++)
      if (strlen(c[k]) > w[k]) w[k] = strlen(c[k]);
  }
  /* Left-aligned text, right-aligned figures. */
  static const bool right[NCELLS] = {false, false, false, true, true, true, true, true, false};
  for (size_t k = 0; k < ncols; k++)
    fprintf(out, "%s%*s", k ? "  " : "",
            k + 1 == ncols ? 0
            : right[k]     ? (int)w[k]
                           : -(int)w[k],
            head[k]);
  fputc('\n', out);
  for (size_t i = 0; i < r->t->nrows; i++) {
    const a2_cal_sim *s = &r->points[point].sims[i];
    cells(&r->t->rows[i], s, with_residual, c);
    for (size_t k = 0; k < ncols; k++)
      fprintf(out, "%s%*s", k ? "  " : "",
              k + 1 == ncols ? 0
              : right[k]     ? (int)w[k]
                             : -(int)w[k],
              c[k]);
    if (!s->ok) fprintf(out, ": %s", s->error ? s->error : "no result");
    fputc('\n', out);
  }
}

/* A Markdown cell: '|' escaped. */
static void md_cell(FILE *out, const char *s, bool code) {
  fputs(code ? " `" : " ", out);
  for (; *s; s++) {
    if (*s == '|') fputc('\\', out);
    fputc(*s, out);
  }
  fputs(code ? "` |" : " |", out);
}

void a2_cal_print_markdown(const a2_cal_runner *r, size_t point, FILE *out) {
  fputs(
      "| row | source | kernel | measured | command | simulated | ratio | tolerance | pass |\n"
      "|---|---|---|---:|---|---:|---:|---:|---|\n",
      out);
  for (size_t i = 0; i < r->t->nrows; i++) {
    const a2_cal_row *row = &r->t->rows[i];
    const a2_cal_sim *s = &r->points[point].sims[i];
    char buf[160];
    fputc('|', out);
    md_cell(out, row->id, false);
    md_cell(out, row->source, false);
    md_cell(out, kernel_of(row), true);
    if (row->metric == A2_CAL_TIME)
      snprintf(buf, sizeof buf, "%s", row->measured_text);
    else if (a2_cal_metric_is_time(row->metric))
      snprintf(buf, sizeof buf, "%s (%s)", row->measured_text, a2_cal_metric_name(row->metric));
    else
      snprintf(buf, sizeof buf, "%s %s", row->measured_text, a2_cal_metric_name(row->metric));
    md_cell(out, buf, false);
    char *cmd = a2_cal_row_command(r->o, row, r->points[point].values);
    md_cell(out, cmd ? cmd : "?", true);
    free(cmd);
    if (s->ok) {
      a2_cal_format_figure(row, s->value, buf, sizeof buf);
      md_cell(out, buf, false);
      snprintf(buf, sizeof buf, "%.4f", s->value / row->measured);
      md_cell(out, buf, false);
    } else {
      md_cell(out, "-", false);
      md_cell(out, "-", false);
    }
    md_cell(out, row->tolerance_text, false);
    md_cell(out, !s->ok ? "**failed**" : a2_cal_row_within(row, s) ? "yes" : "**no**", false);
    fputc('\n', out);
  }
}

/* ---- after a fit ---- */

static double dot(const double *a, const double *b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

static void list_keys(FILE *out, const a2_cal_opts *o, const size_t *keys, size_t n) {
  for (size_t j = 0; j < n; j++)
    fprintf(out, "%s%s", j == 0 ? "" : j + 1 == n ? " and " : ", ", o->keys[keys[j]].path);
}

/* Keys whose effect on the rows (their sensitivity columns at the fit) is
 * nearly a combination of earlier keys' (Gram-Schmidt in --fit order). */
static void identifiability(const a2_cal_runner *r, const a2_cal_fit *f, FILE *out,
                            const char *prefix) {
  size_t nk = r->o->nkeys, nrows = r->t->nrows, nbasis = 0;
  size_t basis_key[A2_CAL_MAX_KEYS];
  double *q = calloc(nk * nrows + 1, sizeof *q), *v = calloc(nrows + 1, sizeof *v);
  if (!q || !v) {
    free(q);
    free(v);
    return;
  }
  for (size_t k = 0; k < nk; k++) {
    const double *c = f->sens_best + k * nrows;
    double norm = sqrt(dot(c, c, nrows));
    bool moves = false;
    for (size_t i = 0; i < nrows; i++) moves |= f->moves_best[k * nrows + i];
    if (!moves || norm == 0) {
      fprintf(out,
              "%s%s moves no row at the fit: its fitted value is not determined by the rows "
              "(any value near it fits as well)\n",
              prefix, r->o->keys[k].path);
      continue;
    }
    memcpy(v, c, nrows * sizeof *v);
    size_t used[A2_CAL_MAX_KEYS], nused = 0;
    for (size_t b = 0; b < nbasis; b++) {
      double p = dot(v, q + b * nrows, nrows);
      if (fabs(p) > 1e-3 * norm) used[nused++] = basis_key[b];
      for (size_t i = 0; i < nrows; i++) v[i] -= p * q[b * nrows + i];
    }
    double rest = sqrt(dot(v, v, nrows));
    if (rest < 0.1 * norm && nused) {
      double aligned = 100 * sqrt(fmax(0, 1 - (rest / norm) * (rest / norm)));
      fprintf(out, "%s%s is not separately identifiable from ", prefix, r->o->keys[k].path);
      list_keys(out, r->o, used, nused);
      fprintf(out,
              " with these rows: it moves every row in the same proportions (%.1f %% aligned), "
              "so the rows fix one combination of these keys and the fitted values are one point "
              "of a family of equally good fits. Rows that weigh the keys differently identify "
              "them (docs/calibrate.md)\n",
              aligned);
      continue;
    }
    for (size_t i = 0; i < nrows; i++) q[nbasis * nrows + i] = v[i] / rest;
    basis_key[nbasis++] = k;
  }
  free(q);
  free(v);
}

void a2_cal_print_fit_notes(const a2_cal_runner *r, const a2_cal_fit *f, FILE *out,
                            const char *prefix) {
  const a2_cal_opts *o = r->o;
  size_t nk = o->nkeys, nrows = r->t->nrows;
  const a2_cal_point *best = &r->points[f->best];
  for (size_t k = 0; k < nk; k++) {
    const a2_cal_key *key = &o->keys[k];
    uint64_t v = best->values[k];
    bool low = fabs(log((double)v / (double)key->lo)) < 1e-3;
    if (!low && fabs(log((double)v / (double)key->hi)) >= 1e-3) continue;
    char range[160], a[64], b[64];
    a2_cal_format_value(key, key->lo, a, sizeof a);
    a2_cal_format_value(key, key->hi, b, sizeof b);
    snprintf(range, sizeof range, "%s..%s", a, b);
    fprintf(out,
            "%s%s stopped at the %s end of its range %s: the best fit may lie beyond it (widen "
            "it: --fit %s=LO..HI)\n",
            prefix, key->path, low ? "low" : "high", range, key->path);
  }
  identifiability(r, f, out, prefix);
  for (size_t i = 0; i < nrows; i++) {
    const a2_cal_row *row = &r->t->rows[i];
    const a2_cal_sim *s = &best->sims[i];
    bool moves = false;
    for (size_t k = 0; k < nk; k++)
      moves |= f->moves_best[k * nrows + i] || f->moves_start[k * nrows + i];
    bool within = a2_cal_row_within(row, s);
    if (!moves && !within)
      fprintf(out,
              "%srow %s does not depend on the fitted keys: a constant the model does not "
              "have? (ratio %.4f whatever their values)\n",
              prefix, row->id, s->value / row->measured);
    else if (!moves)
      fprintf(out, "%srow %s does not depend on the fitted keys (it does not constrain them)\n",
              prefix, row->id);
    else if (!within)
      fprintf(out,
              "%srow %s is outside its tolerance %s at the fit (ratio %.4f): the fitted keys "
              "cannot explain it together with the other rows (the fit minimises the sum of "
              "squared log ratios over all rows); a mechanism or a key the fit does not vary?\n",
              prefix, row->id, row->tolerance_text, s->value / row->measured);
  }
  if (!f->converged)
    fprintf(out,
            "%sthe search stopped at its budget of %u points (--max-evals) before it converged: "
            "the fit may improve with a larger budget\n",
            prefix, o->max_evals);
}
