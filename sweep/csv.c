/* a2a3sim sweep: DIR/sweep.csv, one row per point in grid order (RFC 4180:
 * a field with a comma, quote or line break is quoted, quotes doubled).
 * Written to a temporary name and renamed, so a reader never sees half. */
#include <errno.h>
#include <string.h>

#include "common/outfile.h"
#include "sweep/sweep.h"

static void field(FILE *f, const char *s, bool last) {
  if (!s) s = "";
  if (strpbrk(s, ",\"\r\n")) {
    fputc('"', f);
    for (const char *p = s; *p; p++) {
      if (*p == '"') fputc('"', f);
      fputc(*p, f);
    }
    fputc('"', f);
  } else {
    fputs(s, f);
  }
  fputc(last ? '\n' : ',', f);
}

int a2_sweep_write_csv(const a2_sweep *s, const a2_sweep_row *rows) {
  char path[4096];
  if (!a2_sweep_path(s, "sweep.csv", path, sizeof path))
    return a2_cmd_usage_error("-o", "path too long");
  a2_outfile *o;
  a2_err e = {0};
  if (a2_outfile_open(path, "the sweep CSV", &o, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  FILE *f = a2_outfile_stream(o);
  fputs("algo,ranks,size_bytes,", f);
  for (size_t a = 0; a < s->naxes; a++) field(f, s->sets[s->axes[a]].key, false);
  fputs(
      "time_ns,algbw_gbps,busbw_gbps,remote_read_bytes_per_rank,remote_write_bytes_per_rank,"
      "barrier_rounds,compute_us,comm_us,sequential_us,exposed_us,overlap_eff,tflops,ok,status,"
      "error\n",
      f);
  for (size_t i = 0; i < s->npoints; i++) {
    const a2_sweep_row *r = &rows[i];
    a2_sweep_coord c = a2_sweep_coord_of(s, i);
    char num[32];
    field(f, s->algos[c.algo], false);
    snprintf(num, sizeof num, "%u", s->ranks[c.rank]);
    field(f, num, false);
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->sizes[c.size]);
    field(f, s->no_size ? "" : num, false);
    for (size_t a = 0; a < s->naxes; a++)
      field(f, a2_sweep_set_value(s, s->axes[a], c.combo), false);
    field(f, r->time_ns, false);
    field(f, r->algbw_gbps, false);
    field(f, r->busbw_gbps, false);
    field(f, r->remote_read, false);
    field(f, r->remote_write, false);
    field(f, r->barrier_rounds, false);
    field(f, r->compute_us, false);
    field(f, r->comm_us, false);
    field(f, r->sequential_us, false);
    field(f, r->exposed_us, false);
    field(f, r->overlap_eff, false);
    field(f, r->tflops, false);
    field(f, r->ok ? "true" : "false", false);
    field(f, r->status, false);
    field(f, r->error, true);
  }
  if (a2_outfile_commit(o, &e)) { /* written whole, or not at all */
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  return 0;
}
