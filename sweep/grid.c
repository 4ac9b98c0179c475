/* a2a3sim sweep: numbering of the grid's points, the `run` command line of
 * one point, and the labels the CSV, plots and crossovers share. */
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"

char *a2_sweep_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

bool a2_sweep_path(const a2_sweep *s, const char *name, char *out, size_t n) {
  int len = snprintf(out, n, "%s/%s", s->out_dir, name);
  return len >= 0 && (size_t)len < n;
}

a2_sweep_coord a2_sweep_coord_of(const a2_sweep *s, size_t point) {
  a2_sweep_coord c;
  c.combo = point % s->ncombos;
  point /= s->ncombos;
  c.size = point % s->nsizes;
  point /= s->nsizes;
  c.rank = point % s->nranks;
  c.algo = point / s->nranks;
  return c;
}

size_t a2_sweep_point_of(const a2_sweep *s, a2_sweep_coord c) {
  return ((c.algo * s->nranks + c.rank) * s->nsizes + c.size) * s->ncombos + c.combo;
}

const char *a2_sweep_set_value(const a2_sweep *s, size_t set, size_t combo) {
  const a2_sweep_set *st = &s->sets[set];
  if (st->nvalues == 1) return st->values[0];
  /* Mixed radix over the axes, the first axis most significant. */
  for (size_t a = s->naxes; a-- > 0;) {
    size_t nv = s->sets[s->axes[a]].nvalues;
    if (s->axes[a] == set) return st->values[combo % nv];
    combo /= nv;
  }
  return st->values[0]; /* not reached: every multi-value set is an axis */
}

char **a2_sweep_point_argv(const a2_sweep *s, size_t point, const char *argv0) {
  a2_sweep_coord c = a2_sweep_coord_of(s, point);
  size_t n = 0, cap = 13 + 2 * s->nsets;
  char **argv = calloc(cap + 1, sizeof *argv);
  if (!argv) return NULL;
  char num[32];
  const char *fixed[] = {argv0, "run", "--algo", s->algos[c.algo], "--ranks"};
  for (size_t i = 0; i < 5; i++) argv[n++] = a2_sweep_strdup(fixed[i]);
  snprintf(num, sizeof num, "%u", s->ranks[c.rank]);
  argv[n++] = a2_sweep_strdup(num);
  if (!s->no_size) {
    argv[n++] = a2_sweep_strdup("--size");
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->sizes[c.size]);
    argv[n++] = a2_sweep_strdup(num);
  }
  if (s->config_path) {
    argv[n++] = a2_sweep_strdup("--config");
    argv[n++] = a2_sweep_strdup(s->config_path);
  }
  for (size_t i = 0; i < s->nsets; i++) {
    const char *v = a2_sweep_set_value(s, i, c.combo);
    if (s->sets[i].flag) { /* a run flag: --m 5504 */
      argv[n++] = a2_sweep_strdup(s->sets[i].flag);
      argv[n++] = a2_sweep_strdup(v);
      continue;
    }
    size_t len = strlen(s->sets[i].key) + strlen(v) + 2;
    argv[n++] = a2_sweep_strdup("--set");
    if ((argv[n] = malloc(len))) snprintf(argv[n], len, "%s=%s", s->sets[i].key, v);
    n++;
  }
  if (s->no_data) argv[n++] = a2_sweep_strdup("--no-data");
  argv[n++] = a2_sweep_strdup("--json");
  for (size_t i = 0; i < n; i++)
    if (!argv[i]) {
      for (size_t j = 0; j < n; j++) free(argv[j]);
      free(argv);
      return NULL;
    }
  return argv;
}

static void append(char *out, size_t n, const char *s) {
  size_t len = strlen(out);
  if (len + 1 < n) snprintf(out + len, n - len, "%s", s);
}

void a2_sweep_group_label(const a2_sweep *s, size_t rank, size_t combo, char *out, size_t n) {
  snprintf(out, n, "P=%u", s->ranks[rank]);
  for (size_t a = 0; a < s->naxes; a++) {
    append(out, n, ", ");
    append(out, n, s->sets[s->axes[a]].key);
    append(out, n, "=");
    append(out, n, a2_sweep_set_value(s, s->axes[a], combo));
  }
}

void a2_sweep_config_label(const a2_sweep *s, char *out, size_t n) {
  snprintf(out, n, "%s", s->config_path ? s->config_path : "built-in " A2_DEFAULT_CONFIG);
  for (size_t i = 0; i < s->nsets; i++) {
    if (s->sets[i].nvalues != 1) continue;
    append(out, n, ", ");
    append(out, n, s->sets[i].key);
    append(out, n, "=");
    append(out, n, s->sets[i].values[0]);
  }
}
