/* a2a3sim calibrate: running rows. A point (one value per fitted key) runs
 * every row as a child `a2a3sim run ... --json` (procs/, --jobs at once);
 * each point is run once and kept, in the order it was first asked for, so
 * a search that comes back to a value costs nothing and the results do
 * not depend on which child finished first. */
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
  if (row->trace_path) {
    push(&a, "--program");
    push(&a, row->trace_path);
  } else {
    push(&a, "--algo");
    push(&a, row->kernel);
  }
  if (row->ranks) {
    push(&a, "--ranks");
    push(&a, row->ranks);
  }
  if (row->size && row->trace_path) {
    push(&a, "--param");
    push2(&a, "size=", row->size, "");
  } else if (row->size) {
    push(&a, "--size");
    push(&a, row->size);
  }
  if (o->config_path) {
    push(&a, "--config");
    push(&a, o->config_path);
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

void a2_cal_runner_init(a2_cal_runner *r, const a2_cal_table *t, const a2_cal_opts *o) {
  memset(r, 0, sizeof *r);
  r->t = t;
  r->o = o;
  a2_procs_self_path(r->self, sizeof r->self);
}

void a2_cal_runner_free(a2_cal_runner *r) {
  for (size_t p = 0; p < r->npoints; p++) {
    for (size_t i = 0; i < r->t->nrows; i++) free(r->points[p].sims[i].error);
    free(r->points[p].sims);
  }
  free(r->points);
  r->points = NULL;
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

typedef struct {
  a2_cal_runner *r;
  const size_t *fresh; /* point indices to run */
} batch;

static char **argv_of(size_t job, void *ctx) {
  batch *b = ctx;
  size_t nrows = b->r->t->nrows;
  const a2_cal_point *p = &b->r->points[b->fresh[job / nrows]];
  return a2_cal_row_argv(b->r->o, &b->r->t->rows[job % nrows], p->values, true, "a2a3sim");
}

static void done(size_t job, int status, const a2_procs_buf *out, const a2_procs_buf *err,
                 void *ctx) {
  batch *b = ctx;
  size_t nrows = b->r->t->nrows;
  a2_cal_point *p = &b->r->points[b->fresh[job / nrows]];
  fill(&p->sims[job % nrows], &b->r->t->rows[job % nrows], status, out, err);
}

static double residual(const a2_cal_table *t, const a2_cal_point *p) {
  double sum = 0;
  for (size_t i = 0; i < t->nrows; i++) {
    if (!p->sims[i].ok) return INFINITY;
    double l = log(p->sims[i].value / t->rows[i].measured);
    sum += l * l;
  }
  return sum;
}

size_t a2_cal_find(const a2_cal_runner *r, const uint64_t *values) {
  for (size_t p = 0; p < r->npoints; p++)
    if (!memcmp(r->points[p].values, values, r->o->nkeys * sizeof *values)) return p;
  return SIZE_MAX;
}

int a2_cal_run(a2_cal_runner *r, size_t n, const uint64_t *values, size_t *idx, size_t *fresh) {
  size_t nrows = r->t->nrows, nk = r->o->nkeys, nfresh = 0;
  size_t *list = calloc(n ? n : 1, sizeof *list);
  if (!list) {
    fprintf(stderr, "a2a3sim: error: calibrate: out of memory\n");
    return A2_EXIT_INTERNAL;
  }
  for (size_t i = 0; i < n; i++) {
    const uint64_t *v = values + i * A2_CAL_MAX_KEYS;
    size_t at = a2_cal_find(r, v);
    if (at == SIZE_MAX) {
      if (r->npoints == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 64;
        a2_cal_point *p = realloc(r->points, nc * sizeof *p);
        if (!p) {
          free(list);
          fprintf(stderr, "a2a3sim: error: calibrate: out of memory\n");
          return A2_EXIT_INTERNAL;
        }
        r->points = p;
        r->cap = nc;
      }
      a2_cal_point *p = &r->points[r->npoints];
      memset(p, 0, sizeof *p);
      memcpy(p->values, v, nk * sizeof *v);
      if (!(p->sims = calloc(nrows, sizeof *p->sims))) {
        free(list);
        fprintf(stderr, "a2a3sim: error: calibrate: out of memory\n");
        return A2_EXIT_INTERNAL;
      }
      at = r->npoints++;
      list[nfresh++] = at;
    }
    idx[i] = at;
  }
  if (fresh) *fresh = nfresh;
  batch b = {r, list};
  a2_procs_pool pool = {r->self, nfresh * nrows, r->o->jobs, argv_of, done, NULL,
                        &b,      "calibrate",    "run"};
  int rc = a2_procs_pool_run(&pool);
  for (size_t i = 0; i < nfresh; i++)
    r->points[list[i]].residual = residual(r->t, &r->points[list[i]]);
  if (rc) { /* unfinished: forget the fresh points, their rows are incomplete */
    for (size_t i = nfresh; i-- > 0;) {
      a2_cal_point *p = &r->points[list[i]];
      for (size_t j = 0; j < nrows; j++) free(p->sims[j].error);
      free(p->sims);
      r->npoints--;
    }
  }
  free(list);
  return rc;
}
