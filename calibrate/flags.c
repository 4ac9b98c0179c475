/* a2a3sim calibrate: the flags, one table (common/flags.h) from which the
 * parser, `a2a3sim calibrate --help` and docs/cli.md's table come. The
 * config (--config, --set) is loaded here, so that a bad value is refused
 * before anything runs, and each --fit key gets its start value and search
 * range from it. */
#include "common/flags.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/calibrate.h"
#include "common/units.h"

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

#define AT(field) offsetof(a2_cal_opts, field)
enum { CAL_FIT = 1 }; /* flags that need --fit */

static const a2_flag rows[] = {
    {A2_FLAG_STRING, "--config", .arg = "FILE", .type = "file", .off = AT(config_path),
     .twice = "given twice", .def = "the built-in " A2_DEFAULT_CONFIG,
     .help = "YAML config every row runs with (docs/config.md); a row whose args give "
             "--config FILE runs with that file instead (docs/calibrate.md)"},
    {A2_FLAG_LIST, "--set", .arg = "KEY=VALUE", .type = "KEY=VALUE", .off = AT(sets),
     .count_off = AT(nsets), .hi = A2_MAX_SETS, .repeat = true,
     .help = "override a config key for every row, as `a2a3sim run --set`; it also gives a "
             "fitted key its start value"},
    {A2_FLAG_STRING, "--fit", .arg = "KEYS", .type = "KEY[=LO..HI],...", .off = AT(fit),
     .twice = "given twice (use one comma-separated list)",
     .help = "fit these numeric config keys (times, bandwidths, sizes, frequencies, counts; a "
             "level's field as interconnect.levels.I.FIELD), "
             "comma-separated, to the rows: a deterministic search on a log scale (a "
             "golden-section sweep, then Levenberg-Marquardt steps) of the sum over rows of "
             "ln(simulated / measured)^2, the simulator run at every point. Each key searches "
             "1/16x..16x of its start value, or KEY=LO..HI "
             "(`interconnect.link.latency=50ns..2us`). A fit uses the rows of role fit only"},
    {A2_FLAG_LIST, "--holdout", .arg = "SOURCES", .type = "list of sources", .off = AT(holdouts),
     .count_off = AT(nholdouts), .hi = A2_CAL_MAX_HOLDOUT, .repeat = true,
     .help = "with `--fit`: leave every row of these sources (the source column, "
             "comma-separated) out of the fit and report their error at the start and after the "
             "fit"},
    {A2_FLAG_STRING, "--output", .letter = "-o", .arg = "FILE", .type = "file", .off = AT(out_path),
     .twice = "given twice", .group = CAL_FIT,
     .help = "with `--fit`: write the fitted config (the base config with the fitted values) as "
             "YAML, with a comment naming the data",
     .doc = "Every key is resolved and the fitted ones are marked; the file is written through "
            "a temporary file and a rename."},
    {A2_FLAG_UINT, "--max-evals", .arg = "N", .off = AT(max_evals), .lo = 1, .hi = 100000,
     .twice = "given twice", .def = "200", .group = CAL_FIT,
     .help = "with `--fit`: at most N points in the search; each point runs every row the fit "
             "uses"},
    {A2_FLAG_BOOL, "--check", .off = AT(check),
     .help = "exit 1 when a row is outside its tolerance, or a rank trend goes the other way "
             "than measured (docs/calibrate.md; after the fit with `--fit`)"},
    {A2_FLAG_BOOL, "--markdown", .off = AT(markdown),
     .help = "print the rows as a Markdown table with each row's `a2a3sim run` command "
             "(bench/fidelity.sh, docs/fidelity.md; not with `--fit`)"},
    {A2_FLAG_UINT, "--jobs", .arg = "N", .off = AT(jobs), .lo = 1, .hi = 1024,
     .twice = "given twice", .def = "the number of online CPUs",
     .help = "runs at once; the output is the same for every N"},
};
_Static_assert(sizeof rows / sizeof rows[0] <= A2_FLAGS_MAX, "A2_FLAGS_MAX holds the table");

static const a2_flag_cmd cmds[] = {{
    "calibrate",
    A2_FLAGS_ANY,
    "usage: a2a3sim calibrate FILE.csv... [--config FILE] [--set KEY=VALUE]...\n"
    "           [--fit KEY[=LO..HI],... [--holdout SOURCE,...]... [-o OUT.yaml]\n"
    "                                   [--max-evals N]]\n"
    "           [--check] [--markdown] [--jobs N]\n",
    .about =
        "Runs every row of one or more CSVs of measurements (docs/calibrate.md: row, program,\n"
        "ranks, size, args, metric, measured, tolerance, source, role) with `a2a3sim run\n"
        "--json`, one process a row, and prints each row's measured and simulated figure, their\n"
        "ratio and whether it is within the row's tolerance: the fit rows and the predict rows\n"
        "in two tables, each with a summary line (rows, median and worst |error|).\n",
    .after = "Progress of a fit goes to stderr, one line a point. Exit status: 0 done, 1 with\n"
             "--check when a row is outside its tolerance (or when a row's run FAILs), 2 for bad\n"
             "flags, a bad CSV, or a fitted key no row depends on, 3 for an internal error.\n"
             "Details: docs/calibrate.md.\n",
}};

const a2_flag_table a2_cal_flags = {rows, sizeof rows / sizeof rows[0], cmds, 1};

int a2_cal_parse(int argc, char **argv, a2_cal_opts *o) {
  memset(o, 0, sizeof *o);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o->jobs = cpus > 0 ? (unsigned)cpus : 1;
  o->max_evals = 200;
  a2_flags_seen seen;
  int rc = a2_flags_parse(&a2_cal_flags, 0, argc, argv, o, &seen);
  if (rc) return rc;
  if (!seen.nargs) return a2_cmd_usage_error(NULL, "calibrate: missing FILE.csv");
  o->csv_paths = (const char *const *)seen.args;
  o->ncsv = (size_t)seen.nargs;
  if (o->nholdouts && !o->fit)
    return a2_cmd_usage_error("--holdout",
                              "only with --fit (without a fit every row is compared "
                              "and none is fitted to)");
  const char *needs_fit = a2_flags_first(&seen, CAL_FIT);
  if (needs_fit && !o->fit) return a2_cmd_usage_error(needs_fit, "only with --fit");
  if (o->markdown && o->fit) return a2_cmd_usage_error("--markdown", "not with --fit");
  if ((rc = load_config(o))) return rc;
  if (o->fit && (rc = parse_fit(o, o->fit))) return rc;
  return 0;
}

void a2_cal_opts_free(a2_cal_opts *o) {
  for (size_t k = 0; k < o->nkeys; k++) free(o->keys[k].path);
  o->nkeys = 0;
}
