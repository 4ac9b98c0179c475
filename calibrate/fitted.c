/* a2a3sim calibrate: the fitted YAML. The config every row ran with at the
 * fit - the base config (--config or the built-in default), --set, the
 * fitted values - resolved, every key, as `a2a3sim config check` prints it
 * (so it loads back to exactly that config), the fitted keys marked, after
 * a comment naming the data it was fitted to. Written to a temporary file
 * in the same folder and renamed over OUT: a reader never sees half a file.
 * Same inputs, same bytes (no date). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "common/outfile.h"

/* The fitted key on this line of a2_config_print's output, or -1. The
 * output nests two spaces a level: "section:" opens one, "name: value" is
 * a key. */
static int key_of_line(const a2_cal_opts *o, const char *line, char seg[8][64]) {
  size_t ind = 0;
  while (line[ind] == ' ') ind++;
  size_t depth = ind / 2, n = strcspn(line + ind, ":");
  if (depth >= 8 || n >= 64) return -1;
  snprintf(seg[depth], 64, "%.*s", (int)n, line + ind);
  if (!line[ind + n + 1] || line[ind + n + 1] == '\n') return -1; /* a section */
  char path[600] = "";
  for (size_t d = 0; d <= depth; d++) {
    strcat(path, seg[d]);
    if (d < depth) strcat(path, ".");
  }
  for (size_t k = 0; k < o->nkeys; k++)
    if (!strcmp(o->keys[k].path, path)) return (int)k;
  return -1;
}

/* "#   id, id, ..." wrapped at 90 columns: the rows of group g. */
static void id_list(const a2_cal_runner *r, a2_cal_group g, FILE *out) {
  size_t col = 2, left = a2_cal_group_size(r->t, g);
  fprintf(out, "#  ");
  for (size_t i = 0; i < r->t->nrows; i++) {
    if (a2_cal_row_group(&r->t->rows[i]) != g) continue;
    char id[200];
    a2_cal_row_name(r->t, i, id, sizeof id);
    if (col + strlen(id) + 2 > 90) {
      fprintf(out, "\n#  ");
      col = 2;
    }
    fprintf(out, " %s%s", id, --left ? "," : "\n");
    col += strlen(id) + 2;
  }
}

static void header(const a2_cal_runner *r, const a2_cal_fit *f, FILE *out) {
  const a2_cal_opts *o = r->o;
  const a2_cal_point *start = &r->points[f->start], *best = &r->points[f->best];
  size_t used = a2_cal_group_size(r->t, A2_CAL_GROUP_FIT);
  fprintf(out, "# Fitted by `a2a3sim calibrate` to ");
  for (size_t i = 0; i < r->t->npaths; i++) fprintf(out, "%s%s", i ? ", " : "", r->t->paths[i]);
  fprintf(out, ", %zu row%s:\n", used, used == 1 ? "" : "s");
  id_list(r, A2_CAL_GROUP_FIT, out);
  if (a2_cal_group_size(r->t, A2_CAL_GROUP_HELD)) {
    fprintf(out, "# Held out (--holdout), not used by the fit:\n");
    id_list(r, A2_CAL_GROUP_HELD, out);
  }
  if (a2_cal_group_size(r->t, A2_CAL_GROUP_PREDICT)) {
    fprintf(out, "# Predicted (role predict), not used by the fit:\n");
    id_list(r, A2_CAL_GROUP_PREDICT, out);
  }
  fprintf(out, "# Base config: %s",
          o->config_path ? o->config_path : "built-in " A2_DEFAULT_CONFIG);
  for (size_t i = 0; i < o->nsets; i++) fprintf(out, ", --set %s", o->sets[i]);
  fprintf(out, "\n# Fitted keys (start -> fitted, search range):\n");
  for (size_t k = 0; k < o->nkeys; k++) {
    char a[64], b[64], lo[64], hi[64];
    const a2_cal_key *key = &o->keys[k];
    a2_cal_format_value(key, start->values[k], a, sizeof a);
    a2_cal_format_value(key, best->values[k], b, sizeof b);
    a2_cal_format_value(key, key->lo, lo, sizeof lo);
    a2_cal_format_value(key, key->hi, hi, sizeof hi);
    fprintf(out, "#   %s: %s -> %s (%s..%s)\n", key->path, a, b, lo, hi);
  }
  fprintf(out,
          "# Residual, the sum over the fit's rows of ln(simulated / measured)^2: %.6g at the "
          "start, %.6g fitted;\n# %zu of %zu rows within their tolerance (%zu at the start); %zu "
          "points in %u "
          "step%s%s.\n",
          start->residual, best->residual, a2_cal_rows_within(r, f->best), r->t->nrows,
          a2_cal_rows_within(r, f->start), f->evals, f->steps, f->steps == 1 ? "" : "s",
          f->converged ? ", converged" : ", stopped by --max-evals");
  char *notes = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&notes, &len);
  if (m) {
    a2_cal_print_fit_notes(r, f, m, "#   - ");
    fclose(m);
    if (len) fprintf(out, "# Notes:\n%s", notes);
    free(notes);
  }
  fprintf(out,
          "# Every key resolved, as `a2a3sim config check` prints it; fitted keys are marked.\n");
}

static int write_all(const a2_cal_runner *r, const a2_cal_fit *f, FILE *out) {
  header(r, f, out);
  a2_config cfg = r->o->base;
  const a2_cal_point *best = &r->points[f->best];
  for (size_t k = 0; k < r->o->nkeys; k++) {
    char v[64];
    a2_err e = {0};
    a2_cal_format_value(&r->o->keys[k], best->values[k], v, sizeof v);
    if (a2_config_set(&cfg, r->o->keys[k].path, v, &e)) return -1; /* not reached: in range */
  }
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return -1;
  a2_config_print(&cfg, m);
  if (fclose(m)) {
    free(text);
    return -1;
  }
  char seg[8][64] = {{0}};
  for (char *line = text; *line;) {
    char *nl = strchr(line, '\n');
    size_t n = nl ? (size_t)(nl - line) : strlen(line);
    int k = key_of_line(r->o, line, seg);
    fprintf(out, "%.*s%s\n", (int)n, line, k >= 0 ? "  # fitted" : "");
    line += n + (nl ? 1 : 0);
  }
  free(text);
  return ferror(out) ? -1 : 0;
}

int a2_cal_write_fitted(const a2_cal_runner *r, const a2_cal_fit *f) {
  a2_outfile *o;
  a2_err e = {0};
  if (a2_outfile_open(r->o->out_path, "the fitted config", &o, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  if (write_all(r, f, a2_outfile_stream(o))) a2_outfile_fail(o, errno);
  if (a2_outfile_commit(o, &e)) { /* a temporary renamed when complete: no partial file */
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  return 0;
}
