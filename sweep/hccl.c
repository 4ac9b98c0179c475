/* a2a3sim sweep --hccl OP: at every point of the grid the built-in HCCL's
 * rule picks for the operation (collectives/hccl_choose.h, chosen here on
 * the point's config, as `run --algo OP --hccl` chooses), added to the
 * algorithms when --algo lacks it; then a report of its time against the
 * measured best at each size and the points where the two disagree. The
 * plot draws the pick as its own line (plot.c). */
#include <stdlib.h>
#include <string.h>

#include "collectives/hccl_choose.h"
#include "common/outfile.h"
#include "common/units.h"
#include "sweep/sweep.h"

size_t a2_sweep_hccl_index(const a2_sweep *s, size_t rank, size_t size, size_t combo) {
  return (rank * s->nsizes + size) * s->ncombos + combo;
}

static size_t algo_index(a2_sweep *s, const char *name) {
  for (size_t a = 0; a < s->nalgos; a++)
    if (!strcmp(s->algos[a], name)) return a;
  return SIZE_MAX;
}

static int add_algo(a2_sweep *s, const char *name) {
  char **grown = realloc(s->algos, (s->nalgos + 1) * sizeof *grown);
  if (!grown) return 1;
  s->algos = grown;
  s->algos[s->nalgos++] = a2_sweep_strdup(name);
  return 0;
}

int a2_sweep_hccl_prepare(a2_sweep *s) {
  if (!s->algos) { /* the operation's built-ins */
    const char *names[64];
    uint32_t n = a2_hccl_candidates(s->hccl_op, names, 64);
    for (uint32_t i = 0; i < n; i++)
      if (add_algo(s, names[i])) goto oom;
  }
  size_t n = s->nranks * s->nsizes * s->ncombos;
  s->hccl_pick = calloc(n, sizeof *s->hccl_pick);
  s->hccl_exec = calloc(n, sizeof *s->hccl_exec);
  if (!s->hccl_pick || !s->hccl_exec) goto oom;
  a2_config base;
  a2_err e = {0};
  a2_config_default(&base);
  if (s->config_path && a2_config_load(s->config_path, &base, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  for (size_t c = 0; c < s->ncombos; c++) {
    a2_config cfg = base;
    for (size_t i = 0; i < s->nsets; i++)
      if (a2_config_set(&cfg, s->sets[i].key, a2_sweep_set_value(s, i, c), &e)) {
        a2_cmd_error(&e);
        return A2_EXIT_USAGE;
      }
    for (size_t r = 0; r < s->nranks; r++)
      for (size_t z = 0; z < s->nsizes; z++) {
        a2_coll_params p = {0}; /* what `run` passes by default */
        p.nranks = s->ranks[r];
        p.size_bytes = s->sizes[z];
        p.cores = 1;
        p.op = A2_RED_SUM;
        p.dtype = A2_FP32;
        p.ub_bytes = cfg.ub_bytes;
        a2_hccl_choice ch;
        if (a2_hccl_choose(s->hccl_op, &cfg, (a2_hccl_device)s->hccl_device, 0, &p, NULL, &ch,
                           &e)) {
          a2_cmd_error(&e);
          return A2_EXIT_USAGE;
        }
        size_t a = algo_index(s, ch.algo);
        if (a == SIZE_MAX) {
          if (add_algo(s, ch.algo)) goto oom;
          a = s->nalgos - 1;
        }
        size_t k = a2_sweep_hccl_index(s, r, z, c);
        s->hccl_pick[k] = a;
        if (!(s->hccl_exec[k] = a2_sweep_strdup(ch.hccl))) goto oom;
      }
  }
  return 0;
oom:
  fprintf(stderr, "a2a3sim: error: sweep: out of memory\n");
  return A2_EXIT_INTERNAL;
}

static const a2_sweep_row *ok_row(const a2_sweep *s, const a2_sweep_row *rows, size_t algo,
                                  size_t rank, size_t size, size_t combo) {
  const a2_sweep_row *r = &rows[a2_sweep_point_of(s, (a2_sweep_coord){algo, rank, size, combo})];
  return r->ran && r->ok && r->time_ns ? r : NULL;
}

/* the fastest OK algorithm at one point (a tie goes to the first), SIZE_MAX: none */
static size_t fastest(const a2_sweep *s, const a2_sweep_row *rows, size_t rank, size_t size,
                      size_t combo) {
  size_t best = SIZE_MAX;
  for (size_t a = 0; a < s->nalgos; a++) {
    const a2_sweep_row *r = ok_row(s, rows, a, rank, size, combo);
    if (r && (best == SIZE_MAX || r->time_ps < ok_row(s, rows, best, rank, size, combo)->time_ps))
      best = a;
  }
  return best;
}

void a2_sweep_hccl_report(const a2_sweep *s, const a2_sweep_row *rows, FILE *out) {
  char label[1024], q[32];
  fprintf(out,
          "HCCL's choice for %s (--hccl-device %s) against the measured best (least simulated "
          "time of the algorithms swept; miss = how much slower HCCL's choice is)\n",
          s->hccl_op, s->hccl_device ? "a3" : "a2");
  size_t ndis = 0, npts = 0;
  for (size_t r = 0; r < s->nranks; r++)
    for (size_t c = 0; c < s->ncombos; c++) {
      a2_sweep_group_label(s, r, c, label, sizeof label);
      fprintf(out, "\n%s\n  %-10s  %-26s %11s  %-26s %11s  %8s\n", label, "size", "HCCL picks",
              "time (us)", "measured best", "time (us)", "miss");
      for (size_t z = 0; z < s->nsizes; z++) {
        size_t pick = s->hccl_pick[a2_sweep_hccl_index(s, r, z, c)];
        size_t best = fastest(s, rows, r, z, c);
        const a2_sweep_row *pr = ok_row(s, rows, pick, r, z, c);
        a2_format_quantity(s->sizes[z], A2_UNIT_BYTES, q, sizeof q);
        fprintf(out, "  %-10s  %-26s ", q, s->algos[pick]);
        if (pr)
          fprintf(out, "%11.3f  ", (double)pr->time_ps / 1e6);
        else
          fprintf(out, "%11s  ", "not OK");
        if (best == SIZE_MAX) {
          fprintf(out, "%-26s\n", "(none ran OK)");
          continue;
        }
        const a2_sweep_row *br = ok_row(s, rows, best, r, z, c);
        fprintf(out, "%-26s %11.3f  ", s->algos[best], (double)br->time_ps / 1e6);
        npts++;
        if (pr && pr->time_ps == br->time_ps)
          fprintf(out, "%8s\n", "0");
        else if (pr)
          fprintf(out, "%+7.1f%%\n", 100.0 * ((double)pr->time_ps / (double)br->time_ps - 1));
        else
          fprintf(out, "%8s\n", "-");
        if (!pr || pr->time_ps != br->time_ps) ndis++;
      }
    }
  fprintf(out, "\nwhere the rule and the measurement disagree (%zu of %zu points):\n", ndis, npts);
  for (size_t r = 0; r < s->nranks; r++)
    for (size_t c = 0; c < s->ncombos; c++)
      for (size_t z = 0; z < s->nsizes; z++) {
        size_t k = a2_sweep_hccl_index(s, r, z, c), pick = s->hccl_pick[k];
        size_t best = fastest(s, rows, r, z, c);
        if (best == SIZE_MAX) continue;
        const a2_sweep_row *pr = ok_row(s, rows, pick, r, z, c),
                           *br = ok_row(s, rows, best, r, z, c);
        if (pr && pr->time_ps == br->time_ps) continue;
        a2_sweep_group_label(s, r, c, label, sizeof label);
        a2_format_quantity(s->sizes[z], A2_UNIT_BYTES, q, sizeof q);
        fprintf(out, "%s, %s: HCCL picks %s (%s), measured best %s, ", label, q, s->algos[pick],
                s->hccl_exec[k], s->algos[best]);
        if (pr)
          fprintf(out, "%+.1f %% (%.3f us vs %.3f us)\n",
                  100.0 * ((double)pr->time_ps / (double)br->time_ps - 1),
                  (double)pr->time_ps / 1e6, (double)br->time_ps / 1e6);
        else
          fprintf(out, "HCCL's pick did not run OK\n");
      }
  if (!ndis) fprintf(out, "(none: HCCL's pick is the measured best at every point)\n");
}

int a2_sweep_hccl_write(const a2_sweep *s, const a2_sweep_row *rows) {
  if (!s->hccl_op) return 0;
  char path[4096];
  if (!a2_sweep_path(s, "hccl.txt", path, sizeof path))
    return a2_cmd_usage_error("-o", "path too long");
  a2_outfile *o;
  a2_err e = {0};
  if (a2_outfile_open(path, "HCCL's choice", &o, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  a2_sweep_hccl_report(s, rows, a2_outfile_stream(o));
  if (a2_outfile_commit(o, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  fputc('\n', stdout);
  a2_sweep_hccl_report(s, rows, stdout);
  return 0;
}
