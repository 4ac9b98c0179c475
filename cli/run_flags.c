/* The flags of `run` and `gen`: one table (common/flags.h), from which the
 * parser, `a2a3sim run --help`, `a2a3sim gen --help` and the tables of
 * docs/cli.md come (a2a3sim help --markdown run; scripts/check_cli_doc.sh
 * checks that docs/cli.md holds them). The rules between flags are in
 * cli/opts.c. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/units.h"

#define RUN (1u << A2_CMD_RUN)
#define GEN (1u << A2_CMD_GEN)
#define BOTH (RUN | GEN)
#define AT(field) offsetof(a2_run_opts, field)

/* --param NAME=VALUE: VALUE a signed integer or a size with a unit (16KiB). */
static int set_param(const a2_flag *f, const char *s, void *opts) {
  a2_run_opts *o = opts;
  (void)f;
  if (o->nparams == A2_PROGRAM_MAX_PARAMS)
    return a2_cmd_usage_error("--param", "more than %d", A2_PROGRAM_MAX_PARAMS);
  const char *eq = strchr(s, '=');
  size_t n = eq ? (size_t)(eq - s) : 0;
  if (!eq || n == 0 || n >= A2_NAME_MAX)
    return a2_cmd_usage_error("--param",
                              "expected NAME=VALUE (a name of at most %d characters), "
                              "got '%s'",
                              A2_NAME_MAX - 1, s);
  char *name = o->param_names[o->nparams];
  memcpy(name, s, n);
  name[n] = 0;
  const char *v = eq + 1;
  int64_t value;
  char why[128];
  uint64_t q;
  if (*v == '-') {
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v + 1 || *end || errno)
      return a2_cmd_usage_error("--param", "%s: expected an integer or a size, got '%s'", name, v);
    value = x;
  } else if (a2_parse_quantity(v, A2_UNIT_BYTES, &q, why, sizeof why) || q > INT64_MAX) {
    return a2_cmd_usage_error("--param",
                              "%s: expected an integer or a size such as 16KiB, got '%s'", name, v);
  } else {
    value = (int64_t)q;
  }
  o->params[o->nparams++] = (a2_program_param){name, value};
  return 0;
}

static int bad_devices(const char *s) {
  return a2_cmd_usage_error("-d",
                            "expected a comma-separated list of device numbers such as "
                            "0,1,2,3, got '%s'",
                            s);
}

/* -d 0,1,2,3 */
static int set_devices(const a2_flag *f, const char *s, void *opts) {
  a2_run_opts *o = opts;
  (void)f;
  uint32_t n = 1;
  for (const char *p = s; *p; p++) n += *p == ',';
  o->devices = calloc(n, sizeof *o->devices);
  if (!o->devices) return a2_cmd_oom_error("-d", "out of memory");
  const char *p = s;
  for (uint32_t i = 0; i < n; i++) {
    char *end;
    if (*p < '0' || *p > '9') return bad_devices(s);
    unsigned long v = strtoul(p, &end, 10);
    if ((*end != ',' && *end != '\0') || v > 1048575) return bad_devices(s);
    o->devices[i] = (uint32_t)v;
    p = end + (*end == ',');
  }
  o->nranks = n;
  return 0;
}

/* The fault flags (cli/faults.c). */
static int set_fault(const a2_flag *f, const char *s, void *opts) {
  a2_faults *faults = &((a2_run_opts *)opts)->faults;
  if (!strcmp(f->name, "--slow-rank")) return a2_parse_slow_rank(s, faults);
  if (!strcmp(f->name, "--jitter")) return a2_parse_jitter(s, faults);
  return a2_parse_link_fault(f->name, s, faults);
}

/* The reductions and element types by value (a2_reduce_op, a2_dtype). */
static const char *const ops[] = {"sum", "max", "min", "prod", NULL};
_Static_assert(sizeof ops / sizeof ops[0] == A2_REDUCE_OPS + 1, "a name per a2_reduce_op");
static const char *const dtypes[] = {"fp32", "fp16", NULL}; /* what collectives generate */
_Static_assert(A2_FP32 == 0 && A2_FP16 == 1, "dtypes[] is indexed by a2_dtype");
static const char *const devices[] = {"a2", "a3", NULL}; /* a2_hccl_device */
_Static_assert(sizeof(a2_reduce_op) == sizeof(int) && sizeof(a2_dtype) == sizeof(int),
               "a choice is stored as an int");

static const a2_flag rows[] = {
    {A2_FLAG_STRING, "--algo", .arg = "NAME", .type = "name", .off = AT(algo), .cmds = BOTH,
     .help = "built-in collective (`a2a3sim list`), or `allreduce` (run only): the all-reduce "
             "HCCL would choose for the config's topology, P, size and `--op`",
     .doc = "(docs/collectives.md, \"Choosing as HCCL does\"); the report names the built-in "
            "chosen"},
    {A2_FLAG_STRING, "--program", .arg = "FILE", .type = "file", .off = AT(program_file),
     .cmds = RUN,
     .help = "a program file (docs/program-format.md): its sizes and types come from the file"},
    {A2_FLAG_CUSTOM, "--param", .arg = "NAME=VALUE", .type = "NAME=integer or size",
     .set = set_param, .repeat = true, .cmds = RUN,
     .help = "the value of the program file's `param NAME = EXPR`: an integer or a size with a "
             "unit (`16KiB`); only with `--program`",
     .doc = "A name the file does not declare as a param is an error listing the params it "
            "has."},
    {A2_FLAG_CUSTOM, "--devices", .letter = "-d", .arg = "LIST", .type = "list of NPUs",
     .set = set_devices, .twice = "given twice", .cmds = BOTH,
     .help = "NPUs to run on, comma-separated, as the PyPTO tutorial's `-d 0,1,2,3`; P = their "
             "count",
     .doc = "Each below `interconnect.ranks`, no repeats."},
    {A2_FLAG_UINT, "--ranks", .arg = "P", .off = AT(nranks), .lo = 1, .hi = 1048576, .cmds = BOTH,
     .help = "run on NPUs 0..P-1 (not with `-d`); above `interconnect.ranks` a ring, switch, "
             "two_level, levels or torus grows to P NPUs (the report says so)",
     .doc = "A torus grows when its `torus_width` divides P; the report says `note: the ring "
            "grown from the config's 8 NPUs to 16 ...` (JSON `interconnect_ranks_grown_from`). "
            "A full mesh, a torus of another width, an explicit `--set interconnect.ranks` or "
            "`-d` do not grow, and the error names the `--set interconnect.ranks=P` (and "
            "`interconnect.torus_width=W`) that would run it."},
    {A2_FLAG_SIZE, "--size", .arg = "BYTES", .off = AT(size_bytes),
     .def = "256 (allreduce_mesh's 64 fp32)", .cmds = BOTH,
     .help = "bytes of each rank's slice (N): 256, 4KiB, 1MiB, 1MB...; not with `--program`; "
             "the GEMM built-ins without `--m`: the GEMM's M rows",
     .doc = "Two-phase and ring need a multiple of 4*P."},
    {A2_FLAG_CHOICE, "--op", .arg = "OP", .off = AT(op), .choices = ops, .def = "sum",
     .group = A2_RUN_COLL, .cmds = BOTH, .help = "the reduction"},
    {A2_FLAG_CHOICE, "--dtype", .arg = "T", .off = AT(dtype), .choices = dtypes, .def = "fp32",
     .group = A2_RUN_COLL, .cmds = BOTH, .help = "element type"},
    {A2_FLAG_UINT, "--root", .arg = "R", .off = AT(root), .hi = 1048575, .def = "0",
     .group = A2_RUN_COLL, .cmds = BOTH, .help = "root rank of broadcast-style collectives"},
    {A2_FLAG_UINT, "--cores", .arg = "C", .off = AT(cores), .lo = 1, .hi = 1024, .def = "1",
     .group = A2_RUN_COLL, .cmds = BOTH,
     .help = "vector cores per rank (at most `chip.vector_cores`): `allreduce_mesh`, "
             "`allreduce_two_phase`, `allgather`, `reduce_scatter`, `all_to_all` and the "
             "hierarchical `allreduce_hier_*`, `allreduce_hier3_*`, `allgather_hier_*`, "
             "`reduce_scatter_hier_*` split the data over them (the other collectives take 1); "
             "the GEMM built-ins: the default of `--compute-cores` and `--comm-cores`"},

    {A2_FLAG_SECTION, "The GEMM built-ins",
     .help = "`gemm`, `gemm_allreduce`, `allgather_gemm`; docs/collectives.md, \"The GEMM "
             "built-ins\"; other built-ins and program files refuse these flags"},
    {A2_FLAG_UINT, "--m", .arg = "M", .off = AT(m), .lo = 1, .hi = 1u << 20, .def = "--size",
     .group = A2_RUN_GEMM, .cmds = BOTH,
     .help = "the GEMM's M (rows per rank) in elements: a multiple of 128, not padded (the error "
             "names the padded value); not with `--size`"},
    {A2_FLAG_UINT, "--k", .arg = "K", .off = AT(k), .lo = 1, .hi = 1u << 20, .def = "256",
     .group = A2_RUN_GEMM, .cmds = BOTH,
     .help = "the GEMM's K in elements: a multiple of 256, not padded"},
    {A2_FLAG_UINT, "--n", .arg = "N", .off = AT(n), .lo = 1, .hi = 1u << 20, .def = "512",
     .group = A2_RUN_GEMM, .cmds = BOTH,
     .help = "the GEMM's N in elements: a multiple of 256, not padded"},
    {A2_FLAG_UINT, "--compute-cores", .arg = "C", .off = AT(compute_cores), .lo = 1, .hi = 1024,
     .def = "--cores", .group = A2_RUN_GEMM, .cmds = BOTH,
     .help = "cube cores per rank (at most `chip.cube_cores`)"},
    {A2_FLAG_UINT, "--comm-cores", .arg = "V", .off = AT(comm_cores), .lo = 1, .hi = 1024,
     .def = "--cores", .group = A2_RUN_GEMM, .cmds = BOTH,
     .help = "vector cores per rank that communicate (at most `chip.vector_cores`): "
             "`gemm_allreduce` and `allgather_gemm` (`gemm` refuses it)"},

    {A2_FLAG_SECTION, "Choosing as HCCL does",
     .help = "docs/collectives.md; every flag here but `--hccl` implies `--hccl`; with a "
             "program file or a built-in that is not an operation, a usage error naming the "
             "flag"},
    {A2_FLAG_BOOL, "--hccl", .off = AT(hccl), .group = A2_RUN_CHOOSER, .cmds = RUN,
     .help = "with `--algo allgather`, `reduce_scatter`, `all_to_all` or `broadcast`: run the "
             "built-in HCCL would choose for the operation, not the built-in of that name "
             "(`--algo allreduce` chooses without it)"},
    {A2_FLAG_BOOL, "--explain", .off = AT(explain), .group = A2_RUN_CHOOSER, .cmds = RUN,
     .help = "print HCCL's choice and its rule, run every built-in of the operation and show "
             "the measured best and by how much HCCL's choice misses it",
     .doc = "Each candidate runs in a child process with the same config and flags; with "
            "`--json` the explanation goes to stderr."},
    {A2_FLAG_STRING, "--hccl-algo", .arg = "NAME", .type = "name", .off = AT(hccl_algo),
     .group = A2_RUN_CHOOSER, .cmds = RUN,
     .help = "run this built-in of the operation instead of the rule's pick, as `HCCL_ALGO` "
             "forces HCCL's"},
    {A2_FLAG_CHOICE, "--hccl-device", .arg = "a2|a3", .off = AT(hccl_device), .choices = devices,
     .def = "a2", .group = A2_RUN_CHOOSER, .cmds = RUN,
     .help = "the device whose rules the chooser applies: `a2` (910B) or `a3` (910_93, e.g. "
             "with configs/a3-supernode.yaml)"},
    {A2_FLAG_BOOL, "--hccl-aiv", .off = AT(hccl_aiv), .group = A2_RUN_CHOOSER, .cmds = RUN,
     .help = "HCCL's AIV mode (`HCCL_OP_EXPANSION_MODE=AIV`) of the `--hccl-device`: its AIV "
             "executors, run as the multi-core built-ins on the vector cores they launch (P, "
             "P+1, 2P...)",
     .doc = "At most `chip.vector_cores`, or the A3 cross-server tiers (docs/collectives.md, "
            "\"AIV mode\"); where the AIV rules do not apply, the rules of AIV mode off "
            "choose."},
    {A2_FLAG_BOOL, "--hccl-deterministic", .off = AT(hccl_deterministic), .group = A2_RUN_CHOOSER,
     .cmds = RUN,
     .help = "`HCCL_DETERMINISTIC=true`: the 910B's rules for deterministic reduction (no "
             "level-1 Pipeline, the deterministic executors)",
     .doc = "See docs/collectives.md, \"Deterministic reduction\"; the 910_93 rules do not "
            "read it."},

    {A2_FLAG_SECTION, "Config and input", .help = NULL},
    {A2_FLAG_STRING, "--config", .arg = "FILE", .type = "file", .off = AT(config_path),
     .def = "the built-in copy of " A2_DEFAULT_CONFIG, .cmds = BOTH,
     .help = "YAML config (docs/config.md)"},
    {A2_FLAG_LIST, "--set", .arg = "KEY=VALUE", .type = "KEY=VALUE", .off = AT(sets),
     .count_off = AT(nsets), .hi = A2_MAX_SETS, .repeat = true, .cmds = BOTH,
     .help = "override one config key after the file, with the file's validation: `--set "
             "interconnect.link.bandwidth=56GB/s`"},
    {A2_FLAG_UINT, "--seed", .arg = "S", .off = AT(seed), .def = "1", .cmds = BOTH,
     .help = "the seed of the input pattern and of `--jitter`"},

    {A2_FLAG_SECTION, "Limits and checks", .help = NULL},
    {A2_FLAG_TIME, "--max-sim-time", .arg = "T", .off = AT(max_sim_ps), .lo = 1,
     .bad = "expected a time such as 10ms", .cmds = RUN,
     .help = "stop when simulated time reaches T (`10ms`) and report what is unfinished "
             "(status `TIMEOUT`)"},
    {A2_FLAG_U64, "--max-events", .arg = "N", .off = AT(max_events), .lo = 1,
     .bad = "expected a positive integer", .cmds = RUN,
     .help = "stop after N event-kernel activations (events) and report what is unfinished "
             "(status `EVENT_LIMIT`)"},
    {A2_FLAG_SIZE, "--mem-limit", .arg = "SIZE", .off = AT(mem_limit), .lo = 1, .def = "8GiB",
     .bad = "expected a size such as 16GiB", .cmds = RUN,
     .help = "refuse (exit 2, before allocating) a run whose simulated buffers and tiles would "
             "need more: a policy, so it can be raised"},
    {A2_FLAG_SIZE, "--race-memory", .arg = "SIZE", .off = AT(race_memory), .lo = 1, .def = "2GiB",
     .bad = "expected a size such as 4GiB", .cmds = RUN,
     .help = "memory the race check may use (it grows with cores^2 and the buffer regions "
             "accessed); past it the check stops and says at what simulated time",
     .doc = "`race_check.abandoned` is then true."},
    {A2_FLAG_BOOL, "--no-race-check", .off = AT(no_race_check), .cmds = RUN,
     .help = "skip the happens-before race detection (on by default; docs/timing-model.md)"},
    {A2_FLAG_BOOL, "--no-data", .off = AT(no_data), .cmds = RUN,
     .help = "timing-only: no payload bytes are allocated or moved; times, counters and "
             "race/deadlock checks as with data, no golden check",
     .doc = "Signals still move; the output says `mode: timing-only`."},

    {A2_FLAG_SECTION, "Output", .help = NULL},
    {A2_FLAG_STRING, "--timeline", .arg = "FILE", .type = "file", .off = AT(timeline_out),
     .cmds = RUN,
     .help = "write a timeline of the run (Chrome Trace Event JSON, streamed): open it in "
             "ui.perfetto.dev or chrome://tracing",
     .doc = "(docs/output.md, \"Timeline\")"},
    {A2_FLAG_BOOL, "--json", .off = AT(json), .cmds = RUN,
     .help = "print the result as one JSON object (keys: docs/output.md)"},
    {A2_FLAG_BOOL, "--profile", .off = AT(profile), .cmds = RUN,
     .help = "print `wall_s`, event-kernel activations (`events`), `events_per_s` and "
             "`peak_rss_kb` of this process on stderr (for bench/)"},
    {A2_FLAG_STRING, "--output", .letter = "-o", .arg = "FILE", .type = "file", .off = AT(out_path),
     .cmds = GEN, .help = "where to write the program file (`-` = stdout)"},

    {A2_FLAG_SECTION, "Faults",
     .help = "docs/timing-model.md, \"Faults\"; NPUs are numbered as in `-d`"},
    {A2_FLAG_CUSTOM, "--slow-rank", .arg = "NPU=F", .type = "NPU=factor", .set = set_fault,
     .repeat = true, .cmds = RUN,
     .help = "NPU's vector cores, MTE engines and DMA queues at F times their speed (F > 0; "
             "`3=0.5`: NPU 3 at half speed); its HBM and links are unchanged"},
    {A2_FLAG_CUSTOM, "--slow-link", .arg = "A-B=F", .type = "NPU-NPU=factor", .set = set_fault,
     .repeat = true, .cmds = RUN,
     .help = "the link(s) between NPUs A and B, both directions, at F times their bandwidth "
             "(F > 0)"},
    {A2_FLAG_CUSTOM, "--link-down", .arg = "A-B", .type = "NPU-NPU", .set = set_fault,
     .repeat = true, .cmds = RUN,
     .help = "the link(s) between NPUs A and B, both directions, fail: routes go around them "
             "where the topology has another way (full mesh: through a third NPU; ring: the "
             "other direction), else the run reports `UNROUTED` and the transfers that needed "
             "them (exit 1)",
     .doc = "A full mesh (and a `two_level` server's mesh, a `levels` mesh level 0) routes "
            "through the lowest-numbered third NPU whose two links are up (`levels` without "
            "one: through the two NPUs' ports of level 1). Where no way is left (a torus, a "
            "two-NPU mesh, a ring cut twice) the run completes over the failed link, prints "
            "status `UNROUTED` and lists on stderr each transfer that needed it: rank, core, "
            "time, route and link. Only links between two NPUs can be named (not the ports of "
            "a `switch`, the NICs of `two_level` or the ports of a `levels` switch level)."},
    {A2_FLAG_CUSTOM, "--jitter", .arg = "T", .type = "time", .set = set_fault, .cmds = RUN,
     .help = "each remote transfer starts a random extra 0..T later (uniform, a pure function of "
             "`--seed` and the transfer's order: the same seed gives the same run)"},
    {A2_FLAG_UINT, "--seeds", .arg = "K", .off = AT(seeds), .lo = 1, .hi = 100000, .cmds = RUN,
     .help = "K runs, seeds S..S+K-1 (S = `--seed`), one child process each: their times and "
             "the spread (min, median, max); not with `--timeline`",
     .doc = "Prints each seed's time and `seeds S..S+K-1 (K runs, jitter T us): time min .. us, "
            "median .. us, max .. us (spread .. % of the median)`; with `--json` one object: "
            "`seeds` (`seed`, `time_us` each), `jitter_us`, `time_min_us`, `time_median_us`, "
            "`time_max_us`. Exit status: the worst of the runs'."},

    {A2_FLAG_SECTION, "Several jobs", .help = "timing-only; docs/cli.md, \"Several jobs\""},
    {A2_FLAG_LIST, "--job", .arg = "SPEC", .type = "KEY=VALUE,...", .off = AT(jobs),
     .count_off = AT(njobs), .hi = A2_MAX_JOBS, .repeat = true, .cmds = RUN,
     .help = "a built-in collective on its own NPUs of the shared fabric, e.g. "
             "`algo=allreduce_ring,ranks=0-3,size=1MiB,start=0us`; up to 16, on disjoint NPU "
             "sets; reports each job's time alone, together and the slowdown. Without `--algo`, "
             "`--program` or `--job`, the `--config` file's `jobs:` list (docs/config.md)"},

    {A2_FLAG_SECTION, "Deprecated",
     .help = "still accepted, with a warning; removed in the next release"},
    {A2_FLAG_ALIAS, "--trace-file", .arg = "FILE", .alias_of = "--program",
     .doc = "(the file is a program: docs/architecture.md, \"Glossary\"; \"trace\" named both "
            "it and the timeline)"},
    {A2_FLAG_ALIAS, "--trace", .arg = "FILE", .alias_of = "--timeline", .doc = "(the same)"},
};
_Static_assert(sizeof rows / sizeof rows[0] <= A2_FLAGS_MAX, "A2_FLAGS_MAX holds the table");

static const a2_flag_cmd cmds[] = {
    [A2_CMD_RUN] = {"run", 0,
                    "usage: a2a3sim run (--algo NAME | --program FILE [--param NAME=VALUE]...)\n"
                    "                   (-d LIST | --ranks P) [FLAG]...\n"
                    "   or: a2a3sim run --job SPEC... [FLAG]...\n"
                    "   or: a2a3sim run --config FILE [FLAG]...  (the config's jobs: list)\n",
                    .after = "Prints OK when every rank's output matches the golden computed "
                             "independently and\n"
                             "no data race was found; FAIL (mismatches), RACE (unordered "
                             "conflicting accesses,\n"
                             "even if the values happened to be right), DEADLOCK or TIMEOUT "
                             "otherwise (exit 1).\n"},
    [A2_CMD_GEN] = {"gen", 0,
                    "usage: a2a3sim gen --algo NAME (-d LIST | --ranks P) -o FILE [FLAG]...\n",
                    .about = "Writes the built-in collective as a program file "
                             "(docs/program-format.md); running it\n"
                             "with `a2a3sim run --program FILE` reports exactly what `run "
                             "--algo` reports.\n"
                             "The config matters: it sets the unified-buffer size the "
                             "generator tiles for.\n"},
};

const a2_flag_table a2_run_flags = {rows, sizeof rows / sizeof rows[0], cmds, 2};
