/* a2a3sim run: build a program, simulate it, check it, report it. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli/cli.h"

static double wall_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* --profile: what bench/ records. Wall time covers building the program, the
 * model and the run; events are the event kernel's process activations. */
static void print_profile(double t0, uint64_t activations) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double wall = wall_s() - t0;
  fprintf(stderr, "profile: wall_s=%.3f events=%llu events_per_s=%.0f peak_rss_kb=%ld\n", wall,
          (unsigned long long)activations, wall > 0 ? (double)activations / wall : 0.0,
          ru.ru_maxrss);
}

int a2_cli_run(int argc, char **argv) {
  double t0 = wall_s();
  a2_run_opts o;
  int rc = a2_parse_run_flags(A2_CMD_RUN, argc, argv, &o);
  uint64_t time_ps = 0;
  if (rc)
    rc = rc < 0 ? A2_EXIT_OK : rc;
  else
    rc = o.njobs || o.config_jobs ? a2_run_jobs(&o)
         : o.seeds                ? a2_run_seeds(&o, t0)
                                  : a2_run_once(&o, t0, &time_ps);
  free(o.devices);
  return rc;
}

int a2_run_once(a2_run_opts *o, double t0, uint64_t *time_ps) {
  a2_run_result r = {0};
  a2_program k = {0};
  a2_sim *sim = NULL;
  a2_err e = {0};
  int exit_code = A2_EXIT_OK;
  *time_ps = 0;
  if ((exit_code = a2_load_run_config(o, &r.cfg, &r.ranks_grown_from))) goto out;
  /* the explanation goes before the report (to stderr with --json: stdout is one object) */
  if (o->hccl && (exit_code = a2_cli_choose(o, &r.cfg, o->json ? stderr : stdout))) goto out;
  if ((exit_code = a2_build_program(o, &r.cfg, &k, &r.desc))) goto out;
  if ((exit_code = a2_overlap_measure(o, &r.cfg, &r.overlap))) goto out;
  r.config_name = o->config_path ? o->config_path : A2_DEFAULT_CONFIG " (built-in)";
  r.nranks = k.nranks;
  r.no_data = o->no_data;
  if (a2_sim_create_mode(&r.cfg, &k, o->devices, o->program_file ? o->program_file : o->algo,
                         o->no_data, o->mem_limit, &sim, &e)) {
    a2_cmd_error(&e);
    exit_code = a2_err_exit_code(e.code);
    goto out;
  }
  if (o->no_race_check && a2_sim_set_race_check(sim, 0, &e)) {
    a2_cmd_error(&e);
    exit_code = A2_EXIT_INTERNAL;
    goto out;
  }
  if (o->race_memory && a2_sim_set_race_budget(sim, o->race_memory, &e)) {
    a2_cmd_error(&e);
    exit_code = a2_err_exit_code(e.code);
    goto out;
  }
  if (o->max_events) a2_sim_set_event_limit(sim, o->max_events);
  r.race_checked = !o->no_race_check;
  if (o->timeline_out && a2_sim_set_timeline(sim, o->timeline_out, &e)) {
    a2_cmd_error(&e);
    exit_code = a2_err_exit_code(e.code);
    goto out;
  }
  if (a2_sim_run(sim, o->max_sim_ps, &r.status, &e)) {
    a2_cmd_error(&e);
    exit_code = a2_err_exit_code(e.code); /* 2 for a timeline that cannot be written */
    goto out;
  }
  r.sim = sim;
  r.k = &k;
  /* a run that did not finish is reported at the time it stopped */
  r.time_ps = r.status == A2_RUN_DONE ? a2_sim_end_ps(sim) : a2_sim_stop_ps(sim);
  *time_ps = r.time_ps;
  r.unrouted = a2_sim_unrouted(sim);
  r.races = a2_sim_races(sim);
  uint64_t race_stop_ps = 0;
  if (a2_sim_race_abandoned(sim, &r.race_budget, &race_stop_ps)) {
    r.race_abandoned = true;
    r.race_checked = false;
    fprintf(stderr,
            "a2a3sim: warning: the race check stopped at %.3f us when it reached its memory "
            "budget (%llu MiB; it grows as cores^2 and with the buffer regions of distinct "
            "access history): raise it with --race-memory or skip it with --no-race-check\n",
            (double)race_stop_ps / 1e6, (unsigned long long)(r.race_budget >> 20));
  }
  if (r.status == A2_RUN_DONE && !o->no_data) a2_check(&k, sim, &r.check);
  if (o->no_data) r.check.ok = true; /* nothing to compare: timing-only */
  if (o->profile) print_profile(t0, a2_sim_activations(sim));
  if (o->json)
    a2_report_json(&r, stdout);
  else
    a2_report_text(&r, stdout);
  if (!o->json) a2_print_faults(&o->faults, stdout);
  if (r.status != A2_RUN_DONE) {
    fprintf(stderr, "a2a3sim: %s: %s\n", r.desc.name,
            r.status == A2_RUN_DEADLOCK      ? "deadlock: no event left and cores still blocked"
            : r.status == A2_RUN_EVENT_LIMIT ? "--max-events reached with work left"
                                             : "--max-sim-time reached with work left");
    a2_sim_report_blocked(sim, stderr);
    exit_code = A2_EXIT_FAIL;
  } else if (!r.check.ok) {
    exit_code = A2_EXIT_FAIL;
  }
  if (r.unrouted) {
    fprintf(stderr,
            "a2a3sim: %s: %llu transfer(s) could not be routed: every route between their ranks "
            "crosses a link that is down (--link-down), so they ran over it and the times are "
            "no result:\n",
            r.desc.name, (unsigned long long)r.unrouted);
    a2_sim_report_unrouted(sim, stderr);
    exit_code = A2_EXIT_FAIL;
  }
  if (r.races) {
    fprintf(stderr, "a2a3sim: %s: %llu data race(s) (accesses no notify/wait orders):\n",
            r.desc.name, (unsigned long long)r.races);
    a2_sim_report_races(sim, stderr);
    exit_code = A2_EXIT_FAIL;
  }
out:
  a2_sim_free(sim);
  a2_program_free(&k);
  return exit_code;
}
