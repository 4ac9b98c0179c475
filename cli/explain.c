/* `run --algo allreduce` (or --algo OP --hccl for the other operations):
 * the built-in HCCL would choose (collectives/hccl_choose.h), and with
 * --explain the rule that chose it, every candidate measured on the same
 * config and how far HCCL's choice is from the measured best. */
#include <string.h>

#include "cli/cli.h"
#include "procs/procs.h"

/* One candidate, run quietly: its time and whether it was OK. */
static int measure_here(const a2_run_opts *o, const a2_config *cfg, const char *algo,
                        uint64_t *t_ps, bool *ok, double *hccl_ps) {
  a2_run_opts c = *o;
  c.algo = algo;
  a2_err e = {0};
  a2_quiet_run r;
  *ok = false;
  const a2_collective *coll = a2_collective_find(algo);
  a2_coll_params p = a2_run_coll_params(o, cfg);
  if (!coll || (coll->check && coll->check(&p, &e))) return 1; /* cannot run here */
  if (a2_run_quietly(&c, cfg, &r, &e)) return 1;
  *t_ps = r.end_ps;
  *ok = r.passed;
  *hccl_ps = r.hccl_ps;
  return 0;
}

typedef struct {
  const a2_run_opts *o;
  const a2_config *cfg;
  const char *algo;
} measure_args;

typedef struct {
  bool ok;
  uint64_t t_ps;
  double hccl_ps;
} outcome;

static int measure_child(void *ctx, void *out) {
  const measure_args *a = ctx;
  outcome *r = out;
  return measure_here(a->o, a->cfg, a->algo, &r->t_ps, &r->ok, &r->hccl_ps);
}

/* measure_here in a child process: a simulation's time and state belong to
 * the process (the event kernel), so each candidate gets a fresh one and
 * the chosen run after them starts from zero too. */
static int measure(const a2_run_opts *o, const a2_config *cfg, const char *algo, uint64_t *t_ps,
                   bool *ok, double *hccl_ps) {
  measure_args a = {o, cfg, algo};
  outcome r = {false, 0, -1};
  int rc = a2_procs_call(measure_child, &a, &r, sizeof r);
  if (rc < 0) return 1;
  *t_ps = r.t_ps;
  *ok = r.ok;
  *hccl_ps = r.hccl_ps;
  return rc;
}

int a2_cli_choose(a2_run_opts *o, const a2_config *cfg, FILE *out) {
  a2_coll_params p = a2_run_coll_params(o, cfg);
  a2_hccl_choice ch;
  a2_err e = {0};
  const char *op = o->algo;
  unsigned mode =
      (o->hccl_aiv ? A2_HCCL_AIV : 0u) | (o->hccl_deterministic ? A2_HCCL_DETERMINISTIC : 0u);
  if (a2_hccl_choose(op, cfg, (a2_hccl_device)o->hccl_device, mode, &p, o->hccl_algo, &ch, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  a2_run_opts given = *o; /* the candidates run at the --cores given */
  o->algo = ch.algo;
  if (ch.cores) o->cores = ch.cores; /* an AIV executor's vector cores */
  if (!o->explain) return 0;
  char on[32] = "";
  if (ch.cores) snprintf(on, sizeof on, " --cores %u", ch.cores);
  fprintf(out, "HCCL picks %s%s: %s [%s] (%s)\n", ch.algo, on, ch.hccl, ch.source, ch.why);
  fprintf(out, "candidates (P=%u, N=%llu B, --hccl-device %s%s%s):\n", o->nranks,
          (unsigned long long)o->size_bytes, o->hccl_device ? "a3" : "a2",
          o->hccl_aiv ? ", --hccl-aiv" : "", o->hccl_deterministic ? ", --hccl-deterministic" : "");
  fprintf(out, "  %-22s %14s %14s  %s\n", "built-in", "measured_us", "hccl_abg_us", "status");
  const char *best = NULL;
  uint64_t best_t = 0, chosen_t = 0;
  const char *cands[64];
  uint32_t ncand = a2_hccl_candidates(op, cands, 64);
  for (const char *const *n = cands; n < cands + ncand; n++) {
    uint64_t t = 0;
    bool ok = false;
    double h = -1;
    bool chosen = !strcmp(*n, ch.algo);
    if (measure(chosen ? o : &given, cfg, *n, &t, &ok, &h)) {
      fprintf(out, "  %-22s %14s %14s  cannot run this P or size\n", *n, "-", "-");
      continue;
    }
    char abg[32] = "-";
    if (h >= 0) snprintf(abg, sizeof abg, "%.3f", h / 1e6);
    fprintf(out, "  %-22s %14.3f %14s  %s%s%s\n", *n, (double)t / 1e6, abg, ok ? "OK" : "not OK",
            chosen ? "  <- HCCL's choice" : "", chosen ? on : "");
    if (!ok) continue;
    if (!best || t < best_t) best = *n, best_t = t;
    if (!strcmp(*n, ch.algo)) chosen_t = t;
  }
  if (best && chosen_t) {
    if (!strcmp(best, ch.algo))
      fprintf(out, "measured best %s: HCCL's choice is the fastest built-in\n", best);
    else
      fprintf(out, "measured best %s, %.3f us: HCCL's choice %s is %+.1f %% slower\n", best,
              (double)best_t / 1e6, ch.algo, 100.0 * ((double)chosen_t / (double)best_t - 1));
  }
  fputc('\n', out);
  return 0;
}
