/* a2a3sim calibrate: running rows. A point (one value per fitted key) runs
 * its rows as children `a2a3sim run ... --json` (procs/, --jobs at once):
 * in a fit's search the rows the fit uses, at its start and end every row;
 * each row is run once at a point and kept, the points in the order they
 * were first asked for, so a search that comes back to a value costs
 * nothing and the results do not depend on which child finished first.
 * Rows with the same command (metrics of one run: a fused built-in's
 * time, compute_time and sequential_time) share one child. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include "calibrate/calibrate.h"
#include "common/units.h"
#include "procs/procs.h"

/* v in the decimal unit that puts it in [1, 1000), with at most 6 decimals
 * and no trailing zeros ("7.2757GB/s"); false when that does not parse back
 * to exactly v. */
static bool decimal(uint64_t v, a2_unit_kind kind, char *out, size_t n) {
  static const char *const units[3][5] = {{"ps", "ns", "us", "ms", "s"},
                                          {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"},
                                          {"Hz", "kHz", "MHz", "GHz", ""}};
  int row = kind == A2_UNIT_TIME ? 0 : kind == A2_UNIT_BANDWIDTH ? 1 : 2;
  int u = 0;
  double x = (double)v;
  while (u < 4 && units[row][u + 1][0] && x >= 1000) {
    x /= 1000;
    u++;
  }
  char buf[64];
  snprintf(buf, sizeof buf, "%.6f", x);
  size_t len = strlen(buf);
  while (len && buf[len - 1] == '0') len--;
  if (len && buf[len - 1] == '.') len--;
  buf[len] = '\0';
  snprintf(out, n, "%s%s", buf, units[row][u]);
  uint64_t back;
  return !a2_parse_quantity(out, kind, &back, NULL, 0) && back == v;
}

void a2_cal_format_value(const a2_cal_key *k, uint64_t v, char *out, size_t n) {
  a2_unit_kind kind = k->info.kind;
  if ((kind == A2_UNIT_TIME || kind == A2_UNIT_BANDWIDTH || kind == A2_UNIT_FREQUENCY) &&
      decimal(v, kind, out, n))
    return;
  char buf[64];
  a2_format_quantity(v, kind, buf, sizeof buf);
  size_t at = 0;
  for (const char *p = buf; *p && at + 1 < n; p++)
    if (*p != ' ') out[at++] = *p;
  out[at] = '\0';
}

void a2_cal_format_figure(const a2_cal_row *row, double value, char *out, size_t n) {
  snprintf(out, n, "%.5g %s", value / row->unit_scale, row->unit);
}

/* A growing argv. */
typedef struct {
  char **v;
  size_t n, cap;
  bool oom;
} args;

static void push(args *a, const char *s) {
  if (a->oom) return;
  if (a->n + 2 > a->cap) {
    size_t nc = a->cap ? 2 * a->cap : 32;
    char **p = realloc(a->v, nc * sizeof *p);
    if (!p) {
      a->oom = true;
      return;
    }
    a->v = p;
    a->cap = nc;
  }
  if (!(a->v[a->n] = a2_cal_strdup(s))) {
    a->oom = true;
    return;
  }
  a->v[++a->n] = NULL;
}

static void push2(args *a, const char *x, const char *y, const char *z) {
  size_t n = strlen(x) + strlen(y) + strlen(z) + 1;
  char *s = malloc(n);
  if (!s) {
    a->oom = true;
    return;
  }
  snprintf(s, n, "%s%s%s", x, y, z);
  push(a, s);
  free(s);
}

/* The --set of o->sets[i] names a fitted key (the fitted value replaces it). */
static bool set_is_fitted(const a2_cal_opts *o, const char *set) {
  size_t len = strcspn(set, "=");
  for (size_t k = 0; k < o->nkeys; k++)
    if (strlen(o->keys[k].path) == len && !strncmp(o->keys[k].path, set, len)) return true;
  return false;
}

char **a2_cal_row_argv(const a2_cal_opts *o, const a2_cal_row *row, const uint64_t *values,
                       bool json, const char *argv0) {
  args a = {0};
  push(&a, argv0);
  push(&a, "run");
  if (row->program_path) {
    push(&a, "--program");
    push(&a, row->program_path);
  } else {
    push(&a, "--algo");
    push(&a, row->program);
  }
  if (row->ranks) {
    push(&a, "--ranks");
    push(&a, row->ranks);
  }
  if (row->size && row->program_path) {
    push(&a, "--param");
    push2(&a, "size=", row->size, "");
  } else if (row->size) {
    push(&a, "--size");
    push(&a, row->size);
  }
  if (row->config_path || o->config_path) { /* the row's own config wins */
    push(&a, "--config");
    push(&a, row->config_path ? row->config_path : o->config_path);
  }
  for (size_t i = 0; i < o->nsets; i++) {
    if (set_is_fitted(o, o->sets[i])) continue;
    push(&a, "--set");
    push(&a, o->sets[i]);
  }
  for (size_t k = 0; k < o->nkeys; k++) {
    char v[64];
    a2_cal_format_value(&o->keys[k], values[k], v, sizeof v);
    push(&a, "--set");
    push2(&a, o->keys[k].path, "=", v);
  }
  for (size_t i = 0; i < row->nargs; i++) push(&a, row->args[i]);
  if (json) push(&a, "--json");
  if (a.oom) {
    if (a.v) a.v[a.n] = NULL;
    a2_procs_argv_free(a.v);
    return NULL;
  }
  return a.v;
}

static bool shell_safe(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          strchr("_./=:,@%+-", *s)))
      return false;
  return true;
}

char *a2_cal_row_command(const a2_cal_opts *o, const a2_cal_row *row, const uint64_t *values) {
  char **argv = a2_cal_row_argv(o, row, values, false, "a2a3sim");
  if (!argv) return NULL;
  size_t n = 1;
  for (char **p = argv; *p; p++) n += 4 * strlen(*p) + 3;
  char *out = malloc(n);
  if (out) {
    size_t at = 0;
    for (char **p = argv; *p; p++) {
      if (p != argv) out[at++] = ' ';
      if (shell_safe(*p)) {
        memcpy(out + at, *p, strlen(*p));
        at += strlen(*p);
        continue;
      }
      out[at++] = '\'';
      for (const char *c = *p; *c; c++) {
        if (*c == '\'') {
          memcpy(out + at, "'\\''", 4);
          at += 4;
        } else {
          out[at++] = *c;
        }
      }
      out[at++] = '\'';
    }
    out[at] = '\0';
  }
  a2_procs_argv_free(argv);
  return out;
}

static bool same_text(const char *a, const char *b) {
  return a == b || (a && b && !strcmp(a, b));
}

/* Do rows a and b run the same command at every point? */
static bool same_run(const a2_cal_row *a, const a2_cal_row *b) {
  if (!same_text(a->program_path ? a->program_path : a->program,
                 b->program_path ? b->program_path : b->program) ||
      (a->program_path == NULL) != (b->program_path == NULL) || !same_text(a->ranks, b->ranks) ||
      !same_text(a->config_path, b->config_path) || !same_text(a->size, b->size) ||
      a->nargs != b->nargs)
    return false;
  for (size_t i = 0; i < a->nargs; i++)
    if (strcmp(a->args[i], b->args[i])) return false;
  return true;
}

int a2_cal_runner_init(a2_cal_runner *r, const a2_cal_table *t, const a2_cal_opts *o) {
  memset(r, 0, sizeof *r);
  r->t = t;
  r->o = o;
  a2_procs_self_path(r->self, sizeof r->self);
  if (!(r->same = calloc(t->nrows + 1, sizeof *r->same))) {
    fprintf(stderr, "a2a3sim: error: calibrate: out of memory\n");
    return A2_EXIT_INTERNAL;
  }
  for (size_t i = 0; i < t->nrows; i++) {
    r->same[i] = i;
    for (size_t j = 0; j < i; j++)
      if (r->same[j] == j && same_run(&t->rows[i], &t->rows[j])) {
        r->same[i] = j;
        break;
      }
  }
  return 0;
}

void a2_cal_runner_free(a2_cal_runner *r) {
  for (size_t p = 0; p < r->npoints; p++) {
    for (size_t i = 0; i < r->t->nrows; i++) free(r->points[p].sims[i].error);
    free(r->points[p].sims);
  }
  free(r->points);
  free(r->same);
  r->points = NULL;
  r->same = NULL;
  r->npoints = r->cap = 0;
}

/* ---- one child's result ---- */

/* s->error = what, and ": detail" when there is one. */
static void set_error(a2_cal_sim *s, const char *what, const char *detail) {
  size_t n = strlen(what) + (detail ? strlen(detail) + 2 : 0) + 1;
  free(s->error);
  if ((s->error = malloc(n)))
    snprintf(s->error, n, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
  s->ok = false;
}

static yajl_val get(yajl_val root, const char *name) {
  const char *path[2] = {name, NULL};
  return yajl_tree_get(root, path, yajl_t_any);
}

static void fill(a2_cal_sim *s, const a2_cal_row *row, int status, const a2_procs_buf *out,
                 const a2_procs_buf *err) {
  memset(s, 0, sizeof *s);
  s->ran = true;
  s->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  char *first = a2_procs_buf_first_line(err);
  /* The child's error line without its "a2a3sim: ": it is quoted in ours. */
  const char *line = first && !strncmp(first, "a2a3sim: ", 9) ? first + 9 : first;
  if (s->exit_code != A2_EXIT_OK && s->exit_code != A2_EXIT_FAIL) {
    if (WIFSIGNALED(status))
      set_error(s, "the run was killed by a signal", line);
    else if (s->exit_code == A2_EXIT_USAGE && line)
      set_error(s, line, NULL);
    else
      set_error(s, "the run ended with an internal error", line);
    free(first);
    return;
  }
  char why[256] = "";
  yajl_val root = out->len ? yajl_tree_parse(out->data, why, sizeof why) : NULL;
  yajl_val st = root ? get(root, "status") : NULL;
  const char *status_text = YAJL_IS_STRING(st) ? st->u.string : NULL;
  if (!status_text) {
    set_error(s, "the run printed no readable --json result", line);
  } else if (strcmp(status_text, "OK")) {
    char what[96];
    snprintf(what, sizeof what, "the run's status is %.40s (run the command to see why)",
             status_text);
    set_error(s, what, NULL);
  } else {
    const char *key = row->metric == A2_CAL_TIME           ? "time_ps"
                      : row->metric == A2_CAL_ALGBW        ? "algbw_gbps"
                      : row->metric == A2_CAL_BUSBW        ? "busbw_gbps"
                      : row->metric == A2_CAL_COMPUTE_TIME ? "overlap.compute_only_ps"
                                                           : "overlap.sequential_ps";
    yajl_val v;
    if (!strncmp(key, "overlap.", 8)) { /* the overlap card (fused built-ins) */
      const char *path[3] = {"overlap", key + 8, NULL};
      v = yajl_tree_get(root, path, yajl_t_any);
    } else {
      v = get(root, key);
    }
    double scale = a2_cal_metric_is_time(row->metric) ? 1 : 1e9; /* ps; GB/s -> B/s */
    if (!YAJL_IS_NUMBER(v) || strlen(YAJL_GET_NUMBER(v)) >= sizeof s->text) {
      set_error(s, "the run reports no figure", key);
    } else if (YAJL_GET_DOUBLE(v) <= 0 || !isfinite(YAJL_GET_DOUBLE(v))) {
      set_error(s,
                "the run reports 0 (a program file without a golden has no size for a bandwidth)",
                key);
    } else {
      snprintf(s->text, sizeof s->text, "%s", YAJL_GET_NUMBER(v));
      s->value = YAJL_GET_DOUBLE(v) * scale;
      s->ok = true;
    }
  }
  yajl_tree_free(root);
  free(first);
}

/* ---- running points ---- */

/* The runs of one call: (point, row) pairs. */
typedef struct {
  a2_cal_runner *r;
  const size_t *point, *row;
} batch;

static char **argv_of(size_t job, void *ctx) {
  batch *b = ctx;
  const a2_cal_point *p = &b->r->points[b->point[job]];
  return a2_cal_row_argv(b->r->o, &b->r->t->rows[b->row[job]], p->values, true, "a2a3sim");
}

/* The child's result for every row that runs its command. */
static void done(size_t job, int status, const a2_procs_buf *out, const a2_procs_buf *err,
                 void *ctx) {
  batch *b = ctx;
  a2_cal_point *p = &b->r->points[b->point[job]];
  size_t row = b->row[job];
  for (size_t i = row; i < b->r->t->nrows; i++)
    if (b->r->same[i] == row) fill(&p->sims[i], &b->r->t->rows[i], status, out, err);
}

bool a2_cal_row_used(const a2_cal_runner *r, size_t i) {
  return a2_cal_row_group(&r->t->rows[i]) == A2_CAL_GROUP_FIT;
}

static double residual(const a2_cal_runner *r, const a2_cal_point *p) {
  double sum = 0;
  for (size_t i = 0; i < r->t->nrows; i++) {
    if (!a2_cal_row_used(r, i)) continue;
    if (!p->sims[i].ok) return INFINITY;
    double l = log(p->sims[i].value / r->t->rows[i].measured);
    sum += l * l;
  }
  return sum;
}

size_t a2_cal_find(const a2_cal_runner *r, const uint64_t *values) {
  for (size_t p = 0; p < r->npoints; p++)
    if (!memcmp(r->points[p].values, values, r->o->nkeys * sizeof *values)) return p;
  return SIZE_MAX;
}

int a2_cal_run(a2_cal_runner *r, size_t n, const uint64_t *values, bool all, size_t *idx,
               size_t *fresh) {
  size_t nrows = r->t->nrows, nk = r->o->nkeys, nfresh = 0, njobs = 0;
  size_t *list = calloc(n ? n : 1, sizeof *list);
  size_t *jpoint = calloc(n * nrows + 1, sizeof *jpoint),
         *jrow = calloc(n * nrows + 1, sizeof *jrow);
  if (!list || !jpoint || !jrow) {
    free(list);
    free(jpoint);
    free(jrow);
    fprintf(stderr, "a2a3sim: error: calibrate: out of memory\n");
    return A2_EXIT_INTERNAL;
  }
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    const uint64_t *v = values + i * A2_CAL_MAX_KEYS;
    size_t at = a2_cal_find(r, v);
    if (at == SIZE_MAX) {
      if (r->npoints == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 64;
        a2_cal_point *p = realloc(r->points, nc * sizeof *p);
        if (!p) {
          rc = A2_EXIT_INTERNAL;
          break;
        }
        r->points = p;
        r->cap = nc;
      }
      a2_cal_point *p = &r->points[r->npoints];
      memset(p, 0, sizeof *p);
      memcpy(p->values, v, nk * sizeof *v);
      if (!(p->sims = calloc(nrows, sizeof *p->sims))) {
        rc = A2_EXIT_INTERNAL;
        break;
      }
      at = r->npoints++;
      list[nfresh++] = at;
    }
    idx[i] = at;
    bool twice = false; /* a point asked for twice in one call runs once */
    for (size_t q = 0; q < i && !twice; q++) twice = idx[q] == at;
    if (twice) continue;
    const a2_cal_point *p = &r->points[at];
    for (size_t j = 0; j < nrows; j++) { /* its rows not run yet, each command once */
      size_t c = r->same[j];
      if (p->sims[j].ran || !(all || a2_cal_row_used(r, j))) continue;
      bool queued = false;
      for (size_t q = njobs; q-- > 0 && jpoint[q] == at && !queued;) queued = jrow[q] == c;
      if (queued) continue;
      jpoint[njobs] = at;
      jrow[njobs++] = c;
    }
  }
  if (rc) {
    fprintf(stderr, "a2a3sim: error: calibrate: out of memory\n");
  } else {
    if (fresh) *fresh = nfresh;
    batch b = {r, jpoint, jrow};
    a2_procs_pool pool = {r->self, njobs, r->o->jobs, argv_of, done, NULL, &b, "calibrate", "run"};
    rc = a2_procs_pool_run(&pool);
  }
  if (rc) { /* unfinished: forget the fresh points, their rows are incomplete */
    for (size_t i = nfresh; i-- > 0;) {
      a2_cal_point *p = &r->points[list[i]];
      for (size_t j = 0; j < nrows; j++) free(p->sims[j].error);
      free(p->sims);
      r->npoints--;
    }
  } else {
    for (size_t i = 0; i < n; i++) r->points[idx[i]].residual = residual(r, &r->points[idx[i]]);
  }
  free(list);
  free(jpoint);
  free(jrow);
  return rc;
}
