/* a2a3sim sweep: the points as child processes. Each point is this same
 * binary running `run ... --json` (procs/: a pool of at most --jobs at
 * once, Ctrl-C stops and reaps them); its result goes to rows[point]. */
#include <stdlib.h>
#include <unistd.h>

#include "sweep/sweep.h"

typedef struct {
  const a2_sweep *s;
  a2_sweep_row *rows;
  size_t first, stride, done;
  bool tty;
} points;

static size_t point_of(const points *p, size_t job) {
  return p->first + job * p->stride;
}

static char **argv_of(size_t job, void *ctx) {
  points *p = ctx;
  return a2_sweep_point_argv(p->s, point_of(p, job), "a2a3sim");
}

static void done(size_t job, int status, const a2_procs_buf *out, const a2_procs_buf *err,
                 void *ctx) {
  points *p = ctx;
  a2_sweep_row_fill(&p->rows[point_of(p, job)], status, out, err);
}

static void progress(size_t done, size_t total, void *ctx) {
  points *p = ctx;
  p->done = done;
  if (!p->tty) return;
  enum { W = 30 };
  char bar[W + 1];
  size_t fill = total ? done * W / total : W;
  for (size_t i = 0; i < W; i++) bar[i] = i < fill ? '#' : '.';
  bar[W] = '\0';
  fprintf(stderr, "\r[%s] %zu/%zu points", bar, done, total);
  if (done == total) fputc('\n', stderr);
  fflush(stderr);
}

int a2_sweep_run_points(const a2_sweep *s, a2_sweep_row *rows, size_t first, size_t stride) {
  char self[4096];
  a2_procs_self_path(self, sizeof self);
  size_t mine = first < s->npoints ? (s->npoints - first + stride - 1) / stride : 0;
  points p = {s, rows, first, stride, 0, isatty(2)};
  a2_procs_pool pool = {self, mine, s->jobs, argv_of, done, progress, &p, "sweep", "point"};
  int rc = a2_procs_pool_run(&pool);
  if (p.tty && mine && p.done < mine) fputc('\n', stderr);
  return rc;
}
