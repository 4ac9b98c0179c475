/* a2a3sim sweep: the flags, one table (common/flags.h) from which the
 * parser, `a2a3sim sweep --help` and docs/cli.md's table come. Lists, the
 * --sizes SPEC and the --set axes are checked here, before any point runs:
 * every --set value against a scratch config (the messages `run` would
 * print) and every combination of them against the cross-key rules. */
#include "common/flags.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectives/collective.h"
#include "collectives/hccl_choose.h"
#include "common/units.h"
#include "sweep/sweep.h"

/* Split s at commas into fresh strings; an empty list or item is an error. */
static int split_list(const char *flag, const char *s, char ***items, size_t *n) {
  if (!*s) return a2_cmd_usage_error(flag, "empty list");
  size_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  *items = calloc(cap, sizeof **items);
  if (!*items) return a2_cmd_oom_error(flag, "out of memory");
  *n = 0;
  for (const char *p = s;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (!len) return a2_cmd_usage_error(flag, "empty item in the comma-separated list '%s'", s);
    char *item = malloc(len + 1);
    if (!item) return a2_cmd_oom_error(flag, "out of memory");
    memcpy(item, p, len);
    item[len] = '\0';
    (*items)[(*n)++] = item;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

static void free_list(char **items, size_t n) {
  for (size_t i = 0; i < n; i++) free(items[i]);
  free(items);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static const char sizes_expected[] =
    "expected START..END:xK (geometric, e.g. 256B..64MiB:x4), START..END:+STEP "
    "(arithmetic, e.g. 1KiB..8KiB:+1KiB) or a list such as 256,4KiB,1MiB";

/* Append v; false (error printed) past the bound. */
static int push_size(uint64_t **sizes, size_t *n, size_t *cap, uint64_t v) {
  if (*n == A2_SWEEP_MAX_POINTS)
    return a2_cmd_usage_error("--sizes", "more than %d sizes", A2_SWEEP_MAX_POINTS);
  if (*n == *cap) {
    size_t nc = *cap ? 2 * *cap : 16;
    uint64_t *p = realloc(*sizes, nc * sizeof *p);
    if (!p) return a2_cmd_oom_error("--sizes", "out of memory");
    *sizes = p;
    *cap = nc;
  }
  (*sizes)[(*n)++] = v;
  return 0;
}

static int parse_one_size(const char *what, const char *text, const char *spec, uint64_t *v) {
  char why[256];
  if (a2_parse_quantity(text, A2_UNIT_BYTES, v, why, sizeof why))
    return a2_cmd_usage_error("--sizes", "%s '%s' in '%s': %s", what, text, spec, why);
  return 0;
}

/* START..END:xK or START..END:+STEP */
static int parse_range(const char *spec, const char *dots, uint64_t **sizes, size_t *n) {
  char start[128], end[128], step[128];
  const char *colon = strchr(dots + 2, ':');
  if (!colon) return a2_cmd_usage_error("--sizes", "no :STEP in '%s'; %s", spec, sizes_expected);
  size_t ls = (size_t)(dots - spec), le = (size_t)(colon - dots - 2);
  if (!ls || !le || ls >= sizeof start || le >= sizeof end || strlen(colon + 1) >= sizeof step ||
      !colon[1])
    return a2_cmd_usage_error("--sizes", "cannot read '%s'; %s", spec, sizes_expected);
  memcpy(start, spec, ls);
  start[ls] = '\0';
  memcpy(end, dots + 2, le);
  end[le] = '\0';
  strcpy(step, colon + 1);
  uint64_t lo, hi, by;
  int rc;
  if ((rc = parse_one_size("start", start, spec, &lo)) ||
      (rc = parse_one_size("end", end, spec, &hi)))
    return rc;
  if (lo == 0)
    return a2_cmd_usage_error("--sizes", "the start of '%s' must be at least 1 byte", spec);
  if (lo > hi)
    return a2_cmd_usage_error("--sizes", "the start of '%s' is larger than its end", spec);
  size_t cap = 0;
  if (step[0] == 'x') {
    char why[256];
    if (a2_parse_quantity(step + 1, A2_UNIT_COUNT, &by, why, sizeof why) || by < 2)
      return a2_cmd_usage_error("--sizes",
                                "expected a whole factor of at least 2 after 'x' in "
                                "'%s' (e.g. 256B..64MiB:x4)",
                                spec);
    for (uint64_t v = lo;;) {
      if ((rc = push_size(sizes, n, &cap, v))) return rc;
      if (v > hi / by) break; /* v * by > hi (and no overflow) */
      v *= by;
      if (v > hi) break;
    }
  } else if (step[0] == '+') {
    if ((rc = parse_one_size("step", step + 1, spec, &by))) return rc;
    if (!by) return a2_cmd_usage_error("--sizes", "the step of '%s' must be at least 1 byte", spec);
    for (uint64_t v = lo;;) {
      if ((rc = push_size(sizes, n, &cap, v))) return rc;
      if (hi - v < by) break;
      v += by;
    }
  } else {
    return a2_cmd_usage_error("--sizes", "unknown step '%s' in '%s'; %s", step, spec,
                              sizes_expected);
  }
  return 0;
}

int a2_sweep_parse_sizes(const char *spec, uint64_t **sizes, size_t *n) {
  *sizes = NULL;
  *n = 0;
  if (!*spec) return a2_cmd_usage_error("--sizes", "empty; %s", sizes_expected);
  const char *dots = strstr(spec, "..");
  int rc;
  if (dots) {
    if (strchr(spec, ','))
      return a2_cmd_usage_error("--sizes", "'%s' mixes a range and a list; %s", spec,
                                sizes_expected);
    rc = parse_range(spec, dots, sizes, n);
  } else {
    char **items = NULL;
    size_t nitems = 0, cap = 0;
    rc = split_list("--sizes", spec, &items, &nitems);
    for (size_t i = 0; !rc && i < nitems; i++) {
      uint64_t v;
      char why[256];
      if (a2_parse_quantity(items[i], A2_UNIT_BYTES, &v, why, sizeof why))
        rc = a2_cmd_usage_error("--sizes", "'%s' in '%s': %s", items[i], spec, why);
      else
        rc = push_size(sizes, n, &cap, v);
    }
    free_list(items, nitems);
  }
  if (!rc) {
    qsort(*sizes, *n, sizeof **sizes, cmp_u64);
    for (size_t i = 1; i < *n; i++)
      if ((*sizes)[i] == (*sizes)[i - 1])
        rc = a2_cmd_usage_error("--sizes", "%llu bytes given twice in '%s'",
                                (unsigned long long)(*sizes)[i], spec);
  }
  if (rc) {
    free(*sizes);
    *sizes = NULL;
    *n = 0;
  }
  return rc;
}

static int parse_algos(const char *arg, a2_sweep *s) {
  int rc = split_list("--algo", arg, &s->algos, &s->nalgos);
  for (size_t i = 0; !rc && i < s->nalgos; i++) {
    if (!a2_collective_find(s->algos[i]) && a2_hccl_is_op(s->algos[i]))
      return a2_cmd_usage_error("--algo",
                                "'%s' is an operation, not a built-in: --hccl %s plots "
                                "HCCL's choice for it",
                                s->algos[i], s->algos[i]);
    if (!a2_collective_find(s->algos[i]))
      return a2_cmd_usage_error("--algo", "unknown algorithm '%s' (see a2a3sim list)", s->algos[i]);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(s->algos[i], s->algos[j]))
        return a2_cmd_usage_error("--algo", "'%s' given twice", s->algos[i]);
  }
  return rc;
}

static int parse_ranks(const char *arg, a2_sweep *s) {
  char **items = NULL;
  size_t n = 0;
  int rc = split_list("--ranks", arg, &items, &n);
  if (!rc && !(s->ranks = calloc(n, sizeof *s->ranks)))
    rc = a2_cmd_oom_error("--ranks", "out of memory");
  for (size_t i = 0; !rc && i < n; i++) {
    uint64_t v;
    if (a2_parse_quantity(items[i], A2_UNIT_COUNT, &v, NULL, 0) || v < 1 || v > 1048576) {
      rc = a2_cmd_usage_error("--ranks",
                              "expected a comma-separated list of rank counts in "
                              "1..1048576 such as 2,4,8, got '%s' in '%s'",
                              items[i], arg);
      break;
    }
    s->ranks[i] = (uint32_t)v;
    s->nranks = i + 1;
    for (size_t j = 0; j < i; j++)
      if (s->ranks[j] == s->ranks[i])
        rc = a2_cmd_usage_error("--ranks", "%s given twice", items[i]);
  }
  free_list(items, n);
  return rc;
}

/* KEY=V1,V2,.. into s->sets[s->nsets]. */
static int parse_set(const char *arg, a2_sweep *s) {
  if (s->nsets == A2_MAX_SETS) return a2_cmd_usage_error("--set", "more than %d", A2_MAX_SETS);
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || !eq[1])
    return a2_cmd_usage_error("--set", "expected KEY=VALUE or KEY=V1,V2,.., got '%s'", arg);
  a2_sweep_set *set = &s->sets[s->nsets];
  size_t klen = (size_t)(eq - arg);
  if (!(set->key = malloc(klen + 1))) return a2_cmd_oom_error("--set", "out of memory");
  memcpy(set->key, arg, klen);
  set->key[klen] = '\0';
  s->nsets++;
  for (size_t j = 0; j + 1 < s->nsets; j++)
    if (!strcmp(s->sets[j].key, set->key))
      return a2_cmd_usage_error(
          "--set", "%s given twice (put every value in one --set %s=V1,V2,..)", set->key, set->key);
  int rc = split_list("--set", eq + 1, &set->values, &set->nvalues);
  for (size_t i = 0; !rc && i < set->nvalues; i++)
    for (size_t j = 0; j < i; j++)
      if (!strcmp(set->values[i], set->values[j]))
        return a2_cmd_usage_error("--set", "%s=%s given twice", set->key, set->values[i]);
  return rc;
}

/* A run flag of the GEMM built-ins as a set: LIST of positive integers. */
static int parse_flag_set(const char *flag, const char *key, const char *arg, a2_sweep *s) {
  if (s->nsets == A2_MAX_SETS) return a2_cmd_usage_error(flag, "more than %d sets", A2_MAX_SETS);
  a2_sweep_set *set = &s->sets[s->nsets];
  if (!(set->key = a2_sweep_strdup(key))) return a2_cmd_oom_error(flag, "out of memory");
  set->flag = flag;
  s->nsets++;
  int rc = split_list(flag, arg, &set->values, &set->nvalues);
  for (size_t i = 0; !rc && i < set->nvalues; i++) {
    uint64_t v;
    if (a2_parse_quantity(set->values[i], A2_UNIT_COUNT, &v, NULL, 0) || v < 1 || v > 1048576)
      return a2_cmd_usage_error(flag,
                                "expected a comma-separated list of positive integers, got "
                                "'%s' in '%s'",
                                set->values[i], arg);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(set->values[i], set->values[j]))
        return a2_cmd_usage_error(flag, "%s given twice", set->values[i]);
  }
  return rc;
}

/* Every value on a scratch copy of the config (run's messages), then every
 * combination through the cross-key checks. */
static int check_sets(const a2_sweep *s) {
  a2_config base, scratch;
  a2_err e = {0};
  a2_config_default(&base);
  if (s->config_path && a2_config_load(s->config_path, &base, &e)) {
    a2_cmd_error(&e);
    return a2_err_exit_code(e.code);
  }
  for (size_t i = 0; i < s->nsets; i++)
    for (size_t v = 0; v < s->sets[i].nvalues && !s->sets[i].flag; v++) {
      scratch = base;
      if (a2_config_set(&scratch, s->sets[i].key, s->sets[i].values[v], &e)) {
        a2_cmd_error(&e);
        return A2_EXIT_USAGE;
      }
    }
  for (size_t c = 0; c < s->ncombos; c++) {
    scratch = base;
    for (size_t i = 0; i < s->nsets; i++)
      if (!s->sets[i].flag &&
          a2_config_set(&scratch, s->sets[i].key, a2_sweep_set_value(s, i, c), &e)) {
        a2_cmd_error(&e);
        return A2_EXIT_USAGE;
      }
    if (a2_config_validate(&scratch, s->config_path ? s->config_path : "--set", &e)) {
      a2_cmd_error(&e);
      return A2_EXIT_USAGE;
    }
  }
  return 0;
}

/* Is dir (created if missing, with its parents) a directory we can write? */
static int prepare_dir(const char *dir) {
  char path[4096];
  if (!*dir) return a2_cmd_usage_error("-o", "empty directory name");
  if (strlen(dir) + 64 >= sizeof path) return a2_cmd_usage_error("-o", "path too long");
  strcpy(path, dir);
  for (char *p = path + 1;; p++) {
    if (*p != '/' && *p) continue;
    char c = *p;
    *p = '\0';
    if (mkdir(path, 0777) && errno != EEXIST)
      return a2_cmd_usage_error("-o", "cannot create directory '%s': %s", path, strerror(errno));
    *p = c;
    if (!c) break;
  }
  snprintf(path, sizeof path, "%s/.a2a3sim-sweep-probe-%ld", dir, (long)getpid());
  FILE *f = fopen(path, "w");
  if (!f) return a2_cmd_usage_error("-o", "cannot write in '%s': %s", dir, strerror(errno));
  fclose(f);
  remove(path);
  return 0;
}

/* ---- the table: setters, rows, commands ---- */

static int set_algo(const a2_flag *f, const char *v, void *s) {
  (void)f;
  return parse_algos(v, s);
}

static int set_hccl(const a2_flag *f, const char *v, void *opts) {
  a2_sweep *s = opts;
  (void)f;
  if (!a2_hccl_is_op(v))
    return a2_cmd_usage_error("--hccl", "unknown operation '%s'; expected one of %s", v,
                              a2_hccl_ops());
  s->hccl_op = v;
  return 0;
}

static int set_ranks(const a2_flag *f, const char *v, void *s) {
  (void)f;
  return parse_ranks(v, s);
}

static int set_sizes(const a2_flag *f, const char *v, void *opts) {
  a2_sweep *s = opts;
  (void)f;
  return a2_sweep_parse_sizes(v, &s->sizes, &s->nsizes);
}

static int set_set(const a2_flag *f, const char *v, void *s) {
  (void)f;
  return parse_set(v, s);
}

/* --m LIST ...: a set whose CSV column is the flag's name ("compute_cores"). */
static int set_gemm(const a2_flag *f, const char *v, void *s) {
  char key[32];
  snprintf(key, sizeof key, "%s", f->name + 2);
  for (char *p = key; *p; p++)
    if (*p == '-') *p = '_';
  return parse_flag_set(f->name, key, v, s);
}

#define AT(field) offsetof(a2_sweep, field)
static const char *const devices[] = {"a2", "a3", NULL}; /* a2_hccl_device */

static const a2_flag rows[] = {
    {A2_FLAG_CUSTOM, "--algo", .arg = "LIST", .type = "list of names", .set = set_algo,
     .twice = "given twice (use one comma-separated list)",
     .help = "built-in collectives, comma-separated (`a2a3sim list`)"},
    {A2_FLAG_CUSTOM, "--hccl", .arg = "OP", .type = "operation", .set = set_hccl,
     .twice = "given twice",
     .help = "also HCCL's choice for OP (allreduce, allgather, reduce_scatter, all_to_all, "
             "broadcast) at every point: an `hccl` line in the plots and hccl.txt, where it "
             "misses the measured best; the chosen built-ins join `--algo`, which defaults to "
             "OP's built-ins"},
    {A2_FLAG_CHOICE, "--hccl-device", .arg = "a2|a3", .off = AT(hccl_device), .choices = devices,
     .def = "a2",
     .help = "with `--hccl`: the rules of `a2` (910B) or `a3` (910_93), as `a2a3sim run "
             "--hccl-device`"},
    {A2_FLAG_CUSTOM, "--ranks", .arg = "LIST", .type = "list of integers 1..1048576",
     .set = set_ranks, .twice = "given twice (use one comma-separated list)",
     .help = "rank counts, comma-separated: `2,4,8`"},
    {A2_FLAG_CUSTOM, "--sizes", .arg = "SPEC", .type = "sizes", .set = set_sizes,
     .twice = "given twice",
     .help = "bytes per rank: `256B..64MiB:x4` (from 256 B, times 4 while <= 64 MiB), "
             "`1KiB..8KiB:+1KiB` (steps of 1 KiB), or a list `256,4KiB,1MiB`"},
    {A2_FLAG_CUSTOM, "--set", .arg = "KEY=V1,V2,..", .type = "KEY=list", .set = set_set,
     .repeat = true,
     .help = "a config key to sweep (one CSV column per such key); with one value, a plain "
             "override as in `a2a3sim run`"},
    {A2_FLAG_STRING, "--config", .arg = "FILE", .type = "file", .off = AT(config_path),
     .twice = "given twice", .def = "the built-in " A2_DEFAULT_CONFIG,
     .help = "YAML config (docs/config.md)"},
    {A2_FLAG_BOOL, "--no-data", .off = AT(no_data),
     .help = "every point timing-only (`run --no-data`: no golden check)"},
    {A2_FLAG_UINT, "--jobs", .arg = "N", .off = AT(jobs), .lo = 1, .hi = 1024,
     .twice = "given twice", .def = "the number of online CPUs", .help = "points run at once"},
    {A2_FLAG_STRING, "--output", .letter = "-o", .arg = "DIR", .type = "directory",
     .off = AT(out_dir), .twice = "given twice", .help = "where the files go (created if missing)"},
    {A2_FLAG_SECTION, "The GEMM built-ins' flags",
     .help = "comma-separated values of `a2a3sim run`'s flags, swept like `--set`: one CSV "
             "column each, `m`, `k`, `n`, `compute_cores`, `comm_cores`"},
    {A2_FLAG_CUSTOM, "--m", .arg = "LIST", .type = "list of integers", .set = set_gemm,
     .twice = "given twice (use one comma-separated list)",
     .help = "M values; with `--m`, `--sizes` is not given (M replaces it; the CSV's size_bytes is "
             "empty)"},
    {A2_FLAG_CUSTOM, "--k", .arg = "LIST", .type = "list of integers", .set = set_gemm,
     .twice = "given twice (use one comma-separated list)", .help = "K values"},
    {A2_FLAG_CUSTOM, "--n", .arg = "LIST", .type = "list of integers", .set = set_gemm,
     .twice = "given twice (use one comma-separated list)", .help = "N values"},
    {A2_FLAG_CUSTOM, "--compute-cores", .arg = "LIST", .type = "list of integers", .set = set_gemm,
     .twice = "given twice (use one comma-separated list)", .help = "cube cores per rank"},
    {A2_FLAG_CUSTOM, "--comm-cores", .arg = "LIST", .type = "list of integers", .set = set_gemm,
     .twice = "given twice (use one comma-separated list)",
     .help = "communicating vector cores per rank"},
};
_Static_assert(sizeof rows / sizeof rows[0] <= A2_FLAGS_MAX, "A2_FLAGS_MAX holds the table");

static const a2_flag_cmd cmds[] = {{
    "sweep",
    0,
    "usage: a2a3sim sweep (--algo A,B,.. | --hccl OP) --ranks P,Q,..\n"
    "                     (--sizes SPEC | --m LIST) -o DIR [FLAG]...\n",
    .about = "Runs `a2a3sim run --json` for every point of the grid algos x ranks x sizes x\n"
             "(each --set with several values), one process per point, and writes DIR/sweep.csv,\n"
             "DIR/plot.gp with the PNGs gnuplot makes from it, and DIR/crossovers.txt (also\n"
             "printed): which algorithm is fastest at each size. Fused GEMM built-ins fill the\n"
             "overlap columns (compute_us .. tflops; docs/sweep.md).\n",
    .after = "A point that the collective refuses (e.g. a size it cannot divide) is a row with\n"
             "ok=false and the reason; it does not fail the sweep. Exit status: 0 when every\n"
             "point ran OK or was refused, 1 when a point FAILed (mismatch, race, deadlock),\n"
             "2 for bad flags, 3 for an internal error. Details: docs/sweep.md.\n"
#ifdef A2_MPI
             "\n"
             "Built with MPI: `mpirun -n K a2a3sim sweep ...` runs point i on MPI rank i % K;\n"
             "rank 0 gathers the rows and writes the same files.\n"
#endif
    ,
}};

const a2_flag_table a2_sweep_flags = {rows, sizeof rows / sizeof rows[0], cmds, 1};

/* The grid's size: the axes of the sets, then every point; 0 or an exit status. */
static int count_points(a2_sweep *s) {
  s->ncombos = 1;
  for (size_t i = 0; i < s->nsets; i++) {
    if (s->sets[i].nvalues < 2) continue;
    s->axes[s->naxes++] = i;
    if (s->ncombos > A2_SWEEP_MAX_POINTS / s->sets[i].nvalues)
      return a2_cmd_usage_error(NULL, "the grid has more than %d points", A2_SWEEP_MAX_POINTS);
    s->ncombos *= s->sets[i].nvalues;
  }
  int rc = check_sets(s);
  if (rc) return rc;
  if (s->hccl_op && (rc = a2_sweep_hccl_prepare(s))) return rc; /* may add algorithms */
  const size_t factors[] = {s->nalgos, s->nranks, s->nsizes, s->ncombos};
  s->npoints = 1;
  for (size_t i = 0; i < 4; i++) {
    if (factors[i] > A2_SWEEP_MAX_POINTS / s->npoints)
      return a2_cmd_usage_error(NULL, "the grid has more than %d points", A2_SWEEP_MAX_POINTS);
    s->npoints *= factors[i];
  }
  return 0;
}

int a2_sweep_parse(int argc, char **argv, a2_sweep *s) {
  memset(s, 0, sizeof *s);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  s->jobs = cpus > 0 ? (unsigned)cpus : 1;
  a2_flags_seen seen;
  int rc = a2_flags_parse(&a2_sweep_flags, 0, argc, argv, s, &seen);
  if (rc) return rc;
  if (!s->algos && !s->hccl_op)
    return a2_cmd_usage_error("--algo", "required: a comma-separated list (see a2a3sim list)");
  if (a2_flags_given(&seen, "--hccl-device") && !s->hccl_op)
    return a2_cmd_usage_error("--hccl-device", "only with --hccl OP");
  if (!s->ranks)
    return a2_cmd_usage_error("--ranks", "required: a comma-separated list such as 2,4,8");
  bool have_m = a2_flags_given(&seen, "--m");
  if (have_m && s->sizes)
    return a2_cmd_usage_error("--sizes", "not with --m (the GEMM's M replaces the size)");
  if (have_m) {
    if (!(s->sizes = calloc(1, sizeof *s->sizes))) return a2_cmd_oom_error("--m", "out of memory");
    s->nsizes = 1;
    s->no_size = true;
  }
  if (!s->sizes) return a2_cmd_usage_error("--sizes", "required; %s", sizes_expected);
  if (!s->out_dir) return a2_cmd_usage_error("-o", "required: the output directory");
  if ((rc = count_points(s))) return rc;
  return prepare_dir(s->out_dir);
}

void a2_sweep_free(a2_sweep *s) {
  if (s->hccl_exec)
    for (size_t i = 0; i < s->nranks * s->nsizes * s->ncombos; i++) free(s->hccl_exec[i]);
  free(s->hccl_exec);
  free(s->hccl_pick);
  free_list(s->algos, s->nalgos);
  free(s->ranks);
  free(s->sizes);
  for (size_t i = 0; i < s->nsets; i++) {
    free(s->sets[i].key);
    free_list(s->sets[i].values, s->sets[i].nvalues);
  }
  memset(s, 0, sizeof *s);
}
