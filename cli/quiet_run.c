/* a2_run_quietly (cli.h): one run for a tool that compares runs. */
#include "cli/cli.h"

int a2_run_quietly(const a2_run_opts *o, const a2_config *cfg, a2_quiet_run *r, a2_err *e) {
  a2_run_opts c = *o;
  c.timeline_out = NULL;
  a2_program k = {0};
  a2_run_desc d;
  a2_sim *sim = NULL;
  a2_run_status st;
  *r = (a2_quiet_run){.hccl_ps = -1};
  int rc = a2_build_program(&c, cfg, &k, &d);
  if (!rc && a2_sim_create_mode(cfg, &k, c.devices, c.algo, c.no_data, c.mem_limit, &sim, e))
    rc = 1;
  if (!rc && c.no_race_check && a2_sim_set_race_check(sim, 0, e)) rc = 1;
  if (!rc && a2_sim_run(sim, c.max_sim_ps, &st, e)) rc = 1;
  if (!rc) {
    a2_check_result chk = {0};
    if (st == A2_RUN_DONE && !c.no_data) a2_check(&k, sim, &chk);
    r->end_ps = a2_sim_end_ps(sim);
    r->passed = st == A2_RUN_DONE && (c.no_data || chk.ok) && !a2_sim_races(sim);
    r->hccl_ps = d.hccl_ps;
  }
  a2_sim_free(sim);
  a2_program_free(&k);
  return rc ? 1 : 0;
}
