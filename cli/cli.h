/* The a2a3sim command: subcommands and their shared pieces. */
#ifndef A2_CLI_H
#define A2_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "collectives/collective.h"
#include "configs/config.h"
#include "model/check.h"
#include "model/sim.h"

#define A2_DEFAULT_CONFIG "configs/a2-8p-hccs.yaml"
#define A2_MAX_SETS 64

/* Everything a run needs, filled from the flags. */
typedef struct {
  const char *algo;
  const char *config_path; /* NULL: built-in default (= configs/a2-8p-hccs.yaml) */
  const char *sets[A2_MAX_SETS];
  int nsets;
  uint32_t nranks;
  uint32_t *devices; /* NULL: rank r on NPU r */
  uint64_t size_bytes;
  uint32_t seed;
  uint64_t max_sim_ps;
  bool json;
} a2_run_opts;

/* What a run produced, for the reports. */
typedef struct {
  const a2_collective *coll;
  a2_coll_params params;
  a2_config cfg;
  const char *config_name;
  a2_run_status status;
  a2_check_result check;
  uint64_t time_ps;
  a2_card card;
  uint64_t closed_form_ps;
  const a2_sim *sim;
  const a2_kernel *k;
} a2_run_result;

int a2_cli_run(int argc, char **argv);
int a2_cli_list(int argc, char **argv);

/* Print "a2a3sim: error: ..." (with location when known) to stderr. */
void a2_cli_error(const a2_err *e);
/* Usage error about a flag: prints and returns A2_EXIT_USAGE. */
int a2_cli_usage_error(const char *flag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void a2_report_text(const a2_run_result *r, FILE *out);
void a2_report_json(const a2_run_result *r, FILE *out);

#endif
