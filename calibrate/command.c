/* a2a3sim calibrate: the command. Flags and the CSV are checked first; then
 * every row runs at the start (the config, --set, the fitted keys' start
 * values). Without --fit: the rows table, and with --check exit 1 when a
 * row is outside its tolerance. With --fit: the search (progress on
 * stderr), the rows before and after, the fitted values, the notes, the
 * fitted YAML. A row whose run fails at the start is an error naming the
 * row's line. Killed by the signal that interrupted it, after reaping
 * every child. */
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
    fprintf(stderr, "a2a3sim: %s:%d: error: row %s: %s\n  the row's command: %s\n", r->t->path,
            row->line, row->id, s->error ? s->error : "no result", cmd ? cmd : "?");
    free(cmd);
    int code = s->exit_code == A2_EXIT_OK || s->exit_code == A2_EXIT_FAIL ? A2_EXIT_FAIL
               : s->exit_code == A2_EXIT_USAGE                            ? A2_EXIT_USAGE
                                                                          : A2_EXIT_INTERNAL;
    if (code > rc) rc = code; /* the worst: FAIL < refused < internal */
  }
  return rc;
}

static void config_line(const a2_cal_opts *o, FILE *out) {
  fprintf(out, "config: %s", o->config_path ? o->config_path : "built-in " A2_DEFAULT_CONFIG);
  for (size_t i = 0; i < o->nsets; i++) fprintf(out, ", --set %s", o->sets[i]);
  fputc('\n', out);
}

static int no_fit(a2_cal_runner *r, size_t start) {
  const a2_cal_opts *o = r->o;
  size_t within = a2_cal_rows_within(r, start), n = r->t->nrows;
  if (o->markdown) {
    a2_cal_print_markdown(r, start, stdout);
  } else {
    printf("%s: %zu row%s; ", r->t->path, n, n == 1 ? "" : "s");
    config_line(o, stdout);
    a2_cal_print_rows(r, start, false, stdout);
    printf("%zu of %zu rows within their tolerance\n", within, n);
  }
  return o->check && within < n ? A2_EXIT_FAIL : A2_EXIT_OK;
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
  printf("%s: %zu row%s; ", r->t->path, n, n == 1 ? "" : "s");
  config_line(o, stdout);
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
  printf("\nbefore the fit: residual %.6g (sum over rows of ln(simulated / measured)^2)\n",
         start->residual);
  a2_cal_print_rows(r, f.start, true, stdout);
  printf("\nafter the fit: residual %.6g; %zu points, %u step%s, %s\n", best->residual, f.evals,
         f.steps, f.steps == 1 ? "" : "s", f.converged ? "converged" : "stopped by --max-evals");
  a2_cal_print_rows(r, f.best, true, stdout);
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
  a2_cal_fit_free(&f);
  if (rc) return rc;
  return o->check && within < n ? A2_EXIT_FAIL : A2_EXIT_OK;
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
  if (a2_cal_read(o.csv_path, &t, &e)) {
    a2_cmd_error(&e);
    a2_cal_opts_free(&o);
    return a2_err_exit_code(e.code);
  }
  if (a2_procs_signals_install()) {
    fprintf(stderr, "a2a3sim: error: calibrate: cannot install signal handlers: %s\n",
            strerror(errno));
    a2_cal_table_free(&t);
    a2_cal_opts_free(&o);
    return A2_EXIT_INTERNAL;
  }
  a2_cal_runner r;
  a2_cal_runner_init(&r, &t, &o);
  uint64_t start[A2_CAL_MAX_KEYS] = {0};
  for (size_t k = 0; k < o.nkeys; k++) start[k] = o.keys[k].start;
  size_t at;
  rc = a2_cal_run(&r, 1, start, &at, NULL);
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
