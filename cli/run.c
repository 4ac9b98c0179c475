/* a2a3sim run: build a collective, simulate it, check it, report it. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/units.h"

static const char run_usage[] =
    "usage: a2a3sim run --algo NAME (-d 0,1,2,3 | --ranks P) [--size BYTES]\n"
    "                   [--config FILE] [--set KEY=VALUE]... [--seed S] [--json]\n"
    "\n"
    "  --algo NAME        built-in collective (a2a3sim list)\n"
    "  -d, --devices LIST NPUs to run on, comma-separated (as the seeds' -d); P = count\n"
    "  --ranks P          run on NPUs 0..P-1\n"
    "  --size BYTES       bytes of each rank's input slice: 256, 4KiB, 1MiB, 1MB...\n"
    "                     (default 256 = the seeds' 64 fp32)\n"
    "  --config FILE      YAML config (default: the built-in copy of " A2_DEFAULT_CONFIG ")\n"
    "  --set KEY=VALUE    override one config key, e.g. interconnect.link.bandwidth=56GB/s\n"
    "  --seed S           seed of the input pattern (default 1)\n"
    "  --max-sim-time T   stop a run that exceeds T simulated time (e.g. 10ms) and report\n"
    "  --json             print the result as one JSON object (keys: docs/output.md)\n"
    "\n"
    "Prints OK when every rank's output matches the golden computed independently,\n"
    "FAIL with the first mismatches (exit 1) otherwise.\n";

static int parse_devices(const char *s, a2_run_opts *o) {
  uint32_t n = 1;
  for (const char *p = s; *p; p++) n += *p == ',';
  o->devices = calloc(n, sizeof *o->devices);
  if (!o->devices) return a2_cli_usage_error("-d", "out of memory");
  const char *p = s;
  for (uint32_t i = 0; i < n; i++) {
    char *end;
    if (*p < '0' || *p > '9')
      return a2_cli_usage_error("-d", "expected a comma-separated list of device numbers such "
                                      "as 0,1,2,3, got '%s'", s);
    unsigned long v = strtoul(p, &end, 10);
    if ((*end != ',' && *end != '\0') || v > 1048575)
      return a2_cli_usage_error("-d", "expected a comma-separated list of device numbers such "
                                      "as 0,1,2,3, got '%s'", s);
    o->devices[i] = (uint32_t)v;
    p = end + (*end == ',');
  }
  o->nranks = n;
  return 0;
}

static int parse_u32(const char *flag, const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
  uint64_t v;
  char why[160];
  if (a2_parse_quantity(s, A2_UNIT_COUNT, &v, why, sizeof why) || v < lo || v > hi)
    return a2_cli_usage_error(flag, "expected an integer in %u..%u, got '%s'", lo, hi, s);
  *out = (uint32_t)v;
  return 0;
}

static int parse_args(int argc, char **argv, a2_run_opts *o) {
  enum { O_ALGO = 256, O_RANKS, O_SIZE, O_CONFIG, O_SET, O_SEED, O_JSON, O_MAXT, O_HELP };
  static const struct option longs[] = {
      {"algo", required_argument, 0, O_ALGO},     {"devices", required_argument, 0, 'd'},
      {"ranks", required_argument, 0, O_RANKS},   {"size", required_argument, 0, O_SIZE},
      {"config", required_argument, 0, O_CONFIG}, {"set", required_argument, 0, O_SET},
      {"seed", required_argument, 0, O_SEED},     {"json", no_argument, 0, O_JSON},
      {"max-sim-time", required_argument, 0, O_MAXT}, {"help", no_argument, 0, O_HELP},
      {0, 0, 0, 0}};
  bool have_d = false, have_ranks = false;
  char why[256];
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":d:h", longs, NULL)) != -1) {
    int rc = 0;
    switch (c) {
    case O_ALGO: o->algo = optarg; break;
    case 'd':
      if (have_d) return a2_cli_usage_error("-d", "given twice");
      have_d = true;
      rc = parse_devices(optarg, o);
      break;
    case O_RANKS:
      have_ranks = true;
      rc = parse_u32("--ranks", optarg, 1, 1048576, &o->nranks);
      break;
    case O_SIZE:
      if (a2_parse_quantity(optarg, A2_UNIT_BYTES, &o->size_bytes, why, sizeof why))
        return a2_cli_usage_error("--size", "%s, got '%s'", why, optarg);
      break;
    case O_CONFIG: o->config_path = optarg; break;
    case O_SET:
      if (o->nsets == A2_MAX_SETS) return a2_cli_usage_error("--set", "more than %d", A2_MAX_SETS);
      o->sets[o->nsets++] = optarg;
      break;
    case O_SEED: rc = parse_u32("--seed", optarg, 0, UINT32_MAX, &o->seed); break;
    case O_JSON: o->json = true; break;
    case O_MAXT:
      if (a2_parse_quantity(optarg, A2_UNIT_TIME, &o->max_sim_ps, why, sizeof why) ||
          o->max_sim_ps == 0)
        return a2_cli_usage_error("--max-sim-time", "expected a time such as 10ms, got '%s'",
                                  optarg);
      break;
    case 'h':
    case O_HELP: fputs(run_usage, stdout); return -1;
    case ':': return a2_cli_usage_error(argv[optind - 1], "missing value");
    default: return a2_cli_usage_error(argv[optind - 1], "unknown flag (see a2a3sim run --help)");
    }
    if (rc) return rc;
  }
  if (optind < argc) return a2_cli_usage_error(argv[optind], "unexpected argument");
  if (!o->algo) return a2_cli_usage_error("--algo", "required (see a2a3sim list)");
  if (have_d && have_ranks) return a2_cli_usage_error("--ranks", "use -d or --ranks, not both");
  if (!have_d && !have_ranks) return a2_cli_usage_error("--ranks", "required (or -d LIST)");
  return 0;
}

static int load_config(const a2_run_opts *o, a2_config *cfg) {
  a2_err e = {0};
  a2_config_default(cfg);
  if (o->config_path && a2_config_load(o->config_path, cfg, &e)) {
    a2_cli_error(&e);
    return a2_err_exit_code(e.code);
  }
  for (int i = 0; i < o->nsets; i++) {
    char key[256];
    const char *eq = strchr(o->sets[i], '=');
    if (!eq || eq == o->sets[i] || (size_t)(eq - o->sets[i]) >= sizeof key)
      return a2_cli_usage_error("--set", "expected KEY=VALUE, got '%s'", o->sets[i]);
    memcpy(key, o->sets[i], (size_t)(eq - o->sets[i]));
    key[eq - o->sets[i]] = '\0';
    if (a2_config_set(cfg, key, eq + 1, &e)) {
      a2_cli_error(&e);
      return A2_EXIT_USAGE;
    }
  }
  if (a2_config_validate(cfg, o->config_path ? o->config_path : "--set", &e)) {
    a2_cli_error(&e);
    return A2_EXIT_USAGE;
  }
  return 0;
}

int a2_cli_run(int argc, char **argv) {
  a2_run_opts o = {.size_bytes = 256, .seed = 1, .max_sim_ps = UINT64_MAX};
  int rc = parse_args(argc, argv, &o);
  if (rc) {
    free(o.devices);
    return rc < 0 ? A2_EXIT_OK : rc;
  }
  a2_run_result r = {0};
  r.coll = a2_collective_find(o.algo);
  if (!r.coll) {
    free(o.devices);
    return a2_cli_usage_error("--algo", "unknown algorithm '%s' (see a2a3sim list)", o.algo);
  }
  if ((rc = load_config(&o, &r.cfg))) {
    free(o.devices);
    return rc;
  }
  r.config_name = o.config_path ? o.config_path : A2_DEFAULT_CONFIG " (built-in)";
  r.params = (a2_coll_params){.nranks = o.nranks, .size_bytes = o.size_bytes, .cores = 1,
                              .op = A2_RED_SUM, .dtype = A2_FP32, .ub_bytes = r.cfg.ub_bytes,
                              .seed = o.seed};
  a2_err e = {0};
  a2_kernel k = {0};
  a2_sim *sim = NULL;
  int exit_code = A2_EXIT_OK;
  if ((r.coll->check && r.coll->check(&r.params, &e)) || r.coll->gen(&r.params, &k, &e) ||
      a2_sim_create(&r.cfg, &k, o.devices, o.algo, &sim, &e)) {
    a2_cli_error(&e);
    exit_code = a2_err_exit_code(e.code);
    goto out;
  }
  if (a2_sim_run(sim, o.max_sim_ps, &r.status, &e)) {
    a2_cli_error(&e);
    exit_code = A2_EXIT_INTERNAL;
    goto out;
  }
  r.sim = sim;
  r.k = &k;
  r.time_ps = a2_sim_end_ps(sim);
  r.coll->card(&r.params, &r.card);
  r.closed_form_ps = r.coll->closed_form_ps(&r.params, &r.cfg);
  if (r.status == A2_RUN_DONE) a2_check(&k, sim, &r.check);
  if (o.json)
    a2_report_json(&r, stdout);
  else
    a2_report_text(&r, stdout);
  if (r.status != A2_RUN_DONE) {
    fprintf(stderr, "a2a3sim: %s: %s\n", o.algo,
            r.status == A2_RUN_DEADLOCK ? "deadlock: no event left and cores still blocked"
                                        : "--max-sim-time reached with work left");
    a2_sim_report_blocked(sim, stderr);
    exit_code = A2_EXIT_FAIL;
  } else if (!r.check.ok) {
    exit_code = A2_EXIT_FAIL;
  }
out:
  a2_sim_free(sim);
  a2_kernel_free(&k);
  free(o.devices);
  return exit_code;
}
