/* a2a3sim calibrate: compare a CSV of measurements with the simulator and
 * fit config keys to them (docs/calibrate.md). Every simulated figure comes
 * from a child `a2a3sim run ... --json` (procs/), so the fit runs the
 * model itself, not a formula. One file per job:
 *   command.c  the command: flags in, tables and the fitted YAML out, exit status
 *   flags.c    flag parsing: --set, --fit KEY[=LO..HI], the search's ranges, --holdout
 *   csv.c      the measurements CSVs (configs/measured/, docs/calibrate.md): one
 *              table of every file's rows, each with its role (fit, predict)
 *   runs.c     a row's `run` command line, running rows at points, the cache
 *   fit.c      the search on a log scale: a coordinate sweep, then Levenberg-
 *              Marquardt steps; the sensitivities before and after
 *   report.c   the row tables (text, Markdown) by group, their summary lines,
 *              the notes after a fit
 *   fitted.c   the fitted YAML, written through a temporary file and a rename
 * Determinism: results are kept by row and point, never by finishing
 * order, so the output is the same for every --jobs. */
#ifndef A2_CALIBRATE_H
#define A2_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cmd_err.h"
#include "common/flags.h"
#include "configs/config.h"

/* `a2a3sim calibrate ARGS` (argv[0] = "calibrate"): the exit status. */
int a2_calibrate_main(int argc, char **argv);

#define A2_CAL_MAX_KEYS 16         /* --fit keys */
#define A2_CAL_MAX_ROWS 10000      /* rows of all CSVs (each is a process per evaluation) */
#define A2_CAL_MAX_BYTES (1 << 22) /* CSV file size */
#define A2_CAL_MAX_FIELD 4096      /* characters of one field (args become argv) */
#define A2_CAL_NCOLS 10            /* with role; a file whose header has the first 9 is read too */
#define A2_CAL_MAX_HOLDOUT 64      /* --holdout flags */

/* What a row compares: the run's simulated time or its reported bandwidth,
 * or a time of a fused built-in's overlap card (the compute-only side, the
 * sequential time: run --json "overlap"). */
typedef enum {
  A2_CAL_TIME,
  A2_CAL_ALGBW,
  A2_CAL_BUSBW,
  A2_CAL_COMPUTE_TIME,
  A2_CAL_SEQUENTIAL_TIME
} a2_cal_metric;
/* Is m a time (compared in ps)? */
static inline int a2_cal_metric_is_time(a2_cal_metric m) {
  return m == A2_CAL_TIME || m == A2_CAL_COMPUTE_TIME || m == A2_CAL_SEQUENTIAL_TIME;
}

/* Column numbers of the CSV (the header's order). */
enum {
  A2_CAL_COL_ROW,
  A2_CAL_COL_PROGRAM,
  A2_CAL_COL_RANKS,
  A2_CAL_COL_SIZE,
  A2_CAL_COL_ARGS,
  A2_CAL_COL_METRIC,
  A2_CAL_COL_MEASURED,
  A2_CAL_COL_TOLERANCE,
  A2_CAL_COL_SOURCE,
  A2_CAL_COL_ROLE
};

/* What a row is for (the role column): a fit uses the rows marked fit; a
 * predict row is compared, never fitted to. */
typedef enum { A2_CAL_ROLE_FIT, A2_CAL_ROLE_PREDICT } a2_cal_role;

/* The rows' groups in a report: the rows a fit uses (role fit, not held
 * out), the rows --holdout leaves out (any role), the predict rows that are
 * not held out. Without a fit, fit and predict. */
typedef enum { A2_CAL_GROUP_FIT, A2_CAL_GROUP_HELD, A2_CAL_GROUP_PREDICT } a2_cal_group;

/* One measurement (one CSV line). Strings are owned by the table. */
typedef struct {
  char *id;
  const char *file;      /* the CSV it is a line of (a2_cal_table's paths) */
  int line;              /* 1-based line in the CSV */
  int col[A2_CAL_NCOLS]; /* 1-based column (byte) where each field starts */
  char *program;         /* the `program` field as written */
  char *program_path;    /* the program file to run: the CSV's folder + program, normalised;
                            NULL for a built-in */
  char *config_path;     /* args' --config FILE: the CSV's folder + FILE, normalised; the row
                            runs with it instead of calibrate's config. NULL: none */
  char *ranks;           /* NULL: none (args hold -d) */
  char *size;            /* NULL: none */
  char **args;           /* further `run` flags, split at blanks */
  size_t nargs;
  a2_cal_metric metric;
  double measured;     /* ps (time) or B/s (bandwidth) */
  char *measured_text; /* as written */
  char unit[16];       /* the measured figure's unit ("us", "GB/s"): tables print in it */
  double unit_scale;   /* base units (ps, B/s) per unit */
  double tolerance;    /* a fraction: 0.15 for 15% */
  char *tolerance_text;
  char *source;
  a2_cal_role role; /* fit when the file has no role column */
  bool held_out;    /* its source is one of --holdout's */
  bool id_shared;   /* a row of another file given has the same id */
} a2_cal_row;

typedef struct {
  char **paths; /* the CSVs as named on the command line, in order */
  size_t npaths;
  a2_cal_row *rows; /* every file's rows, in file order */
  size_t nrows;
} a2_cal_table;

/* csv.c: read and check the CSVs (every row; the first problem is the
 * error, with file:line:col). Ids are unique in a file; a row is known by
 * its file and id. On error *t is empty. */
a2_code a2_cal_read(const char *const *paths, size_t npaths, a2_cal_table *t, a2_err *err);
void a2_cal_table_free(a2_cal_table *t);
const char *a2_cal_metric_name(a2_cal_metric m);
/* The row's group (see a2_cal_group). */
a2_cal_group a2_cal_row_group(const a2_cal_row *row);
/* The row's name in a table: its id, or FILE:id when another file given
 * has the same id. */
void a2_cal_row_name(const a2_cal_table *t, size_t i, char *out, size_t n);

/* A fitted key and its search range (base units: ps, B/s, bytes, Hz, counts). */
typedef struct {
  char *path;
  a2_config_key_info info;
  uint64_t start;  /* the value the search starts from (base config + --set, in range) */
  uint64_t base;   /* the base config's value (start before clamping into the range) */
  uint64_t lo, hi; /* the search range, 0 < lo < hi */
} a2_cal_key;

/* The flags. */
typedef struct {
  const char *const *csv_paths; /* one or more (argv) */
  size_t ncsv;
  const char *holdouts[A2_CAL_MAX_HOLDOUT]; /* --holdout values as given (comma lists) */
  size_t nholdouts;
  const char *config_path; /* NULL: built-in default */
  const char *sets[A2_MAX_SETS];
  size_t nsets;
  a2_cal_key keys[A2_CAL_MAX_KEYS];
  size_t nkeys;         /* 0: no fit */
  const char *fit;      /* --fit KEYS as given (keys[] is read from it) */
  const char *out_path; /* -o, with --fit */
  bool check;
  bool markdown;
  unsigned jobs;
  unsigned max_evals; /* evaluations of the search (not counting the sensitivities) */
  a2_config base;     /* the config with --config and --set applied */
} a2_cal_opts;

/* flags.c: the flags' table (a2a3sim help --markdown calibrate prints it). */
extern const a2_flag_table a2_cal_flags;
/* flags.c: 0 to go on, -1 after --help, or an exit code after printing the
 * error; a2_cal_opts_free afterwards in every case. */
int a2_cal_parse(int argc, char **argv, a2_cal_opts *o);
void a2_cal_opts_free(a2_cal_opts *o);

/* One row's simulated figure at one point. */
typedef struct {
  bool ran; /* a fit's search runs the rows it uses only; the others run at its start and end */
  bool ok;
  double value;  /* ps or B/s; valid when ok */
  char text[48]; /* the figure as the JSON printed it (time_ps or the GB/s number): equal
                    texts are equal figures */
  int exit_code; /* the run's exit status (-1: killed by a signal) */
  char *error;   /* why it is not ok; NULL when ok */
} a2_cal_sim;

/* A point: a value per fitted key and every row's figure there. */
typedef struct {
  uint64_t values[A2_CAL_MAX_KEYS];
  a2_cal_sim *sims; /* nrows */
  double residual;  /* sum over the rows a fit uses of ln(simulated / measured)^2; INFINITY when
                       one of them failed */
} a2_cal_point;

/* runs.c: points in the order they were first asked for; each is run once. */
typedef struct {
  const a2_cal_table *t;
  const a2_cal_opts *o;
  char self[4096]; /* this binary */
  size_t *same;    /* per row: the first row with the same command (they share its run) */
  a2_cal_point *points;
  size_t npoints, cap;
} a2_cal_runner;

/* 0, or an exit code after printing an error. */
int a2_cal_runner_init(a2_cal_runner *r, const a2_cal_table *t, const a2_cal_opts *o);
void a2_cal_runner_free(a2_cal_runner *r);
/* Make sure each of the n points (values[i * A2_CAL_MAX_KEYS ...]) is run,
 * in one pool of --jobs processes: the rows a fit uses, or every row when
 * all; idx[i] = its index in r->points. *fresh (may be NULL) = how many
 * points were new. Returns 0, an exit code after printing an error, or
 * (negated) an interrupting signal. */
int a2_cal_run(a2_cal_runner *r, size_t n, const uint64_t *values, bool all, size_t *idx,
               size_t *fresh);
/* Does a fit use row i (role fit, not held out)? */
bool a2_cal_row_used(const a2_cal_runner *r, size_t i);
/* The index of the point with these values, SIZE_MAX when it has not run. */
size_t a2_cal_find(const a2_cal_runner *r, const uint64_t *values);
/* The row's `run` command line at the given key values: argv (NULL-terminated,
 * free with a2_procs_argv_free) for the child when json, else the command a
 * user types (no --json), as one string (free()). */
char **a2_cal_row_argv(const a2_cal_opts *o, const a2_cal_row *row, const uint64_t *values,
                       bool json, const char *argv0);
char *a2_cal_row_command(const a2_cal_opts *o, const a2_cal_row *row, const uint64_t *values);
/* "155.12ns": a key's value as --set takes it (no blank). */
void a2_cal_format_value(const a2_cal_key *k, uint64_t v, char *out, size_t n);
/* The row's figure in its measured unit ("1.4917 us"). */
void a2_cal_format_figure(const a2_cal_row *row, double value, char *out, size_t n);

/* fit.c: the result of a fit. Matrices are nkeys x nrows, key-major. */
typedef struct {
  size_t start, best; /* point indices */
  double *sens_start; /* d ln(simulated) / d ln(key) at the start */
  bool *moves_start;  /* the row's figure changed when the key was perturbed at the start */
  double *sens_best;  /* the same at the fit */
  bool *moves_best;
  unsigned steps; /* Levenberg-Marquardt steps taken */
  size_t evals;   /* points the search ran */
  bool converged; /* no step moves or lowers the residual; false: the budget ran out */
} a2_cal_fit;

/* The start of a fit: the start point and the sensitivities there; refuses
 * (error printed, exit 2) a key no row depends on. Then the search and the
 * sensitivities at the fit. Each returns 0, an exit code, or (negated) a
 * signal; a2_cal_fit_free afterwards in every case. */
int a2_cal_fit_start(a2_cal_runner *r, a2_cal_fit *f);
int a2_cal_fit_search(a2_cal_runner *r, a2_cal_fit *f);
void a2_cal_fit_free(a2_cal_fit *f);

/* report.c */
/* How many rows are in the group. */
size_t a2_cal_group_size(const a2_cal_table *t, a2_cal_group g);
/* The group's rows at one point: "row program measured simulated ratio ..." */
void a2_cal_print_rows(const a2_cal_runner *r, size_t point, a2_cal_group g, bool with_residual,
                       FILE *out);
/* The group's summary line at one point: "LABEL: N rows, median |error| X %,
 * worst |error| Y % (ROW)", |error| = |simulated / measured - 1|; file
 * NULL: every file's rows. */
void a2_cal_print_summary(const a2_cal_runner *r, size_t point, a2_cal_group g, const char *file,
                          bool markdown, FILE *out);
/* One file's rows (NULL: every file's) as Markdown tables with each row's
 * command (docs/fidelity.md), one per group with its summary line. */
void a2_cal_print_markdown(const a2_cal_runner *r, size_t point, const char *file, FILE *out);
/* trend.c: rank trends. Rows of one file with the same program, metric,
 * source and size column and different ranks are a series; in order of ranks, each
 * step's simulated figure must move the way the measured one does (up or
 * down), unless the measured step is within the larger tolerance of its two
 * rows (flat: either way passes). Prints one line per step that goes the
 * other way, prefixed, to out (NULL: none); returns the steps that do, and the steps
 * checked in *steps. A row whose run failed is in no step. */
size_t a2_cal_wrong_trends(const a2_cal_runner *r, size_t point, const char *prefix, FILE *out,
                           size_t *steps);
/* Rows within their tolerance at a point. */
size_t a2_cal_rows_within(const a2_cal_runner *r, size_t point);
bool a2_cal_row_within(const a2_cal_row *row, const a2_cal_sim *s);
/* After a fit, one line each, prefixed: keys at an edge of their range,
 * keys the rows cannot tell apart, rows the fit cannot explain or that no
 * key moves, a search stopped by its budget. */
void a2_cal_print_fit_notes(const a2_cal_runner *r, const a2_cal_fit *f, FILE *out,
                            const char *prefix);

/* fitted.c: the fitted YAML at o->out_path; 0 or an exit code (error printed). */
int a2_cal_write_fitted(const a2_cal_runner *r, const a2_cal_fit *f);

/* Small helpers (csv.c). */
char *a2_cal_strdup(const char *s);

#endif
