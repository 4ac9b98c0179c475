/* The event kernel alone: N processes, each re-waking itself 1-7 ps later
 * (process i every 1 + i % 7 ps, so ~N/7 processes share each time step),
 * until `total` activations. Every activation is a SystemC method process
 * activation through the shim (kernel.h). Prints activations per second, to
 * compare with the figures in docs/benchmarks.md. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kernel/kernel.h"

static uint64_t budget;

typedef struct {
  a2k_proc p;
  uint32_t step;
} proc;

static void run(void *ctx) {
  proc *p = ctx;
  if (budget == 0) return;
  budget--;
  a2k_wake_at(p->p, a2k_now_ps() + p->step);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: kernel_bench PROCESSES ACTIVATIONS\n");
    return 2;
  }
  uint32_t n = (uint32_t)strtoul(argv[1], NULL, 10);
  budget = strtoull(argv[2], NULL, 10);
  a2_err e;
  if (!n || a2k_init(&e)) return 3;
  proc *ps = calloc(n, sizeof *ps);
  for (uint32_t i = 0; i < n; i++) {
    ps[i].step = 1 + i % 7; /* spread wake-ups over several time steps */
    if (a2k_proc_create("p", run, &ps[i], &ps[i].p, &e)) return 3;
  }
  for (uint32_t i = 0; i < n; i++) a2k_wake_at(ps[i].p, 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  a2k_stop why;
  if (a2k_run(UINT64_MAX, &why, &e)) return 3;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("processes=%u activations=%llu wall_s=%.3f activations_per_s=%.0f\n", n,
         (unsigned long long)a2k_activations(), s, (double)a2k_activations() / s);
  free(ps);
  return 0;
}
