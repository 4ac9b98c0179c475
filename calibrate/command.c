/* a2a3sim calibrate: the command. Flags and the CSVs are checked first
 * (--holdout names sources of their rows); then every row runs at the start
 * (the config, --set, the fitted keys' start values). Without --fit: a
 * table of the fit rows and one of the predict rows, each with its summary
 * line, and with --check exit 1 when a row is outside its tolerance or a
 * rank trend goes the other way than measured (trend.c). With
 * --fit: the search over the rows it uses (role fit, not held out;
 * progress on stderr), those rows before and after, the held-out and the
 * predict rows at the start and at the fit, the fitted values, the notes,
 * the fitted YAML. A row whose run fails at the start is an error naming
 * the row's file and line. Killed by the signal that interrupted it, after
 * reaping every child. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/calibrate.h"
#include "procs/procs.h"

/* Rows whose run failed at point p: each an error line; the exit status
 * (1 a run FAILed, 2 a run was refused, 3 an internal error), 0 if none. */
static int failed_rows(const a2_cal_runner *r, size_t p) {
  int rc = 0;
  for (size_t i = 0; i < r->t->nrows; i++) {
    const a2_cal_sim *s = &r->points[p].sims[i];
    if (s->ok) continue;
    const a2_cal_row *row = &r->t->rows[i];
    char *cmd = a2_cal_row_command(r->o, row, r->points[p].values);
    fprintf(stderr, "a2a3sim: %s:%d: error: row %s: %s\n  the row's command: %s\n", row->file,
            row->line, row->id, s->error ? s->error : "no result", cmd ? cmd : "?");
    free(cmd);
    int code = s->exit_code == A2_EXIT_OK || s->exit_code == A2_EXIT_FAIL ? A2_EXIT_FAIL
               : s->exit_code == A2_EXIT_USAGE                            ? A2_EXIT_USAGE
                                                                          : A2_EXIT_INTERNAL;
    if (code > rc) rc = code; /* the worst: FAIL < refused < internal */
  }
  return rc;
}

/* "FILE, FILE: N rows: F fit, P predict; held out ...; config: ..." */
static void head_line(const a2_cal_runner *r, FILE *out) {
  const a2_cal_table *t = r->t;
  const a2_cal_opts *o = r->o;
  for (size_t i = 0; i < t->npaths; i++) fprintf(out, "%s%s", i ? ", " : "", t->paths[i]);
  size_t fit = 0;
  for (size_t i = 0; i < t->nrows; i++) fit += t->rows[i].role == A2_CAL_ROLE_FIT;
  fprintf(out, ": %zu row%s: %zu fit, %zu predict; ", t->nrows, t->nrows == 1 ? "" : "s", fit,
          t->nrows - fit);
  size_t held = a2_cal_group_size(t, A2_CAL_GROUP_HELD);
  if (held) {
    fprintf(out, "held out (--holdout): %zu row%s of ", held, held == 1 ? "" : "s");
    size_t nsrc = 0;
    for (size_t i = 0; i < t->nrows; i++) { /* each held-out source once */
      bool seen = !t->rows[i].held_out;
      for (size_t j = 0; j < i && !seen; j++)
        seen = t->rows[j].held_out && !strcmp(t->rows[j].source, t->rows[i].source);
      if (!seen) fprintf(out, "%s%s", nsrc++ ? ", " : "", t->rows[i].source);
    }
    fprintf(out, "; ");
  }
  if (o->nkeys) {
    size_t used = a2_cal_group_size(t, A2_CAL_GROUP_FIT);
    fprintf(out, "the fit uses the %zu fit row%s%s; ", used, used == 1 ? "" : "s",
            held ? " not held out" : "");
  }
  size_t own = 0; /* rows with --config in their args run with their own */
  for (size_t i = 0; i < t->nrows; i++) own += t->rows[i].config_path != NULL;
  if (own == t->nrows && own)
    fprintf(out, "config: each row's own (--config in its args)");
  else
    fprintf(out, "config: %s%s", o->config_path ? o->config_path : "built-in " A2_DEFAULT_CONFIG,
            own ? " (rows with --config in their args: their own)" : "");
  for (size_t i = 0; i < o->nsets; i++) fprintf(out, ", --set %s", o->sets[i]);
  fputc('\n', out);
}

/* The rank trends at a point (a2_cal_wrong_trends): a line saying how many
 * steps were checked, then each that goes the other way. Returns those. */
static size_t trends(const a2_cal_runner *r, size_t point, FILE *out) {
  size_t steps, wrong = a2_cal_wrong_trends(r, point, "  ", NULL, &steps);
  if (!steps) return 0;
  fprintf(out, "rank trends: %zu step%s from one rank count to the next, %zu the other way%s\n",
          steps, steps == 1 ? "" : "s", wrong, wrong ? " than measured:" : "");
  if (wrong) a2_cal_wrong_trends(r, point, "  ", out, &steps);
  return wrong;
}

static int no_fit(a2_cal_runner *r, size_t start) {
  const a2_cal_opts *o = r->o;
  const a2_cal_table *t = r->t;
  size_t within = a2_cal_rows_within(r, start), n = t->nrows;
  if (o->markdown && t->npaths == 1) {
    a2_cal_print_markdown(r, start, NULL, stdout);
  } else if (o->markdown) { /* each file's tables after a comment naming it, then every row's */
    for (size_t i = 0; i < t->npaths; i++) {
      printf("%s<!-- calibrate: %s -->\n", i ? "\n" : "", t->paths[i]);
      a2_cal_print_markdown(r, start, t->paths[i], stdout);
    }
    printf("\n<!-- calibrate: every file -->\n");
    a2_cal_print_summary(r, start, A2_CAL_GROUP_FIT, NULL, true, stdout);
    putchar('\n');
    a2_cal_print_summary(r, start, A2_CAL_GROUP_PREDICT, NULL, true, stdout);
  } else {
    head_line(r, stdout);
    size_t npredict = a2_cal_group_size(t, A2_CAL_GROUP_PREDICT);
    if (npredict < n) {
      a2_cal_print_rows(r, start, A2_CAL_GROUP_FIT, false, stdout);
      a2_cal_print_summary(r, start, A2_CAL_GROUP_FIT, NULL, false, stdout);
    }
    if (npredict) {
      if (npredict < n) putchar('\n');
      printf("predicted rows (role predict: compared, used by no fit):\n");
      a2_cal_print_rows(r, start, A2_CAL_GROUP_PREDICT, false, stdout);
      a2_cal_print_summary(r, start, A2_CAL_GROUP_PREDICT, NULL, false, stdout);
    }
    printf("%zu of %zu rows within their tolerance\n", within, n);
  }
  size_t wrong = trends(r, start, o->markdown ? stderr : stdout);
  return o->check && (within < n || wrong) ? A2_EXIT_FAIL : A2_EXIT_OK;
}

/* The rows of a group the fit does not use, at the start and at the fit. */
static void unused_rows(const a2_cal_runner *r, const a2_cal_fit *f, a2_cal_group g) {
  if (!a2_cal_group_size(r->t, g)) return;
  const char *what = g == A2_CAL_GROUP_HELD
                         ? "held-out rows (--holdout: their sources' rows are not used by the fit)"
                         : "predicted rows (role predict: not used by the fit)";
  printf("\n%s, at the start:\n", what);
  a2_cal_print_rows(r, f->start, g, true, stdout);
  a2_cal_print_summary(r, f->start, g, NULL, false, stdout);
  printf("\n%s, after the fit:\n", what);
  a2_cal_print_rows(r, f->best, g, true, stdout);
  a2_cal_print_summary(r, f->best, g, NULL, false, stdout);
}

static int fit(a2_cal_runner *r) {
  const a2_cal_opts *o = r->o;
  size_t n = r->t->nrows;
  a2_cal_fit f;
  int rc = a2_cal_fit_start(r, &f);
  if (rc) {
    a2_cal_fit_free(&f);
    return rc;
  }
  head_line(r, stdout);
  for (size_t k = 0; k < o->nkeys; k++) {
    const a2_cal_key *key = &o->keys[k];
    char s[64], lo[64], hi[64], b[64];
    a2_cal_format_value(key, key->start, s, sizeof s);
    a2_cal_format_value(key, key->lo, lo, sizeof lo);
    a2_cal_format_value(key, key->hi, hi, sizeof hi);
    a2_cal_format_value(key, key->base, b, sizeof b);
    printf("fit %s from %s, range %s..%s", key->path, s, lo, hi);
    if (key->start != key->base) printf(" (the config's %s is outside the range)", b);
    putchar('\n');
  }
  fflush(stdout);
  if ((rc = a2_cal_fit_search(r, &f))) {
    a2_cal_fit_free(&f);
    return rc;
  }
  const a2_cal_point *start = &r->points[f.start], *best = &r->points[f.best];
  printf(
      "\nbefore the fit: residual %.6g (sum over the rows the fit uses of ln(simulated / "
      "measured)^2)\n",
      start->residual);
  a2_cal_print_rows(r, f.start, A2_CAL_GROUP_FIT, true, stdout);
  a2_cal_print_summary(r, f.start, A2_CAL_GROUP_FIT, NULL, false, stdout);
  printf("\nafter the fit: residual %.6g; %zu points, %u step%s, %s\n", best->residual, f.evals,
         f.steps, f.steps == 1 ? "" : "s", f.converged ? "converged" : "stopped by --max-evals");
  a2_cal_print_rows(r, f.best, A2_CAL_GROUP_FIT, true, stdout);
  a2_cal_print_summary(r, f.best, A2_CAL_GROUP_FIT, NULL, false, stdout);
  unused_rows(r, &f, A2_CAL_GROUP_HELD);
  unused_rows(r, &f, A2_CAL_GROUP_PREDICT);
  printf("\nfitted:\n");
  for (size_t k = 0; k < o->nkeys; k++) {
    char a[64], b[64];
    a2_cal_format_value(&o->keys[k], start->values[k], a, sizeof a);
    a2_cal_format_value(&o->keys[k], best->values[k], b, sizeof b);
    printf("  %s: %s -> %s\n", o->keys[k].path, a, b);
  }
  char *notes = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&notes, &len);
  if (m) {
    a2_cal_print_fit_notes(r, &f, m, "  - ");
    fclose(m);
    if (len) printf("notes:\n%s", notes);
    free(notes);
  }
  size_t within = a2_cal_rows_within(r, f.best);
  printf("%zu of %zu rows within their tolerance after the fit (%zu before)", within, n,
         a2_cal_rows_within(r, f.start));
  rc = o->out_path ? a2_cal_write_fitted(r, &f) : 0;
  if (!rc && o->out_path) printf("; wrote %s", o->out_path);
  putchar('\n');
  size_t wrong = trends(r, f.best, stdout);
  a2_cal_fit_free(&f);
  if (rc) return rc;
  return o->check && (within < n || wrong) ? A2_EXIT_FAIL : A2_EXIT_OK;
}

/* Mark the rows of each --holdout source held out; a source no row has is
 * an error (naming the sources there are), as is a fit with no row left. */
static int holdout(a2_cal_table *t, const a2_cal_opts *o) {
  for (size_t h = 0; h < o->nholdouts; h++) {
    const char *list = o->holdouts[h];
    for (const char *p = list;;) {
      size_t len = strcspn(p, ",");
      if (!len) return a2_cmd_usage_error("--holdout", "empty item in '%s'", list);
      size_t n = 0;
      for (size_t i = 0; i < t->nrows; i++)
        if (strlen(t->rows[i].source) == len && !strncmp(t->rows[i].source, p, len)) {
          t->rows[i].held_out = true;
          n++;
        }
      if (!n) {
        char known[512] = "";
        size_t at = 0;
        for (size_t i = 0; i < t->nrows && at + 1 < sizeof known; i++) {
          bool seen = false;
          for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(t->rows[j].source, t->rows[i].source);
          if (!seen)
            at += (size_t)snprintf(known + at, sizeof known - at, "%s%s", at ? ", " : "",
                                   t->rows[i].source);
        }
        return a2_cmd_usage_error("--holdout",
                                  "no row has source '%.*s'; the sources of these rows are: %s",
                                  (int)len, p, known);
      }
      if (!p[len]) break;
      p += len + 1;
    }
  }
  if (o->nkeys && !a2_cal_group_size(t, A2_CAL_GROUP_FIT))
    return a2_cmd_usage_error(o->nholdouts ? "--holdout" : "--fit",
                              "no row is left for the fit to use: it uses the rows of role fit "
                              "that --holdout does not hold out");
  return 0;
}

int a2_calibrate_main(int argc, char **argv) {
  a2_cal_opts o;
  int rc = a2_cal_parse(argc, argv, &o);
  if (rc) {
    a2_cal_opts_free(&o);
    return rc < 0 ? A2_EXIT_OK : rc;
  }
  a2_cal_table t;
  a2_err e = {0};
  if (a2_cal_read(o.csv_paths, o.ncsv, &t, &e)) {
    a2_cmd_error(&e);
    a2_cal_opts_free(&o);
    return a2_err_exit_code(e.code);
  }
  if ((rc = holdout(&t, &o))) {
    a2_cal_table_free(&t);
    a2_cal_opts_free(&o);
    return rc;
  }
  if (a2_procs_signals_install()) {
    fprintf(stderr, "a2a3sim: error: calibrate: cannot install signal handlers: %s\n",
            strerror(errno));
    a2_cal_table_free(&t);
    a2_cal_opts_free(&o);
    return A2_EXIT_INTERNAL;
  }
  a2_cal_runner r;
  if ((rc = a2_cal_runner_init(&r, &t, &o))) {
    a2_cal_runner_free(&r);
    a2_cal_table_free(&t);
    a2_cal_opts_free(&o);
    return rc;
  }
  uint64_t start[A2_CAL_MAX_KEYS] = {0};
  for (size_t k = 0; k < o.nkeys; k++) start[k] = o.keys[k].start;
  size_t at;
  rc = a2_cal_run(&r, 1, start, true, &at, NULL);
  if (!rc) rc = failed_rows(&r, at);
  if (!rc) rc = o.nkeys ? fit(&r) : no_fit(&r, at);
  fflush(stdout);
  a2_cal_runner_free(&r);
  a2_cal_table_free(&t);
  a2_cal_opts_free(&o);
  if (rc < 0) { /* interrupted: every child is reaped; die of the same signal */
    fprintf(stderr, "a2a3sim: calibrate: interrupted by signal %d; children stopped\n", -rc);
    a2_procs_reraise(-rc);
  }
  return rc;
}
