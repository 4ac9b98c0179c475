/* The two views of a run: a short text summary and one JSON object
 * (keys documented in docs/output.md). JSON is written with yajl so that
 * escaping is never hand-made; numbers are pre-formatted for stable bytes. */
#include <math.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "noc/topology.h"

typedef struct {
  uint64_t read, write, rounds;
} measured;

static measured measure(const a2_run_result *r) {
  measured m = {0, 0, 0};
  for (uint32_t q = 0; q < r->nranks; q++) {
    const a2_rank_stats *s = a2_sim_rank_stats(r->sim, q);
    if (s->remote_read_bytes > m.read) m.read = s->remote_read_bytes;
    if (s->remote_write_bytes > m.write) m.write = s->remote_write_bytes;
    if (s->barrier_rounds > m.rounds) m.rounds = s->barrier_rounds;
  }
  return m;
}

/* algbw in GB/s (10^9 B/s): S bytes over t ps. */
static double algbw(const a2_run_result *r) {
  if (r->status != A2_RUN_DONE) return NAN; /* an unfinished run has no bandwidth */
  if (!r->time_ps) return 0;
  double S = r->desc.size_factor * (double)r->desc.size_bytes;
  return S * 1000.0 / (double)r->time_ps;
}

static const char *verdict(const a2_run_result *r) {
  if (r->unrouted) return "UNROUTED";
  if (r->status == A2_RUN_DEADLOCK) return "DEADLOCK";
  if (r->status == A2_RUN_TIME_LIMIT) return "TIMEOUT";
  if (r->status == A2_RUN_EVENT_LIMIT) return "EVENT_LIMIT";
  if (!r->check.ok) return "FAIL";
  return r->races ? "RACE" : "OK";
}

static void ratio_cell(char *out, size_t n, double got, double want) {
  if (want == 0)
    snprintf(out, n, "%s", got == 0 ? "-" : "inf");
  else
    snprintf(out, n, "%.4f", got / want);
}

static double util(const a2_run_result *r, const a2_stage_info *si) {
  return r->time_ps ? (double)si->busy_ps / (double)r->time_ps : 0;
}

/* The three busiest links, the busiest HBM and the rank that finished last
 * (the end of the critical path). */
static void print_utilisation(const a2_run_result *r, FILE *out) {
  uint32_t n = a2_sim_stage_count(r->sim), top[3] = {0, 0, 0}, ntop = 0, hbm = UINT32_MAX;
  uint64_t top_busy[3] = {0, 0, 0}, hbm_busy = 0;
  a2_stage_info si;
  for (uint32_t i = 0; i < n; i++) {
    a2_sim_stage_info(r->sim, i, &si);
    if (!strcmp(si.kind, "hbm") && si.busy_ps > hbm_busy) {
      hbm_busy = si.busy_ps;
      hbm = i;
    }
    if (strcmp(si.kind, "link") || !si.busy_ps) continue;
    uint32_t at = ntop < 3 ? ntop++ : 3;
    while (at > 0 && top_busy[at - 1] < si.busy_ps) { /* insertion, stable for ties */
      if (at < 3) {
        top[at] = top[at - 1];
        top_busy[at] = top_busy[at - 1];
      }
      at--;
    }
    if (at < 3) {
      top[at] = i;
      top_busy[at] = si.busy_ps;
    }
  }
  for (uint32_t i = 0; i < ntop; i++) {
    a2_sim_stage_info(r->sim, top[i], &si);
    char from[16], to[16];
    snprintf(from, sizeof from, si.a < 0 ? "switch" : "npu%d", si.a);
    snprintf(to, sizeof to, si.b < 0 ? "switch" : "npu%d", si.b);
    fprintf(out, "%s link %s->%s: %llu B, busy %.3f us, utilisation %.1f %%\n",
            i ? "         " : "busiest:", from, to, (unsigned long long)si.bytes,
            (double)si.busy_ps / 1e6, 100 * util(r, &si));
  }
  if (hbm != UINT32_MAX) {
    a2_sim_stage_info(r->sim, hbm, &si);
    fprintf(out, "busiest HBM: rank %d: %llu B, busy %.3f us, utilisation %.1f %%\n", si.a,
            (unsigned long long)si.bytes, (double)si.busy_ps / 1e6, 100 * util(r, &si));
  }
  uint32_t last = 0;
  for (uint32_t q = 1; q < r->nranks; q++)
    if (a2_sim_rank_stats(r->sim, q)->end_ps > a2_sim_rank_stats(r->sim, last)->end_ps) last = q;
  fprintf(out, "critical path ends on rank %u\n", last);
}

void a2_report_text(const a2_run_result *r, FILE *out) {
  const a2_config *c = &r->cfg;
  measured m = measure(r);
  double bw = algbw(r), bus = bw * r->desc.busbw_factor;
  fprintf(out, "%s", r->desc.name);
  for (size_t i = 0; i < r->desc.nparams; i++)
    fprintf(out, "%s%s=%lld%s", i ? " " : " (param ", r->desc.params[i].name,
            (long long)r->desc.params[i].value, i + 1 == r->desc.nparams ? ")" : "");
  if (c->topology == A2_TOPO_LEVELS) {
    /* each level: its name, group size in NPUs, port or link rate, latency */
    fprintf(out, ": P=%u N=%llu B on %s (levels", r->nranks, (unsigned long long)r->desc.size_bytes,
            r->config_name);
    for (uint32_t i = 0; i < c->nlevels; i++)
      fprintf(out, "%s %s x%u %.4g GB/s %.4g ns", i ? ";" : "", c->levels[i].name,
              a2_config_group_ranks(c, i), (double)c->levels[i].bw / 1e9,
              (double)(c->levels[i].lat_ps + c->levels[i].switch_lat_ps) / 1e3);
    fprintf(out, ")\n");
  } else {
    fprintf(out, ": P=%u N=%llu B on %s (%s, link %.4g GB/s, %.4g ns)\n", r->nranks,
            (unsigned long long)r->desc.size_bytes, r->config_name, a2_topo_name(c->topology),
            (double)c->link_bw / 1e9, (double)c->link_lat_ps / 1e3);
  }
  if (r->ranks_grown_from)
    fprintf(out,
            "note: the %s grown from the config's %u NPUs to %u for --ranks %u "
            "(interconnect.ranks=%u)\n",
            a2_topo_name(c->topology), r->ranks_grown_from, c->ranks, r->nranks, c->ranks);
  fprintf(out, "%s", verdict(r));
  if (r->no_data) fprintf(out, "  (timing-only: no data moved, result not checked)");
  if (r->check.checked)
    fprintf(out, "  (%llu elements checked, %llu mismatches)",
            (unsigned long long)r->check.elements, (unsigned long long)r->check.mismatches);
  fputc('\n', out);
  for (uint32_t i = 0; i < r->check.nshow; i++)
    fprintf(out, "  mismatch: rank %u index %llu got %.9g want %.9g\n", r->check.show[i].rank,
            (unsigned long long)r->check.show[i].index, r->check.show[i].got,
            r->check.show[i].want);
  if (r->status == A2_RUN_DONE)
    fprintf(out, "time %.3f us   algbw %.3f GB/s   busbw %.3f GB/s\n", (double)r->time_ps / 1e6, bw,
            bus);
  else
    fprintf(out, "time %.3f us when stopped (no bandwidth: the run did not finish)\n",
            (double)r->time_ps / 1e6);
  char ra[32], wa[32], ba[32], ta[32], ar[32], aw[32], ab[32];
  ratio_cell(ra, sizeof ra, (double)m.read, r->desc.card.remote_read_bytes);
  ratio_cell(wa, sizeof wa, (double)m.write, r->desc.card.remote_write_bytes);
  ratio_cell(ba, sizeof ba, (double)m.rounds, (double)r->desc.card.barrier_rounds);
  ratio_cell(ta, sizeof ta, (double)r->time_ps, (double)r->desc.closed_form_ps);
  snprintf(ar, sizeof ar, "%.0f", r->desc.card.remote_read_bytes);
  snprintf(aw, sizeof aw, "%.0f", r->desc.card.remote_write_bytes);
  snprintf(ab, sizeof ab, "%llu", (unsigned long long)r->desc.card.barrier_rounds);
  if (!r->desc.has_card) /* no analytic card (a file without a `builtin` or `card` line) */
    for (char *cell[] = {ra, wa, ba, ar, aw, ab}, **c = cell; c < cell + 6; c++) strcpy(*c, "-");
  fprintf(out, "cost card (per rank)     measured        analytic   measured/analytic\n");
  fprintf(out, "  remote read bytes  %14llu  %14s   %s\n", (unsigned long long)m.read, ar, ra);
  fprintf(out, "  remote write bytes %14llu  %14s   %s\n", (unsigned long long)m.write, aw, wa);
  fprintf(out, "  barrier rounds     %14llu  %14s   %s\n", (unsigned long long)m.rounds, ab, ba);
  if (r->desc.closed_form_ps)
    fprintf(out, "  time (ns)          %14.3f  %14.3f   %s   (closed form, uncontended)\n",
            (double)r->time_ps / 1e3, (double)r->desc.closed_form_ps / 1e3, ta);
  if (r->desc.hccl_ps >= 0) {
    const a2_abg *a = &r->desc.abg;
    char ha[32];
    ratio_cell(ha, sizeof ha, (double)r->time_ps, r->desc.hccl_ps);
    fprintf(out, "  time (ns)          %14.3f  %14.3f   %s   (HCCL alpha-beta-gamma)\n",
            (double)r->time_ps / 1e3, r->desc.hccl_ps / 1e3, ha);
    fprintf(out, "    %s\n    alpha %.1f ns, beta %.2f ps/B, gamma %.3f ps/B%s\n",
            r->desc.hccl_formula, a->alpha_ps / 1e3, a->beta_ps, a->gamma_ps,
            a->inter ? " (across servers: the NIC path)" : "");
  }
  if (r->status == A2_RUN_DONE)
    a2_overlap_text(&r->overlap, r->time_ps, a2_overlap_compute_in(r->sim, r->nranks), out);
  print_utilisation(r, out);
  fprintf(out, "per rank: rank  time_ns  remote_read  remote_write  remote_ops  notifies  waits\n");
  for (uint32_t q = 0; q < r->nranks; q++) {
    const a2_rank_stats *s = a2_sim_rank_stats(r->sim, q);
    fprintf(out, "          %4u %9.3f %12llu %13llu %11llu %9llu %6llu\n", q,
            (double)s->end_ps / 1e3, (unsigned long long)s->remote_read_bytes,
            (unsigned long long)s->remote_write_bytes, (unsigned long long)s->remote_ops,
            (unsigned long long)s->notifies, (unsigned long long)s->waits);
  }
}

/* ---- JSON ---- */

static void key(yajl_gen g, const char *k) {
  yajl_gen_string(g, (const unsigned char *)k, strlen(k));
}
static void kstr(yajl_gen g, const char *k, const char *v) {
  key(g, k);
  yajl_gen_string(g, (const unsigned char *)v, strlen(v));
}
static void kint(yajl_gen g, const char *k, uint64_t v) {
  char b[32];
  int n = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
  key(g, k);
  yajl_gen_number(g, b, (size_t)n);
}
/* Fixed formats keep output byte-identical across runs and machines. */
static void kfix(yajl_gen g, const char *k, double v, int decimals) {
  char b[400];
  key(g, k);
  if (!isfinite(v)) { /* JSON has no inf / nan (an fp16 overflow, say) */
    yajl_gen_null(g);
    return;
  }
  int n = snprintf(b, sizeof b, "%.*f", decimals, v);
  yajl_gen_number(g, b, (size_t)n);
}
static void kbool(yajl_gen g, const char *k, int v) {
  key(g, k);
  yajl_gen_bool(g, v);
}
static void kratio(yajl_gen g, const char *k, double got, double want) {
  if (want == 0) {
    key(g, k);
    yajl_gen_null(g);
  } else {
    kfix(g, k, got / want, 6);
  }
}

/* Per link (that moved anything) and per HBM: bytes, busy time, utilisation. */
/* "overlap": the overlap card of a fused built-in (null for the others). */
static void json_overlap(yajl_gen g, const a2_run_result *r) {
  const a2_overlap *ov = &r->overlap;
  key(g, "overlap");
  if (!ov->valid || r->status != A2_RUN_DONE) {
    yajl_gen_null(g);
    return;
  }
  double comp = (double)ov->compute_ps, comm = (double)ov->comm_ps, pipe = (double)r->time_ps;
  double seq = comp + comm;
  yajl_gen_map_open(g);
  kint(g, "compute_only_ps", ov->compute_ps);
  kint(g, "comm_only_ps", ov->comm_ps);
  kint(g, "sequential_ps", ov->compute_ps + ov->comm_ps);
  kint(g, "pipelined_ps", r->time_ps);
  kint(g, "compute_in_pipelined_ps", a2_overlap_compute_in(r->sim, r->nranks));
  kfix(g, "exposed_comm_ps", pipe - comp, 0);
  kfix(g, "hidden_comm_ps", seq - pipe, 0);
  kfix(g, "overlap_efficiency", comm > 0 ? (seq - pipe) / comm : 0.0, 6);
  kfix(g, "flops", ov->flops, 0);
  kfix(g, "tflops", pipe > 0 ? ov->flops / (pipe * 1e-12) / 1e12 : 0.0, 6);
  yajl_gen_map_close(g);
}

static void json_stages(yajl_gen g, const a2_run_result *r) {
  static const char *const groups[] = {"links", "hbm"};
  a2_stage_info si;
  for (int gi = 0; gi < 2; gi++) {
    key(g, groups[gi]);
    yajl_gen_array_open(g);
    for (uint32_t i = 0; i < a2_sim_stage_count(r->sim); i++) {
      a2_sim_stage_info(r->sim, i, &si);
      if (strcmp(si.kind, gi ? "hbm" : "link") || (!gi && !si.bytes)) continue;
      yajl_gen_map_open(g);
      if (gi) {
        kint(g, "rank", (uint64_t)si.a);
      } else {
        key(g, "from");
        yajl_gen_integer(g, si.a);
        key(g, "to");
        yajl_gen_integer(g, si.b);
      }
      kint(g, "bytes", si.bytes);
      kint(g, "busy_ps", si.busy_ps);
      kfix(g, "utilization", util(r, &si), 6);
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
  }
}

void a2_report_json(const a2_run_result *r, FILE *out) {
  yajl_gen g = yajl_gen_alloc(NULL);
  yajl_gen_config(g, yajl_gen_beautify, 1);
  yajl_gen_config(g, yajl_gen_indent_string, "  ");
  measured m = measure(r);
  double bw = algbw(r);
  yajl_gen_map_open(g);
  kbool(g, "ok", r->status == A2_RUN_DONE && r->check.ok && !r->races && !r->unrouted);
  kstr(g, "status", verdict(r));
  kstr(g, "mode", r->no_data ? "timing-only" : "functional");
  kstr(g, "algo", r->desc.name);
  if (r->desc.nparams) { /* only for a program file run with --param */
    key(g, "params");
    yajl_gen_map_open(g);
    for (size_t i = 0; i < r->desc.nparams; i++) {
      key(g, r->desc.params[i].name);
      yajl_gen_integer(g, r->desc.params[i].value);
    }
    yajl_gen_map_close(g);
  }
  kint(g, "ranks", r->nranks);
  kint(g, "size_bytes", r->desc.size_bytes);
  kstr(g, "dtype", a2_dtype_name(r->k->dtype));
  kstr(g, "config", r->config_name);
  kstr(g, "topology", a2_topo_name(r->cfg.topology));
  kint(g, "interconnect_ranks", r->cfg.ranks);
  if (r->ranks_grown_from) kint(g, "interconnect_ranks_grown_from", r->ranks_grown_from);
  kint(g, "time_ps", r->time_ps);
  kfix(g, "time_ns", (double)r->time_ps / 1e3, 3);
  kfix(g, "algbw_gbps", bw, 6);
  kfix(g, "busbw_gbps", bw * r->desc.busbw_factor, 6);
  key(g, "check");
  yajl_gen_map_open(g);
  kbool(g, "checked", r->check.checked);
  kint(g, "elements", r->check.elements);
  kint(g, "mismatches", r->check.mismatches);
  key(g, "first_mismatches");
  yajl_gen_array_open(g);
  for (uint32_t i = 0; i < r->check.nshow; i++) {
    yajl_gen_map_open(g);
    kint(g, "rank", r->check.show[i].rank);
    kint(g, "index", r->check.show[i].index);
    kfix(g, "got", r->check.show[i].got, 6);
    kfix(g, "want", r->check.show[i].want, 6);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  yajl_gen_map_close(g);
  key(g, "race_check");
  yajl_gen_map_open(g);
  kbool(g, "checked", r->race_checked);
  kbool(g, "abandoned", r->race_abandoned);
  kint(g, "races", r->races);
  yajl_gen_map_close(g);
  key(g, "per_rank");
  yajl_gen_array_open(g);
  for (uint32_t q = 0; q < r->nranks; q++) {
    const a2_rank_stats *s = a2_sim_rank_stats(r->sim, q);
    yajl_gen_map_open(g);
    kint(g, "rank", q);
    kint(g, "remote_read_bytes", s->remote_read_bytes);
    kint(g, "remote_write_bytes", s->remote_write_bytes);
    kint(g, "remote_ops", s->remote_ops);
    kint(g, "notifies", s->notifies);
    kint(g, "waits", s->waits);
    kint(g, "barrier_rounds", s->barrier_rounds);
    kint(g, "time_ps", s->end_ps);
    kfix(g, "time_ns", (double)s->end_ps / 1e3, 3);
    yajl_gen_map_close(g);
  }
  yajl_gen_array_close(g);
  key(g, "measured");
  yajl_gen_map_open(g);
  kint(g, "remote_read_bytes_per_rank", m.read);
  kint(g, "remote_write_bytes_per_rank", m.write);
  kint(g, "barrier_rounds", m.rounds);
  yajl_gen_map_close(g);
  /* without a card the card's keys are left out, not claimed as 0 */
  bool card = r->desc.has_card;
  key(g, "analytic");
  yajl_gen_map_open(g);
  if (card) {
    kfix(g, "remote_read_bytes_per_rank", r->desc.card.remote_read_bytes, 3);
    kfix(g, "remote_write_bytes_per_rank", r->desc.card.remote_write_bytes, 3);
    kint(g, "barrier_rounds", r->desc.card.barrier_rounds);
  }
  key(g, "time_ps");
  if (r->desc.closed_form_ps)
    yajl_gen_integer(g, (long long)r->desc.closed_form_ps);
  else
    yajl_gen_null(g);
  yajl_gen_map_close(g);
  key(g, "ratio");
  yajl_gen_map_open(g);
  if (card) {
    kratio(g, "remote_read_bytes_per_rank", (double)m.read, r->desc.card.remote_read_bytes);
    kratio(g, "remote_write_bytes_per_rank", (double)m.write, r->desc.card.remote_write_bytes);
    kratio(g, "barrier_rounds", (double)m.rounds, (double)r->desc.card.barrier_rounds);
  }
  kratio(g, "time", (double)r->time_ps, (double)r->desc.closed_form_ps);
  yajl_gen_map_close(g);
  key(g, "hccl_cost");
  if (r->desc.hccl_ps >= 0) {
    yajl_gen_map_open(g);
    kfix(g, "time_ps", r->desc.hccl_ps, 0);
    kfix(g, "alpha_ps", r->desc.abg.alpha_ps, 3);
    kfix(g, "beta_ps_per_byte", r->desc.abg.beta_ps, 6);
    kfix(g, "gamma_ps_per_byte", r->desc.abg.gamma_ps, 6);
    kbool(g, "across_servers", r->desc.abg.inter);
    kratio(g, "ratio", (double)r->time_ps, r->desc.hccl_ps);
    yajl_gen_map_close(g);
  } else {
    yajl_gen_null(g);
  }
  json_stages(g, r);
  json_overlap(g, r);
  kint(g, "kernel_activations", a2_sim_activations(r->sim));
  yajl_gen_map_close(g);
  a2_json_finish(g, out, false);
}

void a2_json_finish(yajl_gen g, FILE *out, bool newline) {
  const unsigned char *buf;
  size_t len;
  yajl_gen_get_buf(g, &buf, &len);
  fwrite(buf, 1, len, out);
  if (newline) fputc('\n', out);
  yajl_gen_free(g);
}
