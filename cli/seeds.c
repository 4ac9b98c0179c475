/* --seeds K: the same run under K seeds (seed..seed+K-1), one child process
 * each (a process runs one simulation), and the spread of their times. A
 * seed sets the input pattern and the jitter (--jitter). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "procs/procs.h"

typedef struct {
  a2_run_opts *o;
  double t0;
  uint32_t seed;
} seed_args;

static int seed_child(void *ctx, void *out) {
  seed_args *a = ctx;
  int null = open("/dev/null", O_WRONLY); /* the run's own report is not printed: the spread is */
  if (null >= 0) dup2(null, STDOUT_FILENO);
  a->o->seed = a->seed;
  a->o->faults.seed = a->seed;
  return a2_run_once(a->o, a->t0, out);
}

/* One run with seed `seed` in a child; its simulated time (ps) through a
 * pipe, its exit code as the child's. Returns the exit code (3 when the
 * child could not be run). */
static int run_child(a2_run_opts *o, double t0, uint32_t seed, uint64_t *time_ps) {
  seed_args a = {o, t0, seed};
  *time_ps = 0;
  int rc = a2_procs_call(seed_child, &a, time_ps, sizeof *time_ps);
  return rc < 0 ? A2_EXIT_INTERNAL : rc;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Fixed formats keep the output byte-identical across runs and machines. */
static void num(yajl_gen g, const char *k, double v) {
  char b[64];
  int n = snprintf(b, sizeof b, v == (double)(uint64_t)v && v < 1e15 ? "%.0f" : "%.6f", v);
  yajl_gen_string(g, (const unsigned char *)k, strlen(k));
  yajl_gen_number(g, b, (size_t)n);
}

int a2_run_seeds(a2_run_opts *o, double t0) {
  uint32_t K = o->seeds, s0 = o->seed;
  uint64_t *t = calloc(K, sizeof *t), *sorted = calloc(K, sizeof *sorted);
  if (!t || !sorted) {
    free(t);
    free(sorted);
    return a2_cmd_oom_error("--seeds", "out of memory for %u runs", K);
  }
  int worst = A2_EXIT_OK;
  for (uint32_t i = 0; i < K; i++) {
    int rc = run_child(o, t0, s0 + i, &t[i]);
    if (rc != A2_EXIT_OK) {
      fprintf(stderr, "a2a3sim: --seeds: the run with seed %u exited %d\n", s0 + i, rc);
      if (rc > worst) worst = rc;
      if (rc == A2_EXIT_USAGE) break; /* the same for every seed */
    }
  }
  if (worst != A2_EXIT_USAGE) {
    memcpy(sorted, t, K * sizeof *t);
    qsort(sorted, K, sizeof *sorted, cmp_u64);
    double lo = (double)sorted[0] / 1e6, hi = (double)sorted[K - 1] / 1e6;
    double med = K % 2 ? (double)sorted[K / 2] / 1e6
                       : ((double)sorted[K / 2 - 1] + (double)sorted[K / 2]) / 2e6;
    if (o->json) {
      yajl_gen g = yajl_gen_alloc(NULL);
      yajl_gen_config(g, yajl_gen_beautify, 0);
      yajl_gen_map_open(g);
      yajl_gen_string(g, (const unsigned char *)"seeds", 5);
      yajl_gen_array_open(g);
      for (uint32_t i = 0; i < K; i++) {
        yajl_gen_map_open(g);
        num(g, "seed", s0 + i);
        num(g, "time_us", (double)t[i] / 1e6);
        yajl_gen_map_close(g);
      }
      yajl_gen_array_close(g);
      num(g, "jitter_us", (double)o->faults.jitter_ps / 1e6);
      num(g, "time_min_us", lo);
      num(g, "time_median_us", med);
      num(g, "time_max_us", hi);
      yajl_gen_map_close(g);
      a2_json_finish(g, stdout, true);
    } else {
      for (uint32_t i = 0; i < K; i++) printf("seed %u: %.3f us\n", s0 + i, (double)t[i] / 1e6);
      printf(
          "seeds %u..%u (%u runs, jitter %.3f us): time min %.3f us, median %.3f us, max "
          "%.3f us (spread %.2f %% of the median)\n",
          s0, s0 + K - 1, K, (double)o->faults.jitter_ps / 1e6, lo, med, hi,
          med > 0 ? (hi - lo) / med * 100 : 0.0);
    }
  }
  free(t);
  free(sorted);
  return worst;
}
