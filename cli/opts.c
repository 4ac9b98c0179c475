/* The rules between the flags of `run` and `gen` (the flags themselves are
 * the table in cli/run_flags.c), and loading the config they name. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* Without --algo, --program or --job, `run --config FILE` runs the
 * config's `jobs:` list when it has one (o->config_jobs). */
static int load_config_jobs(a2_run_opts *o) {
  a2_config_job *yj = calloc(A2_CONFIG_MAX_JOBS, sizeof *yj);
  unsigned n = 0;
  a2_err e = {0};
  if (!yj) return a2_cmd_oom_error("--config", "out of memory");
  a2_code lrc = a2_config_load_jobs(o->config_path, yj, A2_CONFIG_MAX_JOBS, &n, &e);
  free(yj);
  if (lrc) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  o->config_jobs = n > 0;
  return 0;
}

/* Several jobs (--job, or the config's): each names its algo and ranks. */
static int check_jobs(const a2_run_opts *o, const a2_flags_seen *s) {
  bool have_d = a2_flags_given(s, "-d"), have_ranks = a2_flags_given(s, "--ranks");
  if (o->algo || o->program_file || have_d || have_ranks)
    return a2_cmd_usage_error("--job", "each job names its algo and ranks: not with %s",
                              o->algo           ? "--algo"
                              : o->program_file ? "--program"
                              : have_d          ? "-d"
                                                : "--ranks");
  if (o->seeds) return a2_cmd_usage_error("--job", "not with --seeds");
  return 0;
}

/* What runs: --algo or --program, and the flags that go with only one. */
static int check_program(a2_cmd cmd, a2_run_opts *o, const a2_flags_seen *s) {
  if (o->algo && o->program_file)
    return a2_cmd_usage_error("--program", "use --algo or --program, not both");
  if (!o->algo && !o->program_file)
    return a2_cmd_usage_error("--algo", cmd == A2_CMD_RUN ? "required (or --program FILE)"
                                                          : "required (see a2a3sim list)");
  /* the chooser's flags ask for it; `--algo allreduce` (no built-in has
   * the name) asks alone */
  const char *chooser_flag = a2_flags_first(s, A2_RUN_CHOOSER);
  if (chooser_flag && !a2_hccl_is_op(o->algo))
    return a2_cmd_usage_error(chooser_flag,
                              "only with --algo allreduce, allgather, reduce_scatter, all_to_all "
                              "or broadcast (the chooser)%s",
                              o->algo ? "" : ", not with --program");
  o->hccl = chooser_flag || a2_hccl_implicit(o->algo);
  if (o->nparams && !o->program_file)
    return a2_cmd_usage_error("--param", "only with --program (a program file's `param` values)");
  const char *gemm_flag = a2_flags_last(s, A2_RUN_GEMM);
  if (gemm_flag && o->program_file)
    return a2_cmd_usage_error(gemm_flag, "a program file fixes its own shape (use --param)");
  if (gemm_flag && o->algo) {
    const a2_collective *c = a2_collective_find(o->algo);
    if (c && c->kind == A2_KIND_COMM)
      return a2_cmd_usage_error(gemm_flag,
                                "only for the GEMM built-ins (gemm, gemm_allreduce, "
                                "allgather_gemm), not %s",
                                o->algo);
  }
  bool have_size = a2_flags_given(s, "--size");
  if (o->m && have_size)
    return a2_cmd_usage_error("--size", "not with --m: the GEMM's M is --m (or --size alone)");
  if (o->program_file && (have_size || a2_flags_first(s, A2_RUN_COLL)))
    return a2_cmd_usage_error(have_size ? "--size" : "--op/--dtype/--root/--cores",
                              "a program file fixes its own sizes and types");
  return 0;
}

int a2_parse_run_flags(a2_cmd cmd, int argc, char **argv, a2_run_opts *o) {
  /* the defaults the table's rows name */
  *o = (a2_run_opts){.size_bytes = 256, .seed = 1, .cores = 1, .max_sim_ps = UINT64_MAX};
  a2_flags_seen s;
  int rc = a2_flags_parse(&a2_run_flags, cmd, argc, argv, o, &s);
  if (rc) return rc;
  o->faults.seed = o->seed;
  if (cmd == A2_CMD_RUN && !o->njobs && !o->algo && !o->program_file && o->config_path &&
      (rc = load_config_jobs(o)))
    return rc;
  if (o->njobs || o->config_jobs) return check_jobs(o, &s);
  if ((rc = check_program(cmd, o, &s))) return rc;
  if (cmd == A2_CMD_GEN && !o->out_path) return a2_cmd_usage_error("-o", "required");
  bool have_d = a2_flags_given(&s, "-d"), have_ranks = a2_flags_given(&s, "--ranks");
  if (have_d && have_ranks) return a2_cmd_usage_error("--ranks", "use -d or --ranks, not both");
  if (!have_d && !have_ranks) return a2_cmd_usage_error("--ranks", "required (or -d LIST)");
  if (o->seeds && o->timeline_out)
    return a2_cmd_usage_error("--seeds", "not with --timeline (one run writes one timeline)");
  return 0;
}

/* Whether --set names interconnect.ranks (then it is what the user asked). */
static bool sets_ranks(const a2_run_opts *o) {
  static const char k[] = "interconnect.ranks=";
  for (size_t i = 0; i < o->nsets; i++)
    if (!strncmp(o->sets[i], k, sizeof k - 1)) return true;
  return false;
}

/* A topology that scales to P NPUs as it is: ring, switch, two_level (a
 * last server may be partial), levels (the top level holds any number of
 * groups of the level below, the last one may be partial), a torus whose
 * width divides P. A full mesh is a server's wiring: it does not grow by
 * itself. */
static bool scales_to(const a2_config *cfg, uint32_t P) {
  switch (cfg->topology) {
  case A2_TOPO_RING:
  case A2_TOPO_SWITCH:
  case A2_TOPO_TWO_LEVEL:
  case A2_TOPO_LEVELS: return true;
  case A2_TOPO_TORUS: return P % cfg->torus_width == 0;
  default: return false;
  }
}

int a2_load_run_config(const a2_run_opts *o, a2_config *cfg, uint32_t *grown_from) {
  a2_err e = {0};
  if (grown_from) *grown_from = 0;
  a2_config_default(cfg);
  if (o->config_path && a2_config_load(o->config_path, cfg, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  for (size_t i = 0; i < o->nsets; i++) {
    char key[256];
    const char *eq = strchr(o->sets[i], '=');
    if (!eq || eq == o->sets[i] || (size_t)(eq - o->sets[i]) >= sizeof key)
      return a2_cmd_usage_error("--set", "expected KEY=VALUE, got '%s'", o->sets[i]);
    memcpy(key, o->sets[i], (size_t)(eq - o->sets[i]));
    key[eq - o->sets[i]] = '\0';
    if (a2_config_set(cfg, key, eq + 1, &e)) {
      a2_cmd_error(&e);
      return A2_EXIT_USAGE;
    }
  }
  /* --ranks above interconnect.ranks: a topology that scales grows to it
   * (the report says so); otherwise the model's error names the keys. */
  if (!o->devices && o->nranks > cfg->ranks && !sets_ranks(o) && scales_to(cfg, o->nranks)) {
    if (grown_from) *grown_from = cfg->ranks;
    cfg->ranks = o->nranks;
  }
  if (a2_config_validate(cfg, o->config_path ? o->config_path : "--set", &e)) {
    a2_cmd_error(&e);
    return A2_EXIT_USAGE;
  }
  if (a2_has_faults(&o->faults)) {
    int rc = a2_check_faults(&o->faults, cfg);
    if (rc) return rc;
    cfg->faults = &o->faults;
  }
  return 0;
}
