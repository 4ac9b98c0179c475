/* a2a3sim calibrate: what it prints. The row tables (text for a terminal,
 * Markdown for docs/fidelity.md), one per group of rows (fit, held out,
 * predict), each with a summary line (rows, median and worst |error|),
 * and, after a fit, the notes: keys at an edge of their range, keys the
 * rows cannot tell apart, rows the fit cannot explain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"

bool a2_cal_row_within(const a2_cal_row *row, const a2_cal_sim *s) {
  return s->ok && fabs(s->value / row->measured - 1) <= row->tolerance + 1e-12;
}

size_t a2_cal_group_size(const a2_cal_table *t, a2_cal_group g) {
  size_t n = 0;
  for (size_t i = 0; i < t->nrows; i++) n += a2_cal_row_group(&t->rows[i]) == g;
  return n;
}

size_t a2_cal_rows_within(const a2_cal_runner *r, size_t point) {
  size_t n = 0;
  for (size_t i = 0; i < r->t->nrows; i++)
    n += a2_cal_row_within(&r->t->rows[i], &r->points[point].sims[i]);
  return n;
}

static const char *program_of(const a2_cal_row *row) {
  return row->program_path ? row->program_path : row->program;
}

enum { NCELLS = 9 };

/* The cells of one row of the text table. */
static void cells(const a2_cal_table *t, size_t i, const a2_cal_sim *s, bool with_residual,
                  char c[NCELLS][160]) {
  const a2_cal_row *row = &t->rows[i];
  a2_cal_row_name(t, i, c[0], 160);
  snprintf(c[1], 160, "%s", program_of(row));
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

void a2_cal_print_rows(const a2_cal_runner *r, size_t point, a2_cal_group g, bool with_residual,
                       FILE *out) {
  const char *head[NCELLS] = {"row",   "program",   "metric", "measured", "simulated",
                              "ratio", "log ratio", "tol",    "within"};
  if (!with_residual) {
    head[6] = "tol";
    head[7] = "within";
  }
  size_t ncols = with_residual ? NCELLS : NCELLS - 1, w[NCELLS];
  for (size_t c = 0; c < ncols; c++) w[c] = strlen(head[c]);
  char c[NCELLS][160];
  for (size_t i = 0; i < r->t->nrows; i++) {
    if (a2_cal_row_group(&r->t->rows[i]) != g) continue;
    cells(r->t, i, &r->points[point].sims[i], with_residual, c);
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
    if (a2_cal_row_group(&r->t->rows[i]) != g) continue;
    const a2_cal_sim *s = &r->points[point].sims[i];
    cells(r->t, i, s, with_residual, c);
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

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static bool in(const a2_cal_row *row, a2_cal_group g, const char *file) {
  return a2_cal_row_group(row) == g && (!file || !strcmp(row->file, file));
}

void a2_cal_print_summary(const a2_cal_runner *r, size_t point, a2_cal_group g, const char *file,
                          bool markdown, FILE *out) {
  static const char *const text[] = {"fit rows", "held-out rows", "predicted rows"};
  static const char *const md[] = {"**Fitted rows** (role `fit`)",
                                   "**Held-out rows** (`--holdout`)",
                                   "**Predicted rows** (role `predict`, used by no fit)"};
  size_t n = 0, failed = 0, within = 0, worst = SIZE_MAX;
  double worst_e = 0;
  double *err = calloc(r->t->nrows + 1, sizeof *err);
  if (!err) return;
  for (size_t i = 0; i < r->t->nrows; i++) {
    const a2_cal_row *row = &r->t->rows[i];
    const a2_cal_sim *s = &r->points[point].sims[i];
    if (!in(row, g, file)) continue;
    if (!s->ok) {
      failed++;
      continue;
    }
    double e = fabs(s->value / row->measured - 1);
    within += a2_cal_row_within(row, s);
    if (worst == SIZE_MAX || e > worst_e) { /* ties: the earlier row */
      worst = i;
      worst_e = e;
    }
    err[n++] = e;
  }
  fputs(markdown ? md[g] : text[g], out);
  if (!n && !failed) {
    fputs(markdown ? ": none.\n" : ": none\n", out);
    free(err);
    return;
  }
  fprintf(out, ": %zu", n + failed);
  if (n) {
    qsort(err, n, sizeof *err, by_value);
    double median = n % 2 ? err[n / 2] : (err[n / 2 - 1] + err[n / 2]) / 2;
    char name[200];
    a2_cal_row_name(r->t, worst, name, sizeof name);
    fprintf(out, ", median |error| %.2f %%, worst |error| %.2f %% (%s), %zu within their tolerance",
            100 * median, 100 * err[n - 1], name, within);
  }
  if (failed) fprintf(out, ", %zu failed (not counted)", failed);
  fputs(markdown ? ".\n" : "\n", out);
  free(err);
}

/* One group's rows of one file (NULL: all) as a Markdown table. */
static void markdown_table(const a2_cal_runner *r, size_t point, a2_cal_group g, const char *file,
                           FILE *out) {
  fputs(
      "| row | source | program | measured | command | simulated | ratio | tolerance | pass |\n"
      "|---|---|---|---:|---|---:|---:|---:|---|\n",
      out);
  for (size_t i = 0; i < r->t->nrows; i++) {
    const a2_cal_row *row = &r->t->rows[i];
    const a2_cal_sim *s = &r->points[point].sims[i];
    if (!in(row, g, file)) continue;
    char buf[160];
    fputc('|', out);
    a2_cal_row_name(r->t, i, buf, sizeof buf);
    md_cell(out, buf, false);
    md_cell(out, row->source, false);
    md_cell(out, program_of(row), true);
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

void a2_cal_print_markdown(const a2_cal_runner *r, size_t point, const char *file, FILE *out) {
  bool first = true;
  for (a2_cal_group g = A2_CAL_GROUP_FIT; g <= A2_CAL_GROUP_PREDICT; g++) {
    bool any = false;
    for (size_t i = 0; i < r->t->nrows && !any; i++) any = in(&r->t->rows[i], g, file);
    if (!any) continue;
    if (!first) fputc('\n', out);
    first = false;
    markdown_table(r, point, g, file, out);
    fputc('\n', out);
    a2_cal_print_summary(r, point, g, file, true, out);
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
    if (!a2_cal_row_used(r, i)) continue; /* held out or predict: not the fit's */
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
