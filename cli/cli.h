/* The a2a3sim command: subcommands and their shared pieces. */
#ifndef A2_CLI_H
#define A2_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collectives/collective.h"
#include "collectives/hccl_choose.h"
#include "collectives/hccl_cost.h"
#include "common/cmd_err.h"
#include "common/flags.h"
#include "configs/config.h"
#include "model/check.h"
#include "model/sim.h"
#include "traces/text.h"

#define A2_MAX_JOBS 16 /* --job flags of one run */

/* Everything a run (or gen) needs, filled from the flags. */
typedef struct {
  const char *algo;         /* --algo */
  const char *program_file; /* --program (run only) */
  const char *out_path;     /* -o (gen only) */
  const char *config_path;  /* NULL: built-in default (= configs/a2-8p-hccs.yaml) */
  const char *sets[A2_MAX_SETS];
  size_t nsets;
  /* --param; names point into param_names (do not copy a2_run_opts by value) */
  a2_program_param params[A2_PROGRAM_MAX_PARAMS];
  char param_names[A2_PROGRAM_MAX_PARAMS][A2_NAME_MAX];
  size_t nparams;
  uint32_t nranks;
  uint32_t *devices; /* NULL: rank r on NPU r */
  uint64_t size_bytes;
  uint32_t seed;
  uint32_t cores;
  uint32_t root;
  a2_reduce_op op;
  a2_dtype dtype;
  uint64_t max_sim_ps;
  bool json;
  bool no_race_check;
  const char *timeline_out; /* --timeline FILE */
  bool profile;             /* --profile: wall time, events/s, peak RSS on stderr */
  bool no_data;             /* --no-data: timing-only */
  uint64_t race_memory;     /* --race-memory: 0 = default budget */
  uint64_t max_events;      /* --max-events: 0 = none */
  uint64_t mem_limit;       /* --mem-limit: 0 = default */
  a2_faults faults;         /* --slow-rank, --slow-link, --link-down, --jitter (seed: --seed) */
  uint32_t seeds;           /* --seeds K: K runs, seeds seed..seed+K-1; 0: one run */
  const char *jobs[A2_MAX_JOBS]; /* --job SPEC (cli/jobs.c) */
  size_t njobs;
  bool hccl;               /* choose as HCCL does: --algo allreduce, --hccl or a flag below */
  bool config_jobs;        /* no --job nor --algo: the run is the config's `jobs:` (cli/jobs.c) */
  bool explain;            /* --explain: why the chooser chose, and the candidates measured */
  const char *hccl_algo;   /* --hccl-algo NAME: force the chooser's pick (HCCL_ALGO) */
  int hccl_device;         /* --hccl-device a2|a3 (a2_hccl_device) */
  bool hccl_aiv;           /* --hccl-aiv: HCCL's AIV-mode rules (910B, 910_93) */
  bool hccl_deterministic; /* --hccl-deterministic: HCCL_DETERMINISTIC=true (910B) */
  uint32_t part;           /* a fused built-in's side (a2_coll_part): set by the overlap card's
                              child runs only, no flag */
  /* --m --k --n (elements) and --compute-cores / --comm-cores of the GEMM
   * built-ins; 0 = not given (a2_coll_params: the defaults) */
  uint32_t m, k, n, compute_cores, comm_cores;
} a2_run_opts;

/* The commands of the run table, by their index in it. */
typedef enum { A2_CMD_RUN, A2_CMD_GEN } a2_cmd;

/* The flags of `run` and `gen` (cli/run_flags.c): one table, whose rows'
 * groups are these (the checks in cli/opts.c ask which were given). */
enum {
  A2_RUN_COLL = 1,    /* --op, --dtype, --root, --cores: not with a program file */
  A2_RUN_GEMM = 2,    /* --m, --k, --n, --compute-cores, --comm-cores: the GEMM built-ins */
  A2_RUN_CHOOSER = 4, /* --hccl and the flags that imply it */
};
extern const a2_flag_table a2_run_flags;
/* `config check` (cli/config_cmd.c). */
extern const a2_flag_table a2_config_flags;

/* Parse the flags of `run` or `gen` into *o (defaults first) and check the
 * rules between them. Returns 0 to go on, -1 after printing --help, or an
 * exit code after printing an error. Free o->devices afterwards. */
int a2_parse_run_flags(a2_cmd cmd, int argc, char **argv, a2_run_opts *o);

/* The default config overlaid with --config and --set; 0 or an exit code
 * (the error is printed). When --ranks asks for more NPUs than
 * interconnect.ranks on a topology that scales (ring, switch, two_level, a
 * torus whose width divides the rank count) and neither -d nor --set
 * interconnect.ranks is given, the topology grows to the rank count and
 * *grown_from (may be NULL; 0 otherwise) receives the config's count. */
/* The generator parameters a run's flags and config give (cli/program_source.c). */
a2_coll_params a2_run_coll_params(const a2_run_opts *o, const a2_config *cfg);
int a2_load_run_config(const a2_run_opts *o, a2_config *cfg, uint32_t *grown_from);

/* What the reports say about the program that ran: which collective, its
 * nccl-tests size and bus factors and its analytic card. */
typedef struct {
  char name[256];      /* built-in name, or the program file */
  uint64_t size_bytes; /* N */
  double size_factor;  /* S = size_factor * N */
  double busbw_factor;
  a2_card card;
  bool has_card;
  uint64_t closed_form_ps;  /* 0: none */
  double hccl_ps;           /* HCCL's alpha-beta-gamma cost (collectives/hccl_cost.h); < 0: none */
  const char *hccl_formula; /* its formula (static), NULL: none */
  a2_abg abg;               /* the alpha, beta, gamma it used */
  const a2_program_param *params; /* the program file's --param values (owned by the opts) */
  size_t nparams;
} a2_run_desc;

/* Build the program from --algo or --program and describe it; 0 or an
 * exit code (error printed). */
int a2_build_program(const a2_run_opts *o, const a2_config *cfg, a2_program *k, a2_run_desc *d);

/* One run of *o in this process with no timeline and no report, for the
 * tools that compare runs (--explain's candidates, the overlap card's
 * sides): its end time (ps), whether it passed (finished, checked unless
 * --no-data, race-free) and the program's HCCL cost (ps; < 0: none). Call it
 * in a child process (a2_procs_call): SystemC runs once per process.
 * Returns 0 when the simulation ran, or 1 when the program could not be
 * built or simulated (*e says why when the simulator refused it). */
typedef struct {
  uint64_t end_ps;
  bool passed;
  double hccl_ps;
} a2_quiet_run;
int a2_run_quietly(const a2_run_opts *o, const a2_config *cfg, a2_quiet_run *r, a2_err *e);

/* What a run produced, for the reports. */
/* The overlap card of a fused compute + communication built-in (cli/overlap.c):
 * the same program run with one side only, in child processes, beside the
 * run itself (pipelined). Times in ps. */
typedef struct {
  bool valid;
  uint64_t compute_ps, comm_ps; /* the compute alone; the communication alone */
  double flops;                 /* 2 M K N over all ranks */
} a2_overlap;
/* For `run` of a fused built-in (not a part of one): run its compute-only
 * and comm-only programs, each in a child process (SystemC runs once per
 * process), and fill *ov. Call before the run's own simulator exists.
 * Returns 0, or an exit status (a side that fails: stderr says why). */
int a2_overlap_measure(const a2_run_opts *o, const a2_config *cfg, a2_overlap *ov);
void a2_overlap_text(const a2_overlap *ov, uint64_t pipelined_ps, uint64_t compute_in_pipe_ps,
                     FILE *out);
/* The compute side's time in a run: the last cube-core completion over the
 * ranks (a2_rank_stats.cube_end_ps). */
uint64_t a2_overlap_compute_in(const a2_sim *sim, uint32_t nranks);

typedef struct {
  a2_run_desc desc;
  uint32_t nranks;
  a2_config cfg;
  const char *config_name;
  a2_run_status status;
  a2_check_result check;
  uint64_t time_ps;
  uint64_t races; /* racing access pairs (0 when not checked) */
  bool race_checked;
  bool race_abandoned;
  uint64_t race_budget;
  uint64_t unrouted;         /* transfers no route could take (a link down): the run is no result */
  uint32_t ranks_grown_from; /* the config's interconnect.ranks when --ranks grew it; 0 = not */
  bool no_data;
  const a2_sim *sim;
  const a2_program *k;
  a2_overlap overlap; /* fused built-ins (gemm_allreduce): the overlap card */
} a2_run_result;

/* The fault flags (cli/faults.c): parse one into *f; 0 or an exit code
 * (error printed). a2_check_faults checks them against the config. */
int a2_parse_slow_rank(const char *arg, a2_faults *f);
int a2_parse_link_fault(const char *flag, const char *arg, a2_faults *f);
int a2_parse_jitter(const char *arg, a2_faults *f);
int a2_check_faults(const a2_faults *f, const a2_config *cfg);
int a2_has_faults(const a2_faults *f);
/* One line "faults: ..." naming each fault (nothing without faults). */
void a2_print_faults(const a2_faults *f, FILE *out);

/* One run of `a2a3sim run` with parsed options (cli/run.c): its exit code;
 * *time_ps the simulated time (0 when it did not run). t0: wall start. */
int a2_run_once(a2_run_opts *o, double t0, uint64_t *time_ps);
/* --job (cli/jobs.c): the jobs alone and together, and the report; without
 * --job, the config file's `jobs:` (the same, with file:line:col errors). */
int a2_run_jobs(a2_run_opts *o);
/* --seeds K (cli/seeds.c): K runs, one process each, and their spread. */
int a2_run_seeds(a2_run_opts *o, double t0);
/* o->hccl (--algo allreduce, --hccl): replace o->algo, an operation, with
 * the built-in HCCL would choose;
 * with --explain print why, and run every candidate, to `out`. 0 or an exit
 * code (error printed). */
int a2_cli_choose(a2_run_opts *o, const a2_config *cfg, FILE *out);

int a2_cli_run(int argc, char **argv);
int a2_cli_list(int argc, char **argv);
int a2_cli_gen(int argc, char **argv);
int a2_cli_config(int argc, char **argv);

void a2_report_text(const a2_run_result *r, FILE *out);
void a2_report_json(const a2_run_result *r, FILE *out);

#endif
