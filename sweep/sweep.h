/* a2a3sim sweep: run a grid of `a2a3sim run` points (one process each),
 * collect their --json into sweep.csv, plot it with gnuplot and print where
 * the fastest algorithm changes (docs/sweep.md). One file per job:
 *   command.c     the command: flags in, files out, exit status
 *   flags.c       flag parsing: lists, the --sizes SPEC, --set axes
 *   grid.c        point numbering, a point's `run` argv, labels
 *   exec.c        the points as child processes (procs/), the progress bar
 *   row.c         one point's exit status + JSON -> one CSV row
 *   csv.c         sweep.csv
 *   crossovers.c  the crossover table (stdout and crossovers.txt)
 *   plot.c        plot.gp and the PNGs (gnuplot as a child process)
 *   hccl.c        --hccl OP: HCCL's choice at every point, its series and where
 *                 it misses the measured best (stdout and hccl.txt)
 *   mpi.c         optional: the points split over MPI ranks (-DA2_MPI=ON)
 * A point is a child `a2a3sim run` process, so the sweep needs no model:
 * it uses the configs (to check --set values before any point runs) and the
 * collectives' names. */
#ifndef A2_SWEEP_H
#define A2_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cmd_err.h"
#include "common/flags.h"
#include "configs/config.h"
#include "procs/procs.h"

/* `a2a3sim sweep ARGS` (argv[0] = "sweep"): the exit status. */
int a2_sweep_main(int argc, char **argv);

#define A2_SWEEP_MAX_POINTS 100000 /* each point is a process: a sanity bound */

/* One --set flag: KEY=V1,V2,... An axis when it has more than one value.
 * Or a run flag of the GEMM built-ins (--m, --k, --n, --compute-cores,
 * --comm-cores LIST): `flag` names it ("--m"), key is its CSV column ("m",
 * "compute_cores"); NULL for a config key. */
typedef struct {
  char *key;
  char **values;
  size_t nvalues;
  const char *flag;
} a2_sweep_set;

/* The whole study, from the flags. */
typedef struct {
  char **algos; /* --algo, in the order given */
  size_t nalgos;
  uint32_t *ranks; /* --ranks, in the order given */
  size_t nranks;
  uint64_t *sizes; /* --sizes, ascending */
  size_t nsizes;
  bool no_size; /* --m given without --sizes: one point per combination, no --size passed
                   (sizes = {0}, the CSV's size_bytes empty) */
  a2_sweep_set sets[A2_MAX_SETS]; /* --set, in the order given */
  size_t nsets;
  size_t axes[A2_MAX_SETS]; /* indices into sets[] of the sets with > 1 value */
  size_t naxes;
  size_t ncombos;          /* product of the axes' value counts (1 when none) */
  size_t npoints;          /* nalgos * nranks * nsizes * ncombos */
  const char *config_path; /* --config, NULL = built-in default */
  bool no_data;            /* --no-data: every point timing-only (run --no-data) */
  const char *out_dir;     /* -o */
  unsigned jobs;           /* --jobs */
  const char *hccl_op;     /* --hccl OP, NULL = none */
  int hccl_device;         /* --hccl-device a2|a3 (a2_hccl_device) */
  /* with --hccl: per (rank, size, combo), index a2_sweep_hccl_index: the
   * built-in HCCL's rule picks (an index into algos) and its executor */
  size_t *hccl_pick;
  char **hccl_exec;
} a2_sweep;

/* What one point produced (row.c). Number fields are the JSON text
 * as printed by `run --json`, NULL when there is none (refused point). */
typedef struct {
  bool ran;        /* the point finished (false: not run, interrupted) */
  bool ok;         /* the JSON's "ok" */
  char status[16]; /* OK FAIL RACE DEADLOCK TIMEOUT (JSON), REFUSED (exit 2), ERROR */
  char *time_ns, *algbw_gbps, *busbw_gbps, *remote_read, *remote_write, *barrier_rounds;
  /* the overlap card of a fused built-in (run --json "overlap"), NULL for the
   * others: times in us (exact decimal of the ps integers), efficiency and
   * TFLOPS as printed */
  char *compute_us, *comm_us, *sequential_us, *exposed_us, *overlap_eff, *tflops;
  uint64_t time_ps; /* for comparisons (exact); valid when time_ns != NULL */
  char *error;      /* first line of the point's stderr (or what went wrong), NULL = none */
  int exit_code;    /* the point's exit status, -1 when killed by a signal */
} a2_sweep_row;

/* A point's place in the grid. Grid order (the CSV's row order): algo
 * outermost, then ranks, size, then the --set combination, whose first
 * axis varies slowest. */
typedef struct {
  size_t algo, rank, size, combo;
} a2_sweep_coord;

/* flags.c: the flags' table (a2a3sim help --markdown sweep prints it). */
extern const a2_flag_table a2_sweep_flags;
/* flags.c: parse the flags into *s (after loading --config to check
 * every --set value). 0 to go on, -1 after --help, or an exit code after
 * printing the error. Free with a2_sweep_free. */
int a2_sweep_parse(int argc, char **argv, a2_sweep *s);
void a2_sweep_free(a2_sweep *s);
/* The --sizes SPEC alone (exposed for its own error messages). */
int a2_sweep_parse_sizes(const char *spec, uint64_t **sizes, size_t *n);

/* grid.c */
a2_sweep_coord a2_sweep_coord_of(const a2_sweep *s, size_t point);
size_t a2_sweep_point_of(const a2_sweep *s, a2_sweep_coord c);
/* The value of set `set` (an index into s->sets) in combination `combo`. */
const char *a2_sweep_set_value(const a2_sweep *s, size_t set, size_t combo);
/* The argv of the point's `a2a3sim run ... --json`; free with a2_procs_argv_free. */
char **a2_sweep_point_argv(const a2_sweep *s, size_t point, const char *argv0);
/* "P=8" or "P=8, interconnect.link.bandwidth=28GB/s, ..." (axes only). */
void a2_sweep_group_label(const a2_sweep *s, size_t rank, size_t combo, char *out, size_t n);
/* "built-in configs/a2-8p-hccs.yaml" or the --config path, then single-value --set overrides. */
void a2_sweep_config_label(const a2_sweep *s, char *out, size_t n);

/* exec.c: run the points first, first + stride, ... (all of them: 0, 1),
 * at most s->jobs at once (procs/); rows[point] gets each result. Returns
 * 0, an exit code after printing an error, or (negated) the signal that
 * interrupted the sweep (every child reaped). */
int a2_sweep_run_points(const a2_sweep *s, a2_sweep_row *rows, size_t first, size_t stride);

/* mpi.c: with -DA2_MPI=ON and started by mpirun, the points are
 * split over the MPI ranks (point i on rank i % size) and gathered at rank
 * 0, which writes the files. Otherwise (or without mpirun) one rank. */
typedef struct {
  int rank, size;
  bool mpi; /* MPI_Init was called */
} a2_sweep_world;
void a2_sweep_world_init(a2_sweep_world *w);
/* Every rank's rows to rank 0; `rc` is this rank's status so far. Returns
 * the worst status of all ranks (0 when all are fine). */
int a2_sweep_gather(const a2_sweep *s, const a2_sweep_world *w, a2_sweep_row *rows, int rc);
/* Rank 0's exit status for every rank; finalizes MPI. */
int a2_sweep_world_finish(a2_sweep_world *w, int rc);

/* row.c: fill *r from a finished point. */
void a2_sweep_row_fill(a2_sweep_row *r, int wait_status, const a2_procs_buf *out,
                       const a2_procs_buf *err);
void a2_sweep_row_free(a2_sweep_row *r);

/* csv.c: DIR/sweep.csv; 0 or an exit code (error printed). */
int a2_sweep_write_csv(const a2_sweep *s, const a2_sweep_row *rows);

/* crossovers.c: the crossover report to `out`. */
void a2_sweep_crossovers(const a2_sweep *s, const a2_sweep_row *rows, FILE *out);

/* plot.c: write DIR/plot.gp and run gnuplot on it. Returns 0 (plots
 * made: *nplots = PNGs made; or skipped with a warning when gnuplot is
 * missing: *nplots = -1), an exit code after printing an error, or
 * (negated) a signal. */
int a2_sweep_plot(const a2_sweep *s, const a2_sweep_row *rows, int *nplots);

/* hccl.c: with --hccl OP (s->hccl_op), choose at every (rank, size,
 * combo) as HCCL does, adding the chosen built-ins missing from --algo
 * (before s->npoints is counted). 0 or an exit code (error printed). */
int a2_sweep_hccl_prepare(a2_sweep *s);
size_t a2_sweep_hccl_index(const a2_sweep *s, size_t rank, size_t size, size_t combo);
/* The report: HCCL's pick against the measured best at every size, and
 * the points where they differ, with by how much. */
void a2_sweep_hccl_report(const a2_sweep *s, const a2_sweep_row *rows, FILE *out);
/* DIR/hccl.txt and stdout (nothing without --hccl); 0 or an exit code. */
int a2_sweep_hccl_write(const a2_sweep *s, const a2_sweep_row *rows);

/* Shared small helpers (grid.c). */
char *a2_sweep_strdup(const char *s);
/* DIR/name into out; false when it does not fit. */
bool a2_sweep_path(const a2_sweep *s, const char *name, char *out, size_t n);

#endif
