/* a2a3sim sweep over MPI (optional: cmake -DA2_MPI=ON, then
 * `mpirun -n K a2a3sim sweep ...`): rank r runs points r, r+K, r+2K, ...
 * (each still a child process of its own), then every rank sends its rows
 * to rank 0, which writes the same files a single process writes. Without
 * A2_MPI, or when not started by mpirun, there is one rank and nothing here
 * does anything. */
#include <stdlib.h>
#include <string.h>

#include "sweep/sweep.h"

#ifdef A2_MPI
#include <mpi.h>

/* Started by an MPI launcher? (Open MPI, MPICH/Hydra, PMIx, Slurm.) A plain
 * `a2a3sim sweep` does not initialise MPI at all. */
static bool launched_by_mpi(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i])) return true;
  return false;
}

void a2_sweep_world_init(a2_sweep_world *w) {
  *w = (a2_sweep_world){0, 1, false};
  if (!launched_by_mpi() || MPI_Init(NULL, NULL) != MPI_SUCCESS) return;
  w->mpi = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w->size);
}

/* ---- rows as bytes: point, flags, exit code, time_ps, then the strings,
 * each as one tag byte ('-' none, '+' text) and the text with its NUL ---- */

typedef struct {
  char *p;
  size_t len, cap;
  bool oom;
} bytes;

static void put(bytes *b, const void *data, size_t n) {
  if (b->oom) return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 65536;
    while (cap < b->len + n) cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) {
      b->oom = true;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->len, data, n);
  b->len += n;
}

static void put_str(bytes *b, const char *s) {
  put(b, s ? "+" : "-", 1);
  if (s) put(b, s, strlen(s) + 1);
}

static void put_row(bytes *b, uint64_t point, const a2_sweep_row *r) {
  int32_t ints[3] = {r->ran, r->ok, r->exit_code};
  put(b, &point, sizeof point);
  put(b, ints, sizeof ints);
  put(b, &r->time_ps, sizeof r->time_ps);
  put_str(b, r->status);
  const char *strs[] = {r->time_ns,       r->algbw_gbps,     r->busbw_gbps,  r->remote_read,
                        r->remote_write,  r->barrier_rounds, r->compute_us,  r->comm_us,
                        r->sequential_us, r->exposed_us,     r->overlap_eff, r->tflops,
                        r->error};
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) put_str(b, strs[i]);
}

/* Reads one string at *at (bounds-checked); false when malformed. */
static bool get_str(const char *p, size_t len, size_t *at, char **out) {
  *out = NULL;
  if (*at >= len) return false;
  char tag = p[(*at)++];
  if (tag == '-') return true;
  const char *end = memchr(p + *at, '\0', len - *at);
  if (tag != '+' || !end) return false;
  *out = a2_sweep_strdup(p + *at);
  *at = (size_t)(end - p) + 1;
  return *out != NULL;
}

static bool get_row(const char *p, size_t len, size_t *at, const a2_sweep *s, a2_sweep_row *rows) {
  uint64_t point, time_ps;
  int32_t ints[3];
  if (len - *at < sizeof point + sizeof ints + sizeof time_ps) return false;
  memcpy(&point, p + *at, sizeof point);
  memcpy(ints, p + *at + sizeof point, sizeof ints);
  memcpy(&time_ps, p + *at + sizeof point + sizeof ints, sizeof time_ps);
  *at += sizeof point + sizeof ints + sizeof time_ps;
  if (point >= s->npoints) return false;
  a2_sweep_row *r = &rows[point];
  a2_sweep_row_free(r);
  r->ran = ints[0];
  r->ok = ints[1];
  r->exit_code = ints[2];
  r->time_ps = time_ps;
  char *status, **strs[] = {&r->time_ns,       &r->algbw_gbps,     &r->busbw_gbps,  &r->remote_read,
                            &r->remote_write,  &r->barrier_rounds, &r->compute_us,  &r->comm_us,
                            &r->sequential_us, &r->exposed_us,     &r->overlap_eff, &r->tflops,
                            &r->error};
  if (!get_str(p, len, at, &status)) return false;
  snprintf(r->status, sizeof r->status, "%s", status ? status : "");
  free(status);
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
    if (!get_str(p, len, at, strs[i])) return false;
  return true;
}

int a2_sweep_gather(const a2_sweep *s, const a2_sweep_world *w, a2_sweep_row *rows, int rc) {
  if (!w->mpi || w->size == 1) return rc;
  /* Everyone learns whether anyone failed (an error or a signal). */
  int worst = rc < 0 ? 1000 - rc : rc, all = 0;
  MPI_Allreduce(&worst, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (all) return all >= 1000 ? A2_EXIT_INTERNAL : all;
  bytes b = {0};
  for (size_t i = (size_t)w->rank; i < s->npoints; i += (size_t)w->size) put_row(&b, i, &rows[i]);
  int len = b.oom || b.len > (size_t)INT32_MAX ? -1 : (int)b.len;
  int *lens = w->rank == 0 ? calloc((size_t)w->size, sizeof *lens) : NULL;
  int *offs = w->rank == 0 ? calloc((size_t)w->size, sizeof *offs) : NULL;
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char *all_bytes = NULL;
  size_t total = 0;
  bool bad = len < 0;
  if (w->rank == 0) {
    bad = bad || !lens || !offs;
    for (int r = 0; !bad && r < w->size; r++) {
      if (lens[r] < 0 || total + (size_t)lens[r] > (size_t)INT32_MAX) bad = true;
      offs[r] = (int)total;
      total += (size_t)(lens[r] > 0 ? lens[r] : 0);
    }
    if (!bad && !(all_bytes = malloc(total ? total : 1))) bad = true;
  }
  /* Tell everyone whether the gather can go on, so that no rank waits alone. */
  int go = !bad;
  MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (go)
    MPI_Gatherv(b.p, len < 0 ? 0 : len, MPI_CHAR, all_bytes, lens, offs, MPI_CHAR, 0,
                MPI_COMM_WORLD);
  if (go && w->rank == 0)
    for (size_t at = 0; at < total;)
      if (!get_row(all_bytes, total, &at, s, rows)) {
        go = 0;
        break;
      }
  free(b.p);
  free(lens);
  free(offs);
  free(all_bytes);
  if (!go && w->rank == 0) {
    fprintf(stderr, "a2a3sim: error: sweep: could not gather the rows of the MPI ranks\n");
    return A2_EXIT_INTERNAL;
  }
  return go ? 0 : A2_EXIT_INTERNAL;
}

int a2_sweep_world_finish(a2_sweep_world *w, int rc) {
  if (!w->mpi) return rc;
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  w->mpi = false;
  return rc;
}

#else /* one rank, no MPI */

void a2_sweep_world_init(a2_sweep_world *w) {
  *w = (a2_sweep_world){0, 1, false};
}

int a2_sweep_gather(const a2_sweep *s, const a2_sweep_world *w, a2_sweep_row *rows, int rc) {
  (void)s;
  (void)w;
  (void)rows;
  return rc;
}

int a2_sweep_world_finish(a2_sweep_world *w, int rc) {
  (void)w;
  return rc;
}

#endif
