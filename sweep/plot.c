/* a2a3sim sweep: plots. Writes DIR/plot.gp - the data of every OK point
 * inline (so the script stands alone and can be edited and re-run with
 * `cd DIR && gnuplot plot.gp`) - and runs gnuplot on it as a child process.
 * PNGs: time_vs_size.png and busbw_vs_size.png with one panel per rank
 * count and --set combination, and one PNG per such group
 * (time_vs_size_P8.png, ...); one line per algorithm, log-log axes (busbw:
 * linear y when a value is not positive). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/outfile.h"
#include "common/units.h"
#include "sweep/sweep.h"

/* Ten distinguishable colours (the "tab10" palette), point types, dashes. */
static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

typedef struct {
  const char *name; /* file stem */
  const char *what; /* title */
  const char *ylabel;
  const char *using; /* gnuplot using spec on the data blocks */
} plot_kind;

static const plot_kind kinds[] = {
    {"time_vs_size", "time", "time (us)", "1:($2/1000.0)"},
    {"busbw_vs_size", "bus bandwidth", "bus bandwidth (GB/s)", "1:3"},
};

static bool point_ok(const a2_sweep_row *r) {
  return r->ran && r->ok && r->time_ns;
}

/* A gnuplot double-quoted string. */
static void gp_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const char *p = s; *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', f);
    if (*p == '\n')
      fputs("\\n", f);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

/* The group's file suffix: _P8, then each axis value (characters other
 * than [A-Za-z0-9.+-] become '-'); _P8_c3 with `by_index`. */
static void suffix(const a2_sweep *s, size_t rank, size_t combo, bool by_index, char *out,
                   size_t n) {
  int len = snprintf(out, n, "_P%u", s->ranks[rank]);
  if (by_index) {
    snprintf(out + len, n - (size_t)len, "_c%zu", combo);
    return;
  }
  for (size_t a = 0; a < s->naxes && (size_t)len + 2 < n; a++) {
    out[len++] = '_';
    for (const char *p = a2_sweep_set_value(s, s->axes[a], combo); *p && (size_t)len + 1 < n; p++)
      out[len++] =
          (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-", *p) ? *p
                                                                                           : '-');
    out[len] = '\0';
  }
}

/* Does any two groups' suffix coincide (values that differ only in
 * characters the file names drop)? */
static bool suffixes_collide(const a2_sweep *s) {
  char a[256], b[256];
  for (size_t i = 0; i < s->ncombos; i++)
    for (size_t j = i + 1; j < s->ncombos; j++) {
      suffix(s, 0, i, false, a, sizeof a);
      suffix(s, 0, j, false, b, sizeof b);
      if (!strcmp(a, b)) return true;
    }
  return false;
}

static bool series_has_data(const a2_sweep *s, const a2_sweep_row *rows, size_t algo, size_t rank,
                            size_t combo) {
  for (size_t z = 0; z < s->nsizes; z++)
    if (point_ok(&rows[a2_sweep_point_of(s, (a2_sweep_coord){algo, rank, z, combo})])) return true;
  return false;
}

static bool group_has_data(const a2_sweep *s, const a2_sweep_row *rows, size_t rank, size_t combo) {
  for (size_t a = 0; a < s->nalgos; a++)
    if (series_has_data(s, rows, a, rank, combo)) return true;
  return false;
}

/* busbw on a log axis needs every value > 0. */
static bool busbw_positive(const a2_sweep *s, const a2_sweep_row *rows, size_t rank, size_t combo) {
  for (size_t a = 0; a < s->nalgos; a++)
    for (size_t z = 0; z < s->nsizes; z++) {
      const a2_sweep_row *r = &rows[a2_sweep_point_of(s, (a2_sweep_coord){a, rank, z, combo})];
      if (point_ok(r) && !(strtod(r->busbw_gbps, NULL) > 0)) return false;
    }
  return true;
}

/* the point of the built-in HCCL picks at (rank, size, combo) */
static const a2_sweep_row *hccl_row(const a2_sweep *s, const a2_sweep_row *rows, size_t rank,
                                    size_t size, size_t combo) {
  size_t a = s->hccl_pick[a2_sweep_hccl_index(s, rank, size, combo)];
  return &rows[a2_sweep_point_of(s, (a2_sweep_coord){a, rank, size, combo})];
}

static bool hccl_has_data(const a2_sweep *s, const a2_sweep_row *rows, size_t rank, size_t combo) {
  for (size_t z = 0; s->hccl_op && z < s->nsizes; z++)
    if (point_ok(hccl_row(s, rows, rank, z, combo))) return true;
  return false;
}

static void data_blocks(const a2_sweep *s, const a2_sweep_row *rows, FILE *f) {
  fputs(
      "# The data: one block per (rank count, --set combination, algorithm), the OK\n"
      "# points of sweep.csv: size_bytes time_ns busbw_gbps\n",
      f);
  for (size_t r = 0; r < s->nranks; r++)
    for (size_t c = 0; c < s->ncombos; c++)
      for (size_t a = 0; a < s->nalgos; a++) {
        if (!series_has_data(s, rows, a, r, c)) continue;
        char label[1024];
        a2_sweep_group_label(s, r, c, label, sizeof label);
        fprintf(f, "# %s, %s\n$d_r%zu_c%zu_a%zu << EOD\n", s->algos[a], label, r, c, a);
        for (size_t z = 0; z < s->nsizes; z++) {
          const a2_sweep_row *row = &rows[a2_sweep_point_of(s, (a2_sweep_coord){a, r, z, c})];
          if (point_ok(row))
            fprintf(f, "%llu %s %s\n", (unsigned long long)s->sizes[z], row->time_ns,
                    row->busbw_gbps);
        }
        fputs("EOD\n", f);
      }
  for (size_t r = 0; s->hccl_op && r < s->nranks; r++)
    for (size_t c = 0; c < s->ncombos; c++) {
      if (!hccl_has_data(s, rows, r, c)) continue;
      fprintf(f, "# HCCL's choice for %s: the chosen built-in's point at each size\n", s->hccl_op);
      fprintf(f, "$d_r%zu_c%zu_hccl << EOD\n", r, c);
      for (size_t z = 0; z < s->nsizes; z++) {
        const a2_sweep_row *row = hccl_row(s, rows, r, z, c);
        if (point_ok(row))
          fprintf(f, "%llu %s %s\n", (unsigned long long)s->sizes[z], row->time_ns,
                  row->busbw_gbps);
      }
      fputs("EOD\n", f);
    }
  fputc('\n', f);
}

/* Size tick labels: at most 9, the first and then every k-th size. */
static void xtics(const a2_sweep *s, FILE *f) {
  size_t k = (s->nsizes + 8) / 9;
  fputs("set xtics (", f);
  for (size_t z = 0; z < s->nsizes; z += k) {
    char q[32];
    a2_format_quantity(s->sizes[z], A2_UNIT_BYTES, q, sizeof q);
    fprintf(f, "%s", z ? ", " : "");
    gp_string(f, q);
    fprintf(f, " %llu", (unsigned long long)s->sizes[z]);
  }
  fputs(")\n", f);
}

static void plot_group(const a2_sweep *s, const a2_sweep_row *rows, const plot_kind *k, size_t rank,
                       size_t combo, const char *title, FILE *f) {
  bool logy = k != &kinds[1] || busbw_positive(s, rows, rank, combo);
  fprintf(f, "%s\nset ylabel ", logy ? "set logscale y" : "unset logscale y");
  gp_string(f, k->ylabel);
  fputs("\nset title ", f);
  gp_string(f, title);
  fputs("\nplot ", f);
  bool first = true;
  for (size_t a = 0; a < s->nalgos; a++) {
    if (!series_has_data(s, rows, a, rank, combo)) continue;
    fprintf(f, "%s$d_r%zu_c%zu_a%zu using %s with linespoints linetype %zu title ",
            first ? "" : ", \\\n     ", rank, combo, a, k->using, a % 10 + 1);
    gp_string(f, s->algos[a]);
    first = false;
  }
  if (hccl_has_data(s, rows, rank, combo)) { /* thick and translucent grey, beside the candidates */
    char t[64];
    snprintf(t, sizeof t, "hccl (%s)", s->hccl_op);
    fprintf(f,
            "%s$d_r%zu_c%zu_hccl using %s with lines linewidth 7 linecolor rgb \"#80000000\" "
            "dashtype 1 title ",
            first ? "" : ", \\\n     ", rank, combo, k->using);
    gp_string(f, t);
  }
  fputc('\n', f);
}

/* Writes plot.gp; *pngs receives the file names it makes (NULL-terminated). */
static int write_script(const a2_sweep *s, const a2_sweep_row *rows, const char *path,
                        char ***pngs) {
  a2_outfile *o;
  a2_err e = {0};
  if (a2_outfile_open(path, "the plot script", &o, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  FILE *f = a2_outfile_stream(o);
  size_t ngroups = 0, cap = 2 * (s->nranks * s->ncombos + 1) + 1;
  if (!(*pngs = calloc(cap, sizeof **pngs))) {
    a2_outfile_discard(o);
    fprintf(stderr, "a2a3sim: error: sweep: out of memory\n");
    return A2_EXIT_INTERNAL;
  }
  for (size_t r = 0; r < s->nranks; r++)
    for (size_t c = 0; c < s->ncombos; c++) ngroups += group_has_data(s, rows, r, c);
  bool by_index = suffixes_collide(s);
  char config[2048], title[4096], label[1024], sfx[256], name[512];
  a2_sweep_config_label(s, config, sizeof config);

  fputs(
      "# Plots of sweep.csv, written by `a2a3sim sweep` (docs/sweep.md). Edit and re-run:\n"
      "#   cd THIS_DIRECTORY && gnuplot plot.gp\n\n",
      f);
  data_blocks(s, rows, f);
  for (size_t i = 0; i < 10; i++)
    fprintf(f, "set linetype %zu linecolor rgb \"%s\" linewidth 2 pointtype %zu pointsize 1.2%s\n",
            i + 1, colours[i], (size_t[]){7, 5, 9, 11, 13, 4, 6, 8, 10, 12}[i],
            i >= 5 ? " dashtype 2" : "");
  fputs(
      "set logscale x 2\nset grid xtics ytics mytics\nset key top left box opaque reverse Left\n"
      "set xlabel \"message size per rank (bytes)\"\n"
      "# ranges: the data plus a margin (not stretched to the next decade)\n"
      "set autoscale fix\nset offsets graph 0.04, graph 0.04, graph 0.08, graph 0.06\n",
      f);
  xtics(s, f);
  size_t npng = 0;
  if (!ngroups) {
    fputs("\n# No point ran OK: nothing to plot.\n", f);
  }
  for (size_t ki = 0; ki < 2 && ngroups; ki++) {
    const plot_kind *k = &kinds[ki];
    /* One PNG with a panel per group. */
    size_t cols = 1;
    while (cols * cols < ngroups) cols++;
    size_t nrows = (ngroups + cols - 1) / cols;
    snprintf(name, sizeof name, "%s.png", k->name);
    (*pngs)[npng++] = a2_sweep_strdup(name);
    fprintf(f, "\n# %s: every group in one picture\n", name);
    fprintf(f, "set terminal pngcairo size %zu,%zu noenhanced font \"sans,10\"\nset output ",
            cols * 720, nrows * 500 + 40);
    gp_string(f, name);
    snprintf(title, sizeof title, "%s vs message size per rank - config: %s", k->what, config);
    fprintf(f, "\nset multiplot layout %zu,%zu title ", nrows, cols);
    gp_string(f, title);
    fputc('\n', f);
    for (size_t r = 0; r < s->nranks; r++)
      for (size_t c = 0; c < s->ncombos; c++) {
        if (!group_has_data(s, rows, r, c)) continue;
        a2_sweep_group_label(s, r, c, label, sizeof label);
        plot_group(s, rows, k, r, c, label, f);
      }
    fputs("unset multiplot\nunset output\n", f);
    /* One PNG per group. */
    fputs("set terminal pngcairo size 900,600 noenhanced font \"sans,11\"\n", f);
    for (size_t r = 0; r < s->nranks; r++)
      for (size_t c = 0; c < s->ncombos; c++) {
        if (!group_has_data(s, rows, r, c)) continue;
        suffix(s, r, c, by_index, sfx, sizeof sfx);
        snprintf(name, sizeof name, "%s%s.png", k->name, sfx);
        if (npng + 1 < cap) (*pngs)[npng++] = a2_sweep_strdup(name);
        a2_sweep_group_label(s, r, c, label, sizeof label);
        snprintf(title, sizeof title, "%s vs message size per rank, %s\nconfig: %s", k->what, label,
                 config);
        fputs("\nset output ", f);
        gp_string(f, name);
        fputc('\n', f);
        plot_group(s, rows, k, r, c, title, f);
        fputs("unset output\n", f);
      }
  }
  if (a2_outfile_commit(o, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  return 0;
}

/* Is there an executable gnuplot on PATH? */
static bool have_gnuplot(void) {
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  char dir[4096];
  while (*path) {
    size_t n = strcspn(path, ":");
    if (n && n + 10 < sizeof dir) {
      memcpy(dir, path, n);
      strcpy(dir + n, "/gnuplot");
      if (!access(dir, X_OK)) return true;
    }
    path += n + (path[n] == ':');
  }
  return false;
}

int a2_sweep_plot(const a2_sweep *s, const a2_sweep_row *rows, int *nplots) {
  char script[4096];
  char **pngs = NULL;
  *nplots = 0;
  if (s->no_size) return 0; /* --m: no size axis to plot along (docs/sweep.md) */
  if (!a2_sweep_path(s, "plot.gp", script, sizeof script))
    return a2_cmd_usage_error("-o", "path too long");
  int rc = write_script(s, rows, script, &pngs);
  if (!rc && !pngs) rc = A2_EXIT_INTERNAL;
  if (!rc && !have_gnuplot()) {
    *nplots = -1;
    fprintf(stderr,
            "a2a3sim: warning: gnuplot not found on PATH: plots skipped (Debian: apt-get install "
            "gnuplot-nox); %s is written: cd %s && gnuplot plot.gp\n",
            script, s->out_dir);
  } else if (!rc && pngs[0]) {
    char *argv[] = {"gnuplot", "plot.gp", NULL};
    a2_procs_buf out = {0}, err = {0};
    int status = 0;
    int got = a2_procs_run_capture(argv, true, s->out_dir, &out, &err, &status);
    if (got > 0) {
      rc = -got;
    } else if (got < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
      size_t n = err.len ? strcspn(err.data, "\n") : 0;
      fprintf(stderr, "a2a3sim: error: gnuplot failed on %s: %.*s\n", script, (int)n,
              n ? err.data : (got < 0 ? strerror(errno) : "no message"));
      rc = A2_EXIT_INTERNAL;
    } else {
      for (char **p = pngs; *p; p++) {
        char png[4096];
        struct stat st;
        if (a2_sweep_path(s, *p, png, sizeof png) && !stat(png, &st) && st.st_size > 0) (*nplots)++;
      }
    }
    free(out.data);
    free(err.data);
  }
  for (char **p = pngs; p && *p; p++) free(*p);
  free(pngs);
  return rc;
}
