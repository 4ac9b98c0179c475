/* --job: several collectives at once on disjoint NPU sets of one fabric
 * (docs/cli.md, "Several jobs"). Each job's program is generated alone; the
 * combined program gives every job its own ranks, buffers and tiles (its
 * instructions renumbered on the fly) and each rank the start time of its
 * job. Each job runs alone (a child process each: a process runs one
 * simulation), then all together; the report gives each job's time alone,
 * together and the slowdown. Timing-only: there is one golden per program. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "common/units.h"
#include "noc/topology.h"
#include "procs/procs.h"

typedef struct {
  const char *spec;
  const char *file;       /* the config file of a `jobs:` entry; NULL: a --job flag */
  const a2_config_job *y; /* that entry (its fields' places, for errors) */
  char algo[A2_NAME_MAX];
  uint32_t *npus, n; /* its NPUs, in rank order */
  uint64_t size, start_ps;
  uint32_t cores;
  a2_program k;
  uint32_t off, boff, toff; /* its first rank, buffer and tile in the combined program */
  uint64_t alone_ps, together_ps;
  char (*names)[96]; /* timeline process names of its ranks */
} job;

/* The combined program's source: each (rank, core) from its job's. */
typedef struct {
  a2_source base;
  job *jobs;
  uint32_t nin;
  int active; /* -1: every job runs; else only that one (the others' ranks idle) */
} combined_source;

static void remap(const job *j, a2_instr *v) {
  switch (v->op) {
  case A2_OP_LOAD:
  case A2_OP_STORE:
    v->buf += j->boff;
    v->tile += j->toff;
    break;
  case A2_OP_RLOAD:
  case A2_OP_RSTORE:
    v->buf += j->boff;
    v->tile += j->toff;
    v->peer += (int32_t)j->off;
    break;
  case A2_OP_NOTIFY:
    v->buf += j->boff;
    v->peer += (int32_t)j->off;
    break;
  case A2_OP_WAIT: v->buf += j->boff; break;
  case A2_OP_VADD:
  case A2_OP_VMAX:
  case A2_OP_VMIN:
  case A2_OP_VMUL:
    v->tile += j->toff;
    v->tile_a += j->toff;
    v->tile_b += j->toff;
    break;
  case A2_OP_PUT:
  case A2_OP_GET:
    v->buf += j->boff;
    v->buf2 += j->boff;
    v->peer += (int32_t)j->off;
    break;
  default: break;
  }
}

static a2_code combined_fill(a2_source *src, uint32_t rank, uint32_t core, a2_instrs *out,
                             a2_err *err) {
  combined_source *cs = (combined_source *)src;
  for (uint32_t i = 0; i < cs->nin; i++) {
    job *j = &cs->jobs[i];
    if (rank < j->off || rank >= j->off + j->n) continue;
    if (core >= j->k.ncores || (cs->active >= 0 && (uint32_t)cs->active != i))
      return A2_OK; /* nothing: that core is idle */
    uint32_t n0 = out->n;
    a2_code rc = j->k.source->fill(j->k.source, rank - j->off, core, out, err);
    for (uint32_t x = n0; x < out->n; x++) remap(j, &out->v[x]);
    return rc;
  }
  return a2_err_set(err, A2_E_INTERNAL, NULL, 0, 0, "rank %u is in no job", rank);
}

/* ---- parsing ---- */

/* An error about job idx: after its --job flag, or at its field's place in
 * the config's `jobs:` (field < 0 or not given: the entry's). */
static int field_error(const job *j, int idx, int field, const char *what) {
  if (!j->y) return a2_cmd_usage_error("--job", "job %d '%s': %s", idx + 1, j->spec, what);
  const a2_config_job *y = j->y;
  int given = field >= 0 && y->fline[field];
  a2_err e = {0};
  a2_err_set(&e, A2_E_INPUT, j->file, given ? y->fline[field] : y->line,
             given ? y->fcol[field] : y->col, "jobs[%d]: %s", idx, what);
  a2_cmd_error(&e);
  return A2_EXIT_USAGE;
}

/* The field a message is about: its leading name ("ranks: ..."), else -1. */
static int field_of(const char *what) {
  static const char *const names[A2_JOB_NFIELDS] = {"algo", "ranks", "size", "start", "cores"};
  for (int f = 0; f < A2_JOB_NFIELDS; f++) {
    size_t n = strlen(names[f]);
    if (!strncmp(what, names[f], n) && (what[n] == ':' || what[n] == '=' || what[n] == ' '))
      return f;
  }
  return -1;
}

static int job_error(const job *j, int idx, const char *what) {
  return field_error(j, idx, field_of(what), what);
}

/* ranks=A-B, A, or several joined by '+': 0-3+8-11 */
static int parse_npus(int idx, const char *v, job *j) {
  uint32_t cap = 0;
  const char *p = v;
  while (*p) {
    char *e;
    errno = 0;
    unsigned long a = strtoul(p, &e, 10), b = a;
    if (e == p || errno || a > 1048575)
      return job_error(j, idx, "ranks: expected NPUs such as 0-3 or 0-3+8-11");
    if (*e == '-') {
      const char *q = e + 1;
      b = strtoul(q, &e, 10);
      if (e == q || errno || b < a || b > 1048575)
        return job_error(j, idx, "ranks: expected A-B with A <= B, such as 0-3");
    }
    if (*e && *e != '+') return job_error(j, idx, "ranks: expected NPUs such as 0-3 or 0-3+8-11");
    for (unsigned long x = a; x <= b; x++) {
      if (j->n == cap) {
        cap = cap ? 2 * cap : 16;
        uint32_t *nv = realloc(j->npus, cap * sizeof *nv);
        if (!nv) return a2_cmd_oom_error("--job", "job %d: out of memory for its ranks", idx + 1);
        j->npus = nv;
      }
      j->npus[j->n++] = (uint32_t)x;
    }
    p = *e ? e + 1 : e;
  }
  return 0;
}

static int parse_job(int idx, const char *spec, const a2_run_opts *o, job *j, const char *file,
                     const a2_config_job *y) {
  memset(j, 0, sizeof *j);
  j->spec = spec;
  j->file = file;
  j->y = y;
  j->size = o->size_bytes;
  j->cores = o->cores;
  char buf[512];
  if (strlen(spec) >= sizeof buf) return job_error(j, idx, "too long");
  strcpy(buf, spec);
  char *save = NULL;
  for (char *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(f, '=');
    if (!eq) return job_error(j, idx, "expected KEY=VALUE fields: algo, ranks, size, start, cores");
    *eq = 0;
    const char *v = eq + 1;
    char why[160];
    uint64_t q;
    if (!strcmp(f, "algo")) {
      if (strlen(v) >= sizeof j->algo) return job_error(j, idx, "algo: name too long");
      strcpy(j->algo, v);
    } else if (!strcmp(f, "ranks")) {
      if (j->n) return job_error(j, idx, "ranks given twice");
      if (parse_npus(idx, v, j)) return A2_EXIT_USAGE;
    } else if (!strcmp(f, "size")) {
      if (a2_parse_quantity(v, A2_UNIT_BYTES, &j->size, why, sizeof why))
        return job_error(j, idx, "size: expected a size such as 1MiB");
    } else if (!strcmp(f, "start")) {
      if (a2_parse_quantity(v, A2_UNIT_TIME, &j->start_ps, why, sizeof why) ||
          j->start_ps > 1000000000000ull)
        return job_error(j, idx, "start: expected a time up to 1s such as 10us");
    } else if (!strcmp(f, "cores")) {
      if (a2_parse_quantity(v, A2_UNIT_COUNT, &q, why, sizeof why) || q < 1 || q > 1024)
        return job_error(j, idx, "cores: expected an integer in 1..1024");
      j->cores = (uint32_t)q;
    } else {
      char m[96];
      snprintf(m, sizeof m, "unknown field '%s' (fields: algo, ranks, size, start, cores)", f);
      return job_error(j, idx, m);
    }
  }
  if (!j->algo[0]) return job_error(j, idx, "algo=NAME required");
  if (!a2_collective_find(j->algo))
    return job_error(j, idx, "algo: unknown algorithm (see a2a3sim list)");
  if (!j->n) return job_error(j, idx, "ranks=A-B required");
  return 0;
}

/* Disjoint NPU sets, each NPU < interconnect.ranks, no NPU twice in a job. */
static int check_sets(const job *jobs, int nj, const a2_config *cfg) {
  uint8_t *owner = calloc(cfg->ranks, 1);
  if (!owner) return a2_cmd_oom_error("--job", "out of memory");
  int rc = 0;
  for (int i = 0; i < nj && !rc; i++)
    for (uint32_t r = 0; r < jobs[i].n && !rc; r++) {
      uint32_t d = jobs[i].npus[r];
      char m[160];
      if (d >= cfg->ranks) {
        snprintf(m, sizeof m, "ranks: NPU %u outside 0..%u (interconnect.ranks)", d,
                 cfg->ranks - 1);
        rc = field_error(&jobs[i], i, A2_JOB_RANKS, m);
      } else if (owner[d]) {
        snprintf(m, sizeof m, "ranks: NPU %u is also in job %d: jobs run on disjoint NPU sets", d,
                 owner[d]);
        rc = field_error(&jobs[i], i, A2_JOB_RANKS, m);
      } else
        owner[d] = (uint8_t)(i + 1);
    }
  free(owner);
  return rc;
}

/* ---- running ---- */

/* Lay the jobs' programs side by side in *k (each job's ranks, buffers and
 * tiles from its offsets on) and grow cfg's UB and window to hold them all.
 * Each job's program was generated for the chip's UB and window; the
 * combined one holds all their tiles and buffers side by side (no core
 * touches another job's). 0 or an exit code. */
static int combine(const a2_run_opts *o, a2_config *cfg, job *jobs, uint32_t nin, a2_program *k) {
  uint32_t P = 0, C = 1, nb = 0, nt = 0;
  uint64_t tiles = 0, win = 0;
  int uses_dma = 0, uses_rstore = 0;
  for (uint32_t i = 0; i < nin; i++) {
    job *j = &jobs[i];
    j->off = P;
    j->boff = nb;
    j->toff = nt;
    P += j->n;
    if (j->k.ncores > C) C = j->k.ncores;
    if (nb + j->k.nbufs > A2_MAX_BUFS || nt + j->k.ntiles > A2_MAX_TILES)
      return a2_cmd_usage_error("--job", "the jobs need more than %d buffers or %d tiles together",
                                A2_MAX_BUFS, A2_MAX_TILES);
    nb += j->k.nbufs;
    nt += j->k.ntiles;
    uses_dma |= j->k.uses_dma;
    uses_rstore |= j->k.uses_rstore;
  }
  a2_err e = {0};
  if (a2_program_init(k, P, C, &e)) {
    a2_cmd_error(&e);
    return A2_EXIT_INTERNAL;
  }
  for (uint32_t i = 0; i < nin; i++) {
    const job *j = &jobs[i];
    for (uint32_t b = 0; b < j->k.nbufs; b++) {
      k->bufs[j->boff + b] = j->k.bufs[b];
      k->init[j->boff + b] = j->k.init[b];
      if (j->k.bufs[b].kind != A2_BUF_TENSOR) win += j->k.bufs[b].bytes;
    }
    for (uint32_t t = 0; t < j->k.ntiles; t++) {
      k->tiles[j->toff + t] = j->k.tiles[t];
      tiles += j->k.tiles[t].bytes;
    }
  }
  k->nbufs = nb;
  k->ntiles = nt;
  k->seed = o->seed;
  k->uses_dma = uses_dma;
  k->uses_rstore = uses_rstore;
  k->golden.kind = A2_GOLDEN_NONE;
  if (tiles > cfg->ub_bytes) cfg->ub_bytes = tiles;
  if (win > cfg->window_bytes) cfg->window_bytes = win;
  return 0;
}

/* How the combined run ended: a deadlock or limit, races, unrouted
 * transfers (each reported on stderr); A2_EXIT_OK or A2_EXIT_FAIL. */
static int outcome(a2_sim *sim, a2_run_status st) {
  int rc = A2_EXIT_OK;
  if (st != A2_RUN_DONE) {
    fprintf(stderr, "a2a3sim: --job: %s\n",
            st == A2_RUN_DEADLOCK ? "deadlock: no event left and cores still blocked"
                                  : "a limit was reached with work left");
    a2_sim_report_blocked(sim, stderr);
    rc = A2_EXIT_FAIL;
  }
  if (a2_sim_races(sim)) {
    fprintf(stderr, "a2a3sim: --job: %llu data race(s):\n", (unsigned long long)a2_sim_races(sim));
    a2_sim_report_races(sim, stderr);
    rc = A2_EXIT_FAIL;
  }
  if (a2_sim_unrouted(sim)) {
    fprintf(stderr, "a2a3sim: --job: %llu transfer(s) could not be routed (a link that is down):\n",
            (unsigned long long)a2_sim_unrouted(sim));
    a2_sim_report_unrouted(sim, stderr);
    rc = A2_EXIT_FAIL;
  }
  return rc;
}

/* The jobs together (active -1), or job `active` alone (timing-only). The
 * program holds every job either way, the others' ranks idle when one runs
 * alone (woken at their start, with nothing to do), so that the
 * simulation has the same stages, processes and pending wake-ups: the event
 * kernel takes simultaneous events in an order that depends on what else is
 * pending (docs/cli.md, "Several jobs"). Each running job's time from its
 * start to its last rank's end goes to together_ps. Returns an exit code. */
static int run_set(a2_run_opts *o, const a2_config *cfg0, job *jobs, uint32_t nin, int active,
                   const char *timeline) {
  a2_config cfg = *cfg0;
  a2_program k = {0};
  int rc = combine(o, &cfg, jobs, nin, &k);
  if (rc) return rc;
  uint32_t P = k.nranks;
  a2_err e = {0};
  combined_source cs = {{combined_fill, NULL}, jobs, nin, active};
  k.source = &cs.base;
  uint32_t *dev = calloc(P, sizeof *dev);
  const char **names = calloc(P, sizeof *names);
  a2_sim *sim = NULL;
  if (!dev || !names) {
    rc = a2_cmd_oom_error("--job", "out of memory");
    goto out;
  }
  for (uint32_t i = 0; i < nin; i++) {
    const job *j = &jobs[i];
    for (uint32_t r = 0; r < j->n; r++) {
      dev[j->off + r] = j->npus[r];
      names[j->off + r] = j->names[r];
    }
  }
  if (a2_sim_create_mode(&cfg, &k, dev, "--job", 1, o->mem_limit, &sim, &e)) {
    a2_cmd_error(&e);
    rc = a2_err_exit_code(e.code);
    goto out;
  }
  if (o->no_race_check && a2_sim_set_race_check(sim, 0, &e)) rc = A2_EXIT_INTERNAL;
  for (uint32_t i = 0; i < nin && !rc; i++) {
    const job *j = &jobs[i];
    for (uint32_t r = 0; r < j->n && !rc; r++)
      if (j->start_ps && a2_sim_set_rank_start(sim, j->off + r, j->start_ps, &e))
        rc = A2_EXIT_INTERNAL;
  }
  a2_sim_set_rank_names(sim, names);
  if (!rc && timeline && a2_sim_set_timeline(sim, timeline, &e)) rc = a2_err_exit_code(e.code);
  if (o->max_events) a2_sim_set_event_limit(sim, o->max_events);
  a2_run_status st = A2_RUN_DONE;
  if (!rc && a2_sim_run(sim, o->max_sim_ps, &st, &e)) rc = A2_EXIT_INTERNAL;
  if (rc) {
    if (e.msg[0]) a2_cmd_error(&e);
    goto out;
  }
  for (uint32_t i = 0; i < nin; i++) {
    job *j = &jobs[i];
    if (active >= 0 && (uint32_t)active != i) continue;
    uint64_t end = 0;
    for (uint32_t r = 0; r < j->n; r++) {
      uint64_t t = a2_sim_rank_stats(sim, j->off + r)->end_ps;
      if (t > end) end = t;
    }
    j->together_ps = end > j->start_ps ? end - j->start_ps : 0;
  }
  rc = outcome(sim, st);
out:
  a2_sim_free(sim);
  k.source = NULL; /* cs is on the stack; the jobs own their sources */
  a2_program_free(&k);
  free(dev);
  free(names);
  return rc;
}

typedef struct {
  a2_run_opts *o;
  const a2_config *cfg;
  job *jobs;
  uint32_t nj, i;
} alone_args;

static int alone_child(void *ctx, void *out) {
  alone_args *a = ctx;
  int rc = run_set(a->o, a->cfg, a->jobs, a->nj, (int)a->i, NULL);
  *(uint64_t *)out = a->jobs[a->i].together_ps;
  return rc;
}

/* Job i alone, in a child: its time through a pipe. */
static int run_alone(a2_run_opts *o, const a2_config *cfg, job *jobs, uint32_t nj, uint32_t i) {
  alone_args a = {o, cfg, jobs, nj, i};
  uint64_t t = 0;
  int rc = a2_procs_call(alone_child, &a, &t, sizeof t);
  jobs[i].alone_ps = t;
  return rc < 0 ? A2_EXIT_INTERNAL : rc;
}

static void jnum(yajl_gen g, const char *k, const char *fmt, double v) {
  char b[64];
  int n = snprintf(b, sizeof b, fmt, v);
  yajl_gen_string(g, (const unsigned char *)k, strlen(k));
  yajl_gen_number(g, b, (size_t)n);
}
static void jstr(yajl_gen g, const char *k, const char *v) {
  yajl_gen_string(g, (const unsigned char *)k, strlen(k));
  yajl_gen_string(g, (const unsigned char *)v, strlen(v));
}

static double slowdown(const job *j) {
  return j->alone_ps ? (double)j->together_ps / (double)j->alone_ps : 0;
}

static void print_npus(char *out, size_t n, const job *j) {
  out[0] = 0;
  for (uint32_t r = 0; r < j->n;) {
    uint32_t s = r;
    while (r + 1 < j->n && j->npus[r + 1] == j->npus[r] + 1) r++;
    size_t len = strlen(out);
    if (r > s)
      snprintf(out + len, n - len, "%s%u-%u", len ? "+" : "", j->npus[s], j->npus[r]);
    else
      snprintf(out + len, n - len, "%s%u", len ? "+" : "", j->npus[s]);
    r++;
  }
}

static void report(const a2_run_opts *o, const a2_config *cfg, const job *jobs, int nj) {
  if (o->json) {
    yajl_gen g = yajl_gen_alloc(NULL);
    yajl_gen_map_open(g);
    jstr(g, "config", o->config_path ? o->config_path : A2_DEFAULT_CONFIG " (built-in)");
    jstr(g, "mode", "timing-only");
    yajl_gen_string(g, (const unsigned char *)"jobs", 4);
    yajl_gen_array_open(g);
    for (int i = 0; i < nj; i++) {
      const job *j = &jobs[i];
      char npus[256];
      print_npus(npus, sizeof npus, j);
      yajl_gen_map_open(g);
      jnum(g, "job", "%.0f", i + 1);
      jstr(g, "algo", j->algo);
      jstr(g, "npus", npus);
      jnum(g, "ranks", "%.0f", j->n);
      jnum(g, "size_bytes", "%.0f", (double)j->size);
      jnum(g, "start_ps", "%.0f", (double)j->start_ps);
      jnum(g, "alone_ps", "%.0f", (double)j->alone_ps);
      jnum(g, "together_ps", "%.0f", (double)j->together_ps);
      jnum(g, "slowdown", "%.6f", slowdown(j));
      yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    yajl_gen_map_close(g);
    a2_json_finish(g, stdout, true);
    return;
  }
  printf("%d job%s on %s (%s, %u NPUs), timing-only\n", nj, nj == 1 ? "" : "s",
         o->config_path ? o->config_path : A2_DEFAULT_CONFIG " (built-in)",
         a2_topo_name(cfg->topology), cfg->ranks);
  printf(
      "job  algo                       NPUs        size       start_us     alone_us  "
      "together_us  slowdown\n");
  for (int i = 0; i < nj; i++) {
    const job *j = &jobs[i];
    char npus[256], size[32];
    print_npus(npus, sizeof npus, j);
    snprintf(size, sizeof size, "%llu", (unsigned long long)j->size);
    printf("%3d  %-25s  %-10s  %-9s  %9.3f  %11.3f  %11.3f  %8.4f\n", i + 1, j->algo, npus, size,
           (double)j->start_ps / 1e6, (double)j->alone_ps / 1e6, (double)j->together_ps / 1e6,
           slowdown(j));
  }
}

/* Job i's program, streamed from its generator; errors name the job. */
static int generate(int i, job *j, const a2_run_opts *o, const a2_config *cfg) {
  const a2_collective *c = a2_collective_find(j->algo);
  a2_coll_params p = a2_run_coll_params(o, cfg);
  p.nranks = j->n;
  p.size_bytes = j->size;
  p.cores = j->cores;
  a2_err e = {0};
  if ((c->check && c->check(&p, &e)) || a2_coll_generate(c, &p, &j->k, 1, &e)) {
    if (e.code != A2_E_INPUT) {
      a2_cmd_error(&e);
      return a2_err_exit_code(e.code);
    }
    char m[sizeof e.file + sizeof e.msg + 8];
    snprintf(m, sizeof m, "%s%s%s", e.file, e.file[0] ? ": " : "", e.msg);
    return field_error(j, i, -1, m);
  }
  if (!j->k.source)
    return a2_cmd_usage_error("--job", "job %d: %s has no streamed programs", i + 1, j->algo);
  return 0;
}

int a2_run_jobs(a2_run_opts *o) {
  int nj = (int)o->njobs, rc = 0;
  a2_config_job *yj = NULL; /* the config's `jobs:` when there is no --job */
  if (!nj) {
    unsigned n = 0;
    a2_err e = {0};
    yj = calloc(A2_CONFIG_MAX_JOBS, sizeof *yj);
    if (!yj) return a2_cmd_oom_error("--job", "out of memory");
    if (!o->config_path || a2_config_load_jobs(o->config_path, yj, A2_CONFIG_MAX_JOBS, &n, &e)) {
      if (e.msg[0]) a2_cmd_error(&e);
      free(yj);
      return e.msg[0] ? a2_err_exit_code(e.code) : A2_EXIT_USAGE;
    }
    nj = (int)n;
  }
  job *jobs = calloc((size_t)(nj ? nj : 1), sizeof *jobs);
  a2_config cfg;
  if (!jobs) {
    free(yj);
    return a2_cmd_oom_error("--job", "out of memory");
  }
  for (int i = 0; i < nj && !rc; i++)
    rc = yj ? parse_job(i, yj[i].spec, o, &jobs[i], o->config_path, &yj[i])
            : parse_job(i, o->jobs[i], o, &jobs[i], NULL, NULL);
  if (!rc) rc = a2_load_run_config(o, &cfg, NULL);
  if (!rc) rc = check_sets(jobs, nj, &cfg);
  for (int i = 0; i < nj && !rc; i++) {
    job *j = &jobs[i];
    if ((rc = generate(i, j, o, &cfg))) break;
    j->names = calloc(j->n, sizeof *j->names);
    if (!j->names) {
      rc = a2_cmd_oom_error("--job", "out of memory");
      break;
    }
    for (uint32_t r = 0; r < j->n; r++)
      snprintf(j->names[r], sizeof j->names[r], "job %d %.24s: rank %u (npu %u)", i + 1, j->algo, r,
               j->npus[r]);
  }
  for (int i = 0; i < nj && !rc; i++) {
    int c = run_alone(o, &cfg, jobs, (uint32_t)nj, (uint32_t)i);
    if (c) {
      fprintf(stderr, "a2a3sim: --job: job %d alone exited %d\n", i + 1, c);
      rc = c;
    }
  }
  if (!rc) rc = run_set(o, &cfg, jobs, (uint32_t)nj, -1, o->timeline_out);
  if (!rc || rc == A2_EXIT_FAIL) report(o, &cfg, jobs, nj);
  for (int i = 0; i < nj; i++) {
    a2_program_free(&jobs[i].k);
    free(jobs[i].npus);
    free(jobs[i].names);
  }
  free(jobs);
  free(yj);
  return rc;
}
