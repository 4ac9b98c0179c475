/* a2a3sim calibrate: the flags. The config (--config, --set) is loaded
 * here, so that a bad value is refused before anything runs, and each
 * --fit key gets its start value and search range from it. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "common/units.h"

static const char usage[] =
    "usage: a2a3sim calibrate FILE.csv... [--config FILE] [--set KEY=VALUE]...\n"
    "                         [--fit KEY[=LO..HI],... [--holdout SOURCE,...]... [-o OUT.yaml]\n"
    "                                                 [--max-evals N]]\n"
    "                         [--check] [--markdown] [--jobs N]\n"
    "\n"
    "Runs every row of one or more CSVs of measurements (docs/calibrate.md: row, program,\n"
    "ranks, size, args, metric, measured, tolerance, source, role) with `a2a3sim run\n"
    "--json`, one process a row, and prints each row's measured and simulated figure, their\n"
    "ratio and whether it is within the row's tolerance: the fit rows and the predict rows\n"
    "in two tables, each with a summary line (rows, median and worst |error|).\n"
    "\n"
    "  --config FILE      YAML config (default: the built-in " A2_DEFAULT_CONFIG
    ")\n"
    "  --set KEY=VALUE    override a config key for every row (repeatable)\n"
    "  --fit KEYS         fit these numeric config keys, comma-separated, to the rows: a\n"
    "                     deterministic search on a log scale (a golden-section sweep, then\n"
    "                     Levenberg-Marquardt steps) of the sum over rows of\n"
    "                     ln(simulated / measured)^2, the simulator run at every point. Each\n"
    "                     key searches 1/16x..16x of its start value, or KEY=LO..HI\n"
    "                     (interconnect.link.latency=50ns..2us). A fit uses the rows of\n"
    "                     role fit only\n"
    "  --holdout SOURCES  with --fit: leave every row of these sources (the source column,\n"
    "                     comma-separated, repeatable) out of the fit and report their error\n"
    "                     at the start and after the fit\n"
    "  -o FILE            with --fit: write the fitted config (the base config with the\n"
    "                     fitted values) as YAML, with a comment naming the data\n"
    "  --max-evals N      with --fit: at most N points in the search (default 200); each\n"
    "                     point runs every row\n"
    "  --check            exit 1 when a row is outside its tolerance (after the fit with --fit)\n"
    "  --markdown         print the rows as a Markdown table with each row's command\n"
    "                     (bench/fidelity.sh; not with --fit)\n"
    "  --jobs N           runs at once (default: the number of online CPUs)\n"
    "\n"
    "Progress of a fit goes to stderr, one line a point. Exit status: 0 done, 1 with\n"
    "--check when a row is outside its tolerance (or when a row's run FAILs), 2 for bad\n"
    "flags, a bad CSV, or a fitted key no row depends on, 3 for an internal error.\n"
    "Details: docs/calibrate.md.\n";

/* One --fit item: KEY or KEY=LO..HI. */
static int parse_key(a2_cal_opts *o, const char *item) {
  if (o->nkeys == A2_CAL_MAX_KEYS)
    return a2_cmd_usage_error("--fit", "more than %d keys", A2_CAL_MAX_KEYS);
  a2_cal_key *k = &o->keys[o->nkeys];
  memset(k, 0, sizeof *k);
  const char *eq = strchr(item, '=');
  size_t len = eq ? (size_t)(eq - item) : strlen(item);
  char *path = malloc(len + 1);
  if (!path) return a2_cmd_oom_error("--fit", "out of memory");
  memcpy(path, item, len);
  path[len] = '\0';
  k->path = path;
  o->nkeys++; /* owned from here (freed by a2_cal_opts_free) */
  a2_err e = {0};
  if (a2_config_key_about(path, "--fit", &k->info, &e)) {
    a2_cmd_error(&e);
    return A2_EXIT_USAGE;
  }
  if (!k->info.quantity)
    return a2_cmd_usage_error("--fit", "%s is not numeric: its values are names (%s)", path,
                              k->info.names);
  for (size_t i = 0; i + 1 < o->nkeys; i++)
    if (!strcmp(o->keys[i].path, path)) return a2_cmd_usage_error("--fit", "%s given twice", path);
  k->base = a2_config_get(&o->base, path);
  if (eq) {
    const char *dots = strstr(eq + 1, "..");
    char lo[64], hi[64], why[160];
    if (!dots || dots == eq + 1 || !dots[2] || (size_t)(dots - eq - 1) >= sizeof lo ||
        strlen(dots + 2) >= sizeof hi)
      return a2_cmd_usage_error("--fit", "%s: expected a range LO..HI after '=', e.g. %s=50ns..2us",
                                item, path);
    snprintf(lo, sizeof lo, "%.*s", (int)(dots - eq - 1), eq + 1);
    snprintf(hi, sizeof hi, "%s", dots + 2);
    if (a2_parse_quantity(lo, k->info.kind, &k->lo, why, sizeof why))
      return a2_cmd_usage_error("--fit", "%s: LO '%s': %s", path, lo, why);
    if (a2_parse_quantity(hi, k->info.kind, &k->hi, why, sizeof why))
      return a2_cmd_usage_error("--fit", "%s: HI '%s': %s", path, hi, why);
    if (!k->lo)
      return a2_cmd_usage_error("--fit", "%s: LO must be above 0 (the search is on a log scale)",
                                path);
    if (k->lo >= k->hi) return a2_cmd_usage_error("--fit", "%s: LO must be below HI", path);
    if (k->lo < k->info.min || k->hi > k->info.max) {
      char a[48], b[48];
      a2_format_quantity(k->info.min, k->info.kind, a, sizeof a);
      a2_format_quantity(k->info.max, k->info.kind, b, sizeof b);
      return a2_cmd_usage_error("--fit", "%s: the range must stay inside the key's bounds %s..%s",
                                path, a, b);
    }
  } else {
    if (!k->base)
      return a2_cmd_usage_error("--fit",
                                "%s is 0 in the config: give its range, %s=LO..HI (the search "
                                "is on a log scale)",
                                path, path);
    k->lo = k->base / 16 > k->info.min ? k->base / 16 : k->info.min;
    k->hi = k->base <= k->info.max / 16 ? k->base * 16 : k->info.max;
    if (!k->lo) k->lo = 1;
    if (k->lo >= k->hi)
      return a2_cmd_usage_error("--fit", "%s: no room to search around its value; give %s=LO..HI",
                                path, path);
  }
  /* Start inside the range: the config's value, else the range's geometric middle. */
  k->start = k->base;
  if (k->start < k->lo || k->start > k->hi) {
    double mid = sqrt((double)k->lo * (double)k->hi);
    k->start = (uint64_t)(mid + 0.5);
    if (k->start < k->lo) k->start = k->lo;
    if (k->start > k->hi) k->start = k->hi;
  }
  return 0;
}

static int parse_fit(a2_cal_opts *o, const char *list) {
  if (!*list) return a2_cmd_usage_error("--fit", "empty list");
  char *copy = a2_cal_strdup(list);
  if (!copy) return a2_cmd_oom_error("--fit", "out of memory");
  int rc = 0;
  for (char *p = copy; !rc;) {
    char *comma = strchr(p, ',');
    if (comma) *comma = '\0';
    if (!*p)
      rc = a2_cmd_usage_error("--fit", "empty item in the comma-separated list '%s'", list);
    else
      rc = parse_key(o, p);
    if (!comma) break;
    p = comma + 1;
  }
  free(copy);
  return rc;
}

static int load_config(a2_cal_opts *o) {
  a2_err e = {0};
  a2_config_default(&o->base);
  if (o->config_path && a2_config_load(o->config_path, &o->base, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  for (size_t i = 0; i < o->nsets; i++) {
    const char *eq = strchr(o->sets[i], '=');
    if (!eq) return a2_cmd_usage_error("--set", "expected KEY=VALUE, got '%s'", o->sets[i]);
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(eq - o->sets[i]), o->sets[i]);
    if (a2_config_set(&o->base, key, eq + 1, &e)) {
      a2_cmd_error(&e);
      return A2_EXIT_USAGE;
    }
  }
  if (a2_config_validate(&o->base, o->config_path ? o->config_path : "--set", &e)) {
    a2_cmd_error(&e);
    return A2_EXIT_USAGE;
  }
  return 0;
}

static int count(const char *flag, const char *text, uint64_t lo, uint64_t hi, unsigned *out) {
  uint64_t v;
  if (a2_parse_quantity(text, A2_UNIT_COUNT, &v, NULL, 0) || v < lo || v > hi)
    return a2_cmd_usage_error(flag, "expected an integer in %llu..%llu, got '%s'",
                              (unsigned long long)lo, (unsigned long long)hi, text);
  *out = (unsigned)v;
  return 0;
}

int a2_cal_parse(int argc, char **argv, a2_cal_opts *o) {
  enum { O_CONFIG = 256, O_SET, O_FIT, O_CHECK, O_MARKDOWN, O_JOBS, O_EVALS, O_HELP, O_HOLDOUT };
  static const struct option longs[] = {{"config", required_argument, 0, O_CONFIG},
                                        {"set", required_argument, 0, O_SET},
                                        {"fit", required_argument, 0, O_FIT},
                                        {"check", no_argument, 0, O_CHECK},
                                        {"markdown", no_argument, 0, O_MARKDOWN},
                                        {"jobs", required_argument, 0, O_JOBS},
                                        {"max-evals", required_argument, 0, O_EVALS},
                                        {"output", required_argument, 0, 'o'},
                                        {"help", no_argument, 0, O_HELP},
                                        {"holdout", required_argument, 0, O_HOLDOUT},
                                        {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o->jobs = cpus > 0 ? (unsigned)cpus : 1;
  o->max_evals = 200;
  bool have_jobs = false, have_evals = false;
  const char *fit = NULL;
  opterr = 0;
  optind = 1;
  int c, rc = 0;
  while ((c = getopt_long(argc, argv, ":ho:", longs, NULL)) != -1) {
    switch (c) {
    case O_CONFIG:
      if (o->config_path) return a2_cmd_usage_error("--config", "given twice");
      o->config_path = optarg;
      break;
    case O_SET:
      if (o->nsets == A2_MAX_SETS) return a2_cmd_usage_error("--set", "more than %d", A2_MAX_SETS);
      o->sets[o->nsets++] = optarg;
      break;
    case O_FIT:
      if (fit) return a2_cmd_usage_error("--fit", "given twice (use one comma-separated list)");
      fit = optarg;
      break;
    case O_HOLDOUT: /* the sources are checked against the rows (command.c) */
      if (o->nholdouts == A2_CAL_MAX_HOLDOUT)
        return a2_cmd_usage_error("--holdout", "more than %d", A2_CAL_MAX_HOLDOUT);
      o->holdouts[o->nholdouts++] = optarg;
      break;
    case O_CHECK: o->check = true; break;
    case O_MARKDOWN: o->markdown = true; break;
    case O_JOBS:
      if (have_jobs) return a2_cmd_usage_error("--jobs", "given twice");
      have_jobs = true;
      if ((rc = count("--jobs", optarg, 1, 1024, &o->jobs))) return rc;
      break;
    case O_EVALS:
      if (have_evals) return a2_cmd_usage_error("--max-evals", "given twice");
      have_evals = true;
      if ((rc = count("--max-evals", optarg, 1, 100000, &o->max_evals))) return rc;
      break;
    case 'o':
      if (o->out_path) return a2_cmd_usage_error("-o", "given twice");
      o->out_path = optarg;
      break;
    case 'h':
    case O_HELP: fputs(usage, stdout); return -1;
    case ':': return a2_cmd_usage_error(argv[optind - 1], "missing value");
    default:
      return a2_cmd_usage_error(argv[optind - 1], "unknown flag (see a2a3sim calibrate --help)");
    }
  }
  if (optind >= argc) return a2_cmd_usage_error(NULL, "calibrate: missing FILE.csv");
  o->csv_paths = (const char *const *)argv + optind;
  o->ncsv = (size_t)(argc - optind);
  if (o->nholdouts && !fit)
    return a2_cmd_usage_error("--holdout",
                              "only with --fit (without a fit every row is compared "
                              "and none is fitted to)");
  if (o->out_path && !fit) return a2_cmd_usage_error("-o", "only with --fit");
  if (have_evals && !fit) return a2_cmd_usage_error("--max-evals", "only with --fit");
  if (o->markdown && fit) return a2_cmd_usage_error("--markdown", "not with --fit");
  if ((rc = load_config(o))) return rc;
  if (fit && (rc = parse_fit(o, fit))) return rc;
  return 0;
}

void a2_cal_opts_free(a2_cal_opts *o) {
  for (size_t k = 0; k < o->nkeys; k++) free(o->keys[k].path);
  o->nkeys = 0;
}
