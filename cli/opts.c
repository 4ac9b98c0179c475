/* Flags shared by `run` and `gen`, and loading the config they name. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/units.h"

static const char run_usage[] =
    "usage: a2a3sim run (--algo NAME | --program FILE [--param NAME=VALUE]...)\n"
    "                   (-d 0,1,2,3 | --ranks P)\n"
    "                   [--size BYTES] [--op OP] [--dtype T] [--root R] [--cores C]\n"
    "                   [--m M] [--k K] [--n N] [--compute-cores C] [--comm-cores V]\n"
    "                   [--config FILE] [--set KEY=VALUE]... [--seed S] [--max-sim-time T]\n"
    "                   [--max-events N] [--mem-limit SIZE] [--race-memory SIZE]\n"
    "                   [--no-race-check] [--no-data] [--timeline FILE] [--json] [--profile]\n"
    "                   [--slow-rank NPU=F]... [--slow-link A-B=F]... [--link-down A-B]...\n"
    "                   [--jitter T] [--seeds K]\n"
    "                   [--hccl] [--explain] [--hccl-algo NAME] [--hccl-device a2|a3]\n"
    "                   [--hccl-aiv] [--hccl-deterministic]\n"
    "   or: a2a3sim run --job algo=NAME,ranks=A-B[,size=S][,start=T][,cores=C]...\n"
    "                   [the flags above but --algo, --program, -d, --ranks, --seeds]\n"
    "\n"
    "  --algo NAME        built-in collective (a2a3sim list), or allreduce: the one HCCL\n"
    "                     would choose for this topology, P and size (docs/collectives.md)\n"
    "  --hccl             with --algo allgather, reduce_scatter, all_to_all or broadcast:\n"
    "                     run the one HCCL would choose for the operation, not the built-in\n"
    "                     of that name (--algo allreduce chooses without it)\n"
    "  --explain          (implies --hccl) print the choice and its rule, run every\n"
    "                     built-in of the operation and show the measured best and HCCL's miss\n"
    "  --hccl-algo NAME   (implies --hccl) force this built-in (as HCCL_ALGO does)\n"
    "  --hccl-device D    (implies --hccl) the device whose rules the chooser applies:\n"
    "                     a2 (910B, default) or a3 (910_93)\n"
    "  --hccl-aiv         (implies --hccl) HCCL's AIV mode (HCCL_OP_EXPANSION_MODE=AIV)\n"
    "                     of the --hccl-device: its AIV executors, as the multi-core\n"
    "                     built-ins on the vector cores they launch (P, P+1, 2P...)\n"
    "  --hccl-deterministic (implies --hccl) HCCL_DETERMINISTIC=true: the 910B's rules\n"
    "                     for deterministic reduction (no Pipeline, the deterministic\n"
    "                     executors)\n"
    "  --program FILE  a program file (docs/program-format.md)\n"
    "  --param NAME=VALUE set a `param` of the program file (a count or a size: 16KiB);\n"
    "                     repeatable, only with --program\n"
    "  -d, --devices LIST NPUs to run on, comma-separated (as the PyPTO tutorial's -d); P = count\n"
    "  --ranks P          run on NPUs 0..P-1; above interconnect.ranks a ring, switch,\n"
    "                     two_level, levels or torus grows to P NPUs (the report says so)\n"
    "  --size BYTES       bytes of each rank's slice: 256, 4KiB, 1MiB, 1MB...\n"
    "                     (default 256 = allreduce_mesh's 64 fp32; not with --program;\n"
    "                     the GEMM built-ins without --m: the GEMM's M rows)\n"
    "  --op OP            reduction: sum (default), max, min, prod\n"
    "  --dtype T          element type: fp32 (default), fp16\n"
    "  --root R           root rank of broadcast-style collectives (default 0)\n"
    "  --cores C          vector cores per rank (default 1): allreduce_mesh,\n"
    "                     allreduce_two_phase, allgather, reduce_scatter, all_to_all\n"
    "                     and the hierarchical allreduce_hier_*, allgather_hier_*,\n"
    "                     reduce_scatter_hier_* split the data over them; the GEMM\n"
    "                     built-ins: C cube and C vector cores unless\n"
    "                     --compute-cores / --comm-cores\n"
    "  --m M, --k K, --n N  the GEMM built-ins (gemm, gemm_allreduce, allgather_gemm):\n"
    "                     the shape in elements, M rows per rank (a multiple of 128),\n"
    "                     K (of 256), N (of 256); not padded: pad as gemm_ar does\n"
    "                     (default M = --size, K 256, N 512); --m is not with --size\n"
    "  --compute-cores C  the GEMM built-ins: cube cores per rank (<= chip.cube_cores)\n"
    "  --comm-cores V     gemm_allreduce, allgather_gemm: vector cores per rank that\n"
    "                     communicate (<= chip.vector_cores)\n"
    "  --config FILE      YAML config (default: the built-in copy of " A2_DEFAULT_CONFIG
    ")\n"
    "  --set KEY=VALUE    override one config key, e.g. interconnect.link.bandwidth=56GB/s\n"
    "  --seed S           seed of the input pattern (default 1)\n"
    "  --max-sim-time T   stop a run that exceeds T simulated time (e.g. 10ms) and report\n"
    "  --max-events N     stop a run after N event-kernel activations (events) and report\n"
    "  --mem-limit SIZE   refuse runs whose simulated buffers and tiles need more\n"
    "                     (default 8GiB)\n"
    "  --no-race-check    skip happens-before race detection (on by default)\n"
    "  --race-memory SIZE memory the race check may use (default 2GiB; it grows with\n"
    "                     cores^2 and the buffer regions accessed); past it the check\n"
    "                     stops and says when\n"
    "  --no-data          timing-only: no payload bytes are allocated or moved; times,\n"
    "                     counters and race/deadlock checks as with data, no golden check\n"
    "  --timeline FILE    write a timeline of the run (Chrome/Perfetto JSON: open it in\n"
    "                     ui.perfetto.dev or chrome://tracing)\n"
    "  --json             print the result as one JSON object (keys: docs/output.md)\n"
    "  --profile          print wall time, event-kernel activations (events) per\n"
    "                     second and peak RSS of this process on stderr (for bench/)\n"
    "\n"
    "Faults (docs/timing-model.md, \"Faults\"; each fault flag is repeatable):\n"
    "  --slow-rank NPU=F  NPU's vector cores, MTE and DMA engines at F x their speed\n"
    "                     (F > 0; 0.5 = half speed)\n"
    "  --slow-link A-B=F  the link(s) between NPUs A and B at F x their bandwidth (F > 0)\n"
    "  --link-down A-B    the link(s) between NPUs A and B fail: routes go around them\n"
    "                     where the topology has another way (full mesh: through a third\n"
    "                     NPU; ring: the other direction), else the run reports UNROUTED\n"
    "                     and the transfers that needed them (exit 1)\n"
    "  --jitter T         each remote transfer starts a random extra 0..T later (uniform,\n"
    "                     from --seed: the same seed gives the same run)\n"
    "  --seeds K          K runs, seeds S..S+K-1 (S = --seed), one process each: their\n"
    "                     times and the spread (min, median, max)\n"
    "\n"
    "Several jobs (docs/cli.md, \"Several jobs\"; timing-only):\n"
    "  --job SPEC         a collective on its own NPUs of the shared fabric, e.g.\n"
    "                     algo=allreduce_ring,ranks=0-3,size=1MiB,start=0us (ranks: NPUs\n"
    "                     A-B, or several joined by +; size and cores default to --size\n"
    "                     and --cores); repeatable, disjoint NPU sets; reports each\n"
    "                     job's time alone, together and the slowdown. Without --algo\n"
    "                     or --job, the --config file's `jobs:` list (docs/config.md)\n"
    "\n"
    "Prints OK when every rank's output matches the golden computed independently and\n"
    "no data race was found; FAIL (mismatches), RACE (unordered conflicting accesses,\n"
    "even if the values happened to be right), DEADLOCK or TIMEOUT otherwise (exit 1).\n"
    "\n"
    "Deprecated (still accepted, with a warning; removed in the next release):\n"
    "  --trace-file FILE  use --program FILE\n"
    "  --trace FILE       use --timeline FILE\n";

static const char gen_usage[] =
    "usage: a2a3sim gen --algo NAME (-d 0,1,2,3 | --ranks P) [--size BYTES] [--op OP]\n"
    "                   [--dtype T] [--root R] [--cores C] [--config FILE] [--set KEY=VALUE]...\n"
    "                   [--m M] [--k K] [--n N] [--compute-cores C] [--comm-cores V]\n"
    "                   [--seed S] -o FILE\n"
    "\n"
    "Writes the built-in collective as a program file (docs/program-format.md); running it\n"
    "with `a2a3sim run --program FILE` reports exactly what `run --algo` reports.\n"
    "The config matters: it sets the unified-buffer size the generator tiles for.\n"
    "Flags as for `a2a3sim run`; -o - writes to stdout.\n";

/* --param NAME=VALUE: VALUE a signed integer or a size with a unit (16KiB). */
static int parse_param(const char *s, a2_run_opts *o) {
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

static int parse_devices(const char *s, a2_run_opts *o) {
  uint32_t n = 1;
  for (const char *p = s; *p; p++) n += *p == ',';
  o->devices = calloc(n, sizeof *o->devices);
  if (!o->devices) return a2_cmd_oom_error("-d", "out of memory");
  const char *p = s;
  for (uint32_t i = 0; i < n; i++) {
    char *end;
    if (*p < '0' || *p > '9')
      return a2_cmd_usage_error("-d",
                                "expected a comma-separated list of device numbers such "
                                "as 0,1,2,3, got '%s'",
                                s);
    unsigned long v = strtoul(p, &end, 10);
    if ((*end != ',' && *end != '\0') || v > 1048575)
      return a2_cmd_usage_error("-d",
                                "expected a comma-separated list of device numbers such "
                                "as 0,1,2,3, got '%s'",
                                s);
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
    return a2_cmd_usage_error(flag, "expected an integer in %u..%u, got '%s'", lo, hi, s);
  *out = (uint32_t)v;
  return 0;
}

static int parse_choice(const char *flag, const char *s, const char *const *names, int n,
                        int *out) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) {
      *out = i;
      return 0;
    }
  char list[128] = "";
  for (int i = 0; i < n; i++) {
    strncat(list, names[i], sizeof list - strlen(list) - 1);
    if (i + 1 < n) strncat(list, ", ", sizeof list - strlen(list) - 1);
  }
  return a2_cmd_usage_error(flag, "expected one of %s, got '%s'", list, s);
}

int a2_parse_run_flags(a2_cmd cmd, int argc, char **argv, a2_run_opts *o) {
  enum {
    O_ALGO = 256,
    O_RANKS,
    O_SIZE,
    O_CONFIG,
    O_SET,
    O_SEED,
    O_JSON,
    O_MAXT,
    O_HELP,
    O_PROGRAM,
    O_PROGRAM_OLD,
    O_OP,
    O_DTYPE,
    O_ROOT,
    O_CORES,
    O_NORACE,
    O_TIMELINE,
    O_TRACE_OLD,
    O_PROFILE,
    O_NODATA,
    O_RACEMEM,
    O_MAXEV,
    O_MEMLIM,
    O_PARAM,
    O_SLOWRANK,
    O_SLOWLINK,
    O_LINKDOWN,
    O_JITTER,
    O_SEEDS,
    O_JOB,
    O_EXPLAIN,
    O_HCCL_ALGO,
    O_HCCL_DEVICE,
    O_HCCL_AIV,
    O_HCCL_DETER,
    O_HCCL,
    O_GEMM_M,
    O_GEMM_K,
    O_GEMM_N,
    O_COMPUTE_CORES,
    O_COMM_CORES
  };
  static const struct option longs[] = {{"algo", required_argument, 0, O_ALGO},
                                        {"devices", required_argument, 0, 'd'},
                                        {"ranks", required_argument, 0, O_RANKS},
                                        {"size", required_argument, 0, O_SIZE},
                                        {"config", required_argument, 0, O_CONFIG},
                                        {"set", required_argument, 0, O_SET},
                                        {"seed", required_argument, 0, O_SEED},
                                        {"json", no_argument, 0, O_JSON},
                                        {"max-sim-time", required_argument, 0, O_MAXT},
                                        {"help", no_argument, 0, O_HELP},
                                        {"program", required_argument, 0, O_PROGRAM},
                                        {"trace-file", required_argument, 0, O_PROGRAM_OLD},
                                        {"op", required_argument, 0, O_OP},
                                        {"dtype", required_argument, 0, O_DTYPE},
                                        {"root", required_argument, 0, O_ROOT},
                                        {"cores", required_argument, 0, O_CORES},
                                        {"output", required_argument, 0, 'o'},
                                        {"no-race-check", no_argument, 0, O_NORACE},
                                        {"timeline", required_argument, 0, O_TIMELINE},
                                        {"trace", required_argument, 0, O_TRACE_OLD},
                                        {"profile", no_argument, 0, O_PROFILE},
                                        {"no-data", no_argument, 0, O_NODATA},
                                        {"race-memory", required_argument, 0, O_RACEMEM},
                                        {"max-events", required_argument, 0, O_MAXEV},
                                        {"mem-limit", required_argument, 0, O_MEMLIM},
                                        {"param", required_argument, 0, O_PARAM},
                                        {"slow-rank", required_argument, 0, O_SLOWRANK},
                                        {"slow-link", required_argument, 0, O_SLOWLINK},
                                        {"link-down", required_argument, 0, O_LINKDOWN},
                                        {"jitter", required_argument, 0, O_JITTER},
                                        {"seeds", required_argument, 0, O_SEEDS},
                                        {"job", required_argument, 0, O_JOB},
                                        {"explain", no_argument, 0, O_EXPLAIN},
                                        {"hccl-algo", required_argument, 0, O_HCCL_ALGO},
                                        {"hccl-device", required_argument, 0, O_HCCL_DEVICE},
                                        {"hccl", no_argument, 0, O_HCCL},
                                        {"hccl-aiv", no_argument, 0, O_HCCL_AIV},
                                        {"hccl-deterministic", no_argument, 0, O_HCCL_DETER},
                                        {"m", required_argument, 0, O_GEMM_M},
                                        {"k", required_argument, 0, O_GEMM_K},
                                        {"n", required_argument, 0, O_GEMM_N},
                                        {"compute-cores", required_argument, 0, O_COMPUTE_CORES},
                                        {"comm-cores", required_argument, 0, O_COMM_CORES},
                                        {0, 0, 0, 0}};
  const char *ops[A2_REDUCE_OPS];
  for (int i = 0; i < A2_REDUCE_OPS; i++) ops[i] = a2_reduce_name((a2_reduce_op)i);
  *o = (a2_run_opts){.size_bytes = 256, .seed = 1, .cores = 1, .max_sim_ps = UINT64_MAX};
  bool have_d = false, have_ranks = false, have_size = false, have_coll_flag = false;
  const char *chooser_flag = NULL; /* the first flag that asks for the chooser */
  bool noted_alias = false, noted_program = false;
  const char *gen_only = NULL, *run_only = NULL, *gemm_flag = NULL;
  char why[256];
  opterr = 0;
  optind = 1;
  int c, choice = 0;
  while ((c = getopt_long(argc, argv, ":d:ho:", longs, NULL)) != -1) {
    int rc = 0;
    switch (c) {
    case O_ALGO: o->algo = optarg; break;
    case O_PROGRAM_OLD:
      if (!noted_program && cmd == A2_CMD_RUN)
        fputs("a2a3sim: warning: --trace-file is deprecated, use --program\n", stderr);
      noted_program = true;
      /* fall through */
    case O_PROGRAM:
      o->program_file = optarg;
      run_only = "--program";
      break;
    case 'o':
      o->out_path = optarg;
      gen_only = "-o";
      break;
    case 'd':
      if (have_d) return a2_cmd_usage_error("-d", "given twice");
      have_d = true;
      rc = parse_devices(optarg, o);
      break;
    case O_RANKS:
      have_ranks = true;
      rc = parse_u32("--ranks", optarg, 1, 1048576, &o->nranks);
      break;
    case O_SIZE:
      have_size = true;
      if (a2_parse_quantity(optarg, A2_UNIT_BYTES, &o->size_bytes, why, sizeof why))
        return a2_cmd_usage_error("--size", "%s, got '%s'", why, optarg);
      break;
    case O_OP:
      have_coll_flag = true;
      rc = parse_choice("--op", optarg, ops, 4, &choice);
      o->op = (a2_reduce_op)choice;
      break;
    case O_DTYPE:
      have_coll_flag = true;
      /* the element types a collective is generated for: a2_dtype's first two */
      rc = parse_choice("--dtype", optarg, a2_dtype_names, A2_FP16 + 1, &choice);
      o->dtype = (a2_dtype)choice;
      break;
    case O_ROOT:
      have_coll_flag = true;
      rc = parse_u32("--root", optarg, 0, 1048575, &o->root);
      break;
    case O_CORES:
      have_coll_flag = true;
      rc = parse_u32("--cores", optarg, 1, 1024, &o->cores);
      break;
    case O_GEMM_M:
      gemm_flag = "--m";
      rc = parse_u32("--m", optarg, 1, 1u << 20, &o->m);
      break;
    case O_GEMM_K:
      gemm_flag = "--k";
      rc = parse_u32("--k", optarg, 1, 1u << 20, &o->k);
      break;
    case O_GEMM_N:
      gemm_flag = "--n";
      rc = parse_u32("--n", optarg, 1, 1u << 20, &o->n);
      break;
    case O_COMPUTE_CORES:
      gemm_flag = "--compute-cores";
      rc = parse_u32("--compute-cores", optarg, 1, 1024, &o->compute_cores);
      break;
    case O_COMM_CORES:
      gemm_flag = "--comm-cores";
      rc = parse_u32("--comm-cores", optarg, 1, 1024, &o->comm_cores);
      break;
    case O_CONFIG: o->config_path = optarg; break;
    case O_PARAM:
      run_only = "--param";
      rc = parse_param(optarg, o);
      break;
    case O_SET:
      if (o->nsets == A2_MAX_SETS) return a2_cmd_usage_error("--set", "more than %d", A2_MAX_SETS);
      o->sets[o->nsets++] = optarg;
      break;
    case O_SEED: rc = parse_u32("--seed", optarg, 0, UINT32_MAX, &o->seed); break;
    case O_JSON:
      o->json = true;
      run_only = "--json";
      break;
    case O_MEMLIM:
      run_only = "--mem-limit";
      if (a2_parse_quantity(optarg, A2_UNIT_BYTES, &o->mem_limit, why, sizeof why) ||
          o->mem_limit == 0)
        return a2_cmd_usage_error("--mem-limit", "expected a size such as 16GiB, got '%s'", optarg);
      break;
    case O_MAXEV: {
      run_only = "--max-events";
      if (a2_parse_quantity(optarg, A2_UNIT_COUNT, &o->max_events, why, sizeof why) ||
          o->max_events == 0)
        return a2_cmd_usage_error("--max-events", "expected a positive integer, got '%s'", optarg);
      break;
    }
    case O_RACEMEM:
      run_only = "--race-memory";
      if (a2_parse_quantity(optarg, A2_UNIT_BYTES, &o->race_memory, why, sizeof why) ||
          o->race_memory == 0)
        return a2_cmd_usage_error("--race-memory", "expected a size such as 4GiB, got '%s'",
                                  optarg);
      break;
    case O_SLOWRANK:
      run_only = "--slow-rank";
      rc = a2_parse_slow_rank(optarg, &o->faults);
      break;
    case O_SLOWLINK:
      run_only = "--slow-link";
      rc = a2_parse_link_fault("--slow-link", optarg, &o->faults);
      break;
    case O_LINKDOWN:
      run_only = "--link-down";
      rc = a2_parse_link_fault("--link-down", optarg, &o->faults);
      break;
    case O_JITTER:
      run_only = "--jitter";
      rc = a2_parse_jitter(optarg, &o->faults);
      break;
    case O_SEEDS:
      run_only = "--seeds";
      rc = parse_u32("--seeds", optarg, 1, 100000, &o->seeds);
      break;
    case O_JOB:
      run_only = "--job";
      if (o->njobs == A2_MAX_JOBS) return a2_cmd_usage_error("--job", "more than %d", A2_MAX_JOBS);
      o->jobs[o->njobs++] = optarg;
      break;
    case O_NODATA:
      o->no_data = true;
      run_only = "--no-data";
      break;
    case O_PROFILE:
      o->profile = true;
      run_only = "--profile";
      break;
    case O_TRACE_OLD:
      /* (gen refuses it below: its error stays the one line on stderr) */
      if (!noted_alias && cmd == A2_CMD_RUN)
        fputs("a2a3sim: warning: --trace is deprecated, use --timeline\n", stderr);
      noted_alias = true;
      o->timeline_out = optarg;
      run_only = "--trace";
      break;
    case O_TIMELINE:
      o->timeline_out = optarg;
      run_only = "--timeline";
      break;
    case O_NORACE:
      o->no_race_check = true;
      run_only = "--no-race-check";
      break;
    case O_MAXT:
      run_only = "--max-sim-time";
      if (a2_parse_quantity(optarg, A2_UNIT_TIME, &o->max_sim_ps, why, sizeof why) ||
          o->max_sim_ps == 0)
        return a2_cmd_usage_error("--max-sim-time", "expected a time such as 10ms, got '%s'",
                                  optarg);
      break;
    case O_HCCL:
      o->hccl = true;
      run_only = "--hccl";
      if (!chooser_flag) chooser_flag = run_only;
      break;
    case O_EXPLAIN:
      o->explain = true;
      run_only = "--explain";
      if (!chooser_flag) chooser_flag = run_only;
      break;
    case O_HCCL_ALGO:
      o->hccl_algo = optarg;
      run_only = "--hccl-algo";
      if (!chooser_flag) chooser_flag = run_only;
      break;
    case O_HCCL_AIV:
      o->hccl_aiv = true;
      run_only = "--hccl-aiv";
      if (!chooser_flag) chooser_flag = run_only;
      break;
    case O_HCCL_DETER:
      o->hccl_deterministic = true;
      run_only = "--hccl-deterministic";
      if (!chooser_flag) chooser_flag = run_only;
      break;
    case O_HCCL_DEVICE: {
      static const char *const devs[] = {"a2", "a3"};
      run_only = "--hccl-device";
      if (!chooser_flag) chooser_flag = run_only;
      rc = parse_choice("--hccl-device", optarg, devs, 2, &o->hccl_device);
      break;
    }
    case 'h':
    case O_HELP: fputs(cmd == A2_CMD_RUN ? run_usage : gen_usage, stdout); return -1;
    case ':': return a2_cmd_usage_error(argv[optind - 1], "missing value");
    default:
      return a2_cmd_usage_error(argv[optind - 1], "unknown flag (see a2a3sim %s --help)",
                                cmd == A2_CMD_RUN ? "run" : "gen");
    }
    if (rc) return rc;
  }
  if (optind < argc) return a2_cmd_usage_error(argv[optind], "unexpected argument");
  if (cmd == A2_CMD_RUN && gen_only) return a2_cmd_usage_error(gen_only, "only for a2a3sim gen");
  if (cmd == A2_CMD_GEN && run_only) return a2_cmd_usage_error(run_only, "not for a2a3sim gen");
  if (!o->njobs && !o->algo && !o->program_file && o->config_path && cmd == A2_CMD_RUN) {
    /* no --algo: the config's `jobs:`, if it has any, are the run */
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
  }
  if (o->njobs || o->config_jobs) {
    if (o->algo || o->program_file || have_d || have_ranks)
      return a2_cmd_usage_error("--job", "each job names its algo and ranks: not with %s",
                                o->algo           ? "--algo"
                                : o->program_file ? "--program"
                                : have_d          ? "-d"
                                                  : "--ranks");
    if (o->seeds) return a2_cmd_usage_error("--job", "not with --seeds");
    o->faults.seed = o->seed;
    return 0;
  }
  if (o->algo && o->program_file)
    return a2_cmd_usage_error("--program", "use --algo or --program, not both");
  if (!o->algo && !o->program_file)
    return a2_cmd_usage_error("--algo", cmd == A2_CMD_RUN ? "required (or --program FILE)"
                                                          : "required (see a2a3sim list)");
  /* --hccl, --explain, --hccl-algo and --hccl-device ask for the chooser;
   * `--algo allreduce` (no built-in has the name) asks alone */
  if (chooser_flag && !a2_hccl_is_op(o->algo))
    return a2_cmd_usage_error(chooser_flag,
                              "only with --algo allreduce, allgather, reduce_scatter, all_to_all "
                              "or broadcast (the chooser)%s",
                              o->algo ? "" : ", not with --program");
  o->hccl = chooser_flag || a2_hccl_implicit(o->algo);
  if (o->nparams && !o->program_file)
    return a2_cmd_usage_error("--param", "only with --program (a trace's `param` values)");
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
  if (o->m && have_size)
    return a2_cmd_usage_error("--size", "not with --m: the GEMM's M is --m (or --size alone)");
  if (o->program_file && (have_size || have_coll_flag))
    return a2_cmd_usage_error(have_size ? "--size" : "--op/--dtype/--root/--cores",
                              "a program file fixes its own sizes and types");
  if (cmd == A2_CMD_GEN && !o->out_path) return a2_cmd_usage_error("-o", "required");
  if (have_d && have_ranks) return a2_cmd_usage_error("--ranks", "use -d or --ranks, not both");
  if (!have_d && !have_ranks) return a2_cmd_usage_error("--ranks", "required (or -d LIST)");
  if (o->seeds && o->timeline_out)
    return a2_cmd_usage_error("--seeds", "not with --timeline (one run writes one timeline)");
  o->faults.seed = o->seed;
  return 0;
}

/* Whether --set names interconnect.ranks (then it is what the user asked). */
static bool sets_ranks(const a2_run_opts *o) {
  static const char k[] = "interconnect.ranks=";
  for (int i = 0; i < o->nsets; i++)
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
  for (int i = 0; i < o->nsets; i++) {
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
