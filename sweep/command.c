/* a2a3sim sweep: the command. Flags -> the grid's points run as child
 * processes -> sweep.csv, crossovers (stdout and crossovers.txt), plots.
 * Exit status: 0 every point OK or refused, 1 a point FAILed, 2 bad flags,
 * 3 an internal error (a point crashed, gnuplot failed); killed by the
 * signal that interrupted it (after reaping every child). Under MPI
 * (mpi.c) every rank runs its share of the points and rank 0 writes
 * everything. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/outfile.h"
#include "sweep/sweep.h"

static int write_crossovers(const a2_sweep *s, const a2_sweep_row *rows) {
  char path[4096];
  if (!a2_sweep_path(s, "crossovers.txt", path, sizeof path))
    return a2_cmd_usage_error("-o", "path too long");
  a2_outfile *o;
  a2_err e = {0};
  if (a2_outfile_open(path, "the crossovers", &o, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  a2_sweep_crossovers(s, rows, a2_outfile_stream(o));
  if (a2_outfile_commit(o, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  a2_sweep_crossovers(s, rows, stdout);
  return 0;
}

/* Counts the rows and prints the closing line; the exit status they give. */
static int closing_line(const a2_sweep *s, const a2_sweep_row *rows, int nplots) {
  size_t nok = 0, nrefused = 0, nfail = 0, nerror = 0;
  for (size_t i = 0; i < s->npoints; i++) {
    const a2_sweep_row *r = &rows[i];
    if (!r->ran) continue;
    if (r->ok)
      nok++;
    else if (!strcmp(r->status, "REFUSED"))
      nrefused++;
    else if (!strcmp(r->status, "ERROR"))
      nerror++;
    else
      nfail++;
  }
  printf(
      "\n%zu point%s: %zu OK, %zu refused, %zu failed, %zu errors; wrote %s/sweep.csv, "
      "%s/crossovers.txt, %s%s%s/plot.gp and %d PNG%s%s\n",
      s->npoints, s->npoints == 1 ? "" : "s", nok, nrefused, nfail, nerror, s->out_dir, s->out_dir,
      s->hccl_op ? s->out_dir : "", s->hccl_op ? "/hccl.txt, " : "", s->out_dir,
      nplots < 0 ? 0 : nplots, nplots == 1 ? "" : "s",
      nplots < 0 ? " (plots skipped: no gnuplot)"
      : nplots   ? ""
                 : " (nothing to plot)");
  if (nerror) {
    fprintf(stderr,
            "a2a3sim: error: sweep: %zu point(s) ended with an internal error (see "
            "the error column of %s/sweep.csv)\n",
            nerror, s->out_dir);
    return A2_EXIT_INTERNAL;
  }
  if (nfail) {
    fprintf(stderr, "a2a3sim: sweep: %zu point(s) FAILED (see the status column of %s/sweep.csv)\n",
            nfail, s->out_dir);
    return A2_EXIT_FAIL;
  }
  return A2_EXIT_OK;
}

/* Redirect fd to /dev/null; returns a copy of the old fd (-1 on failure). */
static int silence(int fd) {
  fflush(fd == 1 ? stdout : stderr);
  int saved = dup(fd), null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, fd);
    close(null);
  }
  return saved;
}

static void restore(int fd, int saved) {
  if (saved < 0) return;
  fflush(fd == 1 ? stdout : stderr);
  dup2(saved, fd);
  close(saved);
}

int a2_sweep_main(int argc, char **argv) {
  a2_sweep_world w;
  a2_sweep_world_init(&w);
  /* Under MPI every rank parses the same flags; rank 0 alone speaks. */
  int saved_out = w.rank ? silence(1) : -1, saved_err = w.rank ? silence(2) : -1;
  a2_sweep s;
  int rc = a2_sweep_parse(argc, argv, &s);
  restore(2, saved_err);
  a2_sweep_row *rows = NULL;
  if (!rc && a2_procs_signals_install()) {
    fprintf(stderr, "a2a3sim: error: sweep: cannot install signal handlers: %s\n", strerror(errno));
    rc = A2_EXIT_INTERNAL;
  }
  if (!rc && !(rows = calloc(s.npoints, sizeof *rows))) {
    fprintf(stderr, "a2a3sim: error: sweep: out of memory\n");
    rc = A2_EXIT_INTERNAL;
  }
  if (rc) {
    a2_sweep_free(&s);
    restore(1, saved_out);
    return a2_sweep_world_finish(&w, rc < 0 ? A2_EXIT_OK : rc);
  }
  /* Point i runs on rank i % size (all of them without MPI). */
  rc = a2_sweep_run_points(&s, rows, (size_t)w.rank, (size_t)w.size);
  if (rc >= 0) rc = a2_sweep_gather(&s, &w, rows, rc);
  int nplots = 0;
  if (!rc && w.rank == 0) rc = a2_sweep_write_csv(&s, rows);
  if (!rc && w.rank == 0) rc = write_crossovers(&s, rows);
  if (!rc && w.rank == 0) rc = a2_sweep_hccl_write(&s, rows);
  if (!rc && w.rank == 0) rc = a2_sweep_plot(&s, rows, &nplots);
  if (!rc && w.rank == 0) rc = closing_line(&s, rows, nplots);
  for (size_t i = 0; i < s.npoints; i++) a2_sweep_row_free(&rows[i]);
  free(rows);
  a2_sweep_free(&s);
  fflush(stdout);
  restore(1, saved_out);
  if (rc < 0) { /* interrupted: every child is reaped; die of the same signal */
    fprintf(stderr, "a2a3sim: sweep: interrupted by signal %d; children stopped\n", -rc);
    a2_procs_reraise(-rc);
  }
  return a2_sweep_world_finish(&w, rc);
}
