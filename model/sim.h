/* The a2a3 model: ranks (NPUs) with HBM, vector cores with their MTE
 * engines and UB tiles, joined by the NoC, executing an a2_program.
 * One simulation per OS process (SystemC cannot re-elaborate).
 * Times in ps, sizes in bytes. */
#ifndef A2_SIM_H
#define A2_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "configs/config.h"
#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct a2_sim a2_sim;

/* Counters per rank, measured by the model as instructions execute. */
typedef struct {
  uint64_t remote_read_bytes;  /* remote_load bytes from a peer != self */
  uint64_t remote_write_bytes; /* remote_store bytes to a peer != self */
  uint64_t remote_ops;         /* remote_load + remote_store with peer != self */
  uint64_t notifies;           /* notify instructions executed */
  uint64_t waits;              /* wait instructions satisfied */
  uint64_t barrier_rounds;     /* max over cores: runs of notify/wait containing a wait */
  uint64_t end_ps;             /* when the rank's last instruction completed */
  uint64_t cube_end_ps;        /* when the rank's last cube-core instruction completed (the
                                  compute side of a fused program); 0 without cube cores */
} a2_rank_stats;

typedef enum {
  A2_RUN_DONE = 0,       /* every core ran its whole program */
  A2_RUN_DEADLOCK = 1,   /* no event left, some core still blocked */
  A2_RUN_TIME_LIMIT = 2, /* max_ps reached with work left */
  A2_RUN_EVENT_LIMIT = 3 /* the activation limit (a2_sim_set_event_limit) was reached */
} a2_run_status;

/* Stop a runaway run after this many event-kernel activations (0 = no limit). */
void a2_sim_set_event_limit(a2_sim *s, uint64_t max_events);

/* Validate k against cfg (a2_program_validate) and build the model. The program
 * and cfg must outlive the simulation. `name` is used in validation errors.
 * On failure *out is NULL, everything built so far is freed, and err says
 * why: A2_E_INPUT for a program or config the model refuses, A2_E_NOMEM
 * (naming what) when memory runs out, A2_E_KERNEL from SystemC. (Event
 * kernel processes already created stay registered: SystemC cannot remove
 * them, and a process builds one simulation.) The caller frees a
 * simulation it got with a2_sim_free.
 * devices[r] is the NPU (0..cfg->ranks-1, distinct) that rank r runs
 * on; NULL means rank r on NPU r. */
a2_code a2_sim_create(const a2_config *cfg, const a2_program *k, const uint32_t *devices,
                      const char *name, a2_sim **out, a2_err *err);

/* The same, in timing-only mode when no_data is set: payload buffers and
 * tiles are not allocated and no bytes move (signals still do: they steer
 * the run); every time, counter and the race/deadlock checks are as with
 * data. The functional check cannot run (a2_sim_buffer returns NULL for
 * payload buffers). */
/* mem_limit_bytes bounds the payload memory the run would allocate (buffers
 * of every rank plus tiles of every core), checked before allocating:
 * 0 = A2_DEFAULT_MEM_LIMIT. A policy, not a physical limit (--mem-limit). */
#define A2_DEFAULT_MEM_LIMIT (8ull << 30)
a2_code a2_sim_create_mode(const a2_config *cfg, const a2_program *k, const uint32_t *devices,
                           const char *name, int no_data, uint64_t mem_limit_bytes, a2_sim **out,
                           a2_err *err);
int a2_sim_no_data(const a2_sim *s);
void a2_sim_free(a2_sim *s);

/* Race detection (docs/timing-model.md, "Races") is on unless turned off
 * here, before a2_sim_run. */
a2_code a2_sim_set_race_check(a2_sim *s, int on, a2_err *err);
/* The race detector's memory budget in bytes (its vector clocks grow as
 * cores^2, its access histories with the buffer regions of distinct
 * history): past it, checking stops and a2_sim_race_abandoned says so.
 * 0 = the default. */
#define A2_RACE_DEFAULT_BUDGET (2ull << 30)
a2_code a2_sim_set_race_budget(a2_sim *s, uint64_t bytes, a2_err *err);
/* Non-zero when checking stopped; *budget = the budget (bytes), *at_ps = the
 * simulated time of the last access checked (either may be NULL). */
int a2_sim_race_abandoned(const a2_sim *s, uint64_t *budget, uint64_t *at_ps);
/* Racing access pairs found, and a report of the first ones. */
uint64_t a2_sim_races(const a2_sim *s);
void a2_sim_report_races(const a2_sim *s, FILE *out);

/* Write a timeline of the run (Chrome Trace Event JSON, streamed; layout in
 * docs/output.md) to path; call before a2_sim_run, which finishes the file.
 * A file that cannot be written is A2_E_IO (here or from a2_sim_run). */
a2_code a2_sim_set_timeline(a2_sim *s, const char *path, a2_err *err);

/* Several jobs on one fabric (cli/jobs.c): rank's cores start at t_ps
 * instead of 0 (before a2_sim_run; A2_E_NOMEM). */
a2_code a2_sim_set_rank_start(a2_sim *s, uint32_t rank, uint64_t t_ps, a2_err *err);
/* The timeline's process name of each rank (names[rank]; NULL: "rank r
 * (npu d)"); the array outlives the simulation. Before a2_sim_set_timeline. */
void a2_sim_set_rank_names(a2_sim *s, const char *const *names);

/* Run to completion, deadlock or max_ps (UINT64_MAX for no bound). */
a2_code a2_sim_run(a2_sim *s, uint64_t max_ps, a2_run_status *status, a2_err *err);

const a2_rank_stats *a2_sim_rank_stats(const a2_sim *s, uint32_t rank);
/* max over ranks of end_ps */
uint64_t a2_sim_end_ps(const a2_sim *s);
/* When the run stopped: the time of its last event (a notify landing, a
 * packet leaving a link) after a DEADLOCK or EVENT_LIMIT, max_ps after a
 * TIME_LIMIT; never before a2_sim_end_ps. A finished run's may be later
 * than its end (a last acknowledgement in flight): reports of finished runs
 * use a2_sim_end_ps, of unfinished ones this. */
uint64_t a2_sim_stop_ps(const a2_sim *s);
/* Contents of buffer buf on rank (bytes as declared). */
const uint8_t *a2_sim_buffer(const a2_sim *s, uint32_t rank, uint32_t buf);

/* After a DEADLOCK or TIME_LIMIT: one line per unfinished core, e.g.
 * "rank 1 core 0: blocked at step 7 (wait signal[0] ge 1): cell value 0". */
void a2_sim_report_blocked(const a2_sim *s, FILE *out);

/* Transfers whose every route crosses a link that is down (cfg->faults):
 * they ran over it anyway, so the run's times are not a result. The report
 * lists the first ones (rank, core, time, the route and the link). */
uint64_t a2_sim_unrouted(const a2_sim *s);
void a2_sim_report_unrouted(const a2_sim *s, FILE *out);

/* Event-kernel process activations and stage totals, for reports. */
uint64_t a2_sim_activations(const a2_sim *s);

/* The model's queueing stages (links, HBM controllers, MTE engines) and what
 * they did: for utilisation reports. kind is "link", "hbm", "mte_in" or
 * "mte_out"; a/b are (from NPU, to NPU) for links (-1 = the switch), (rank,
 * -1) for HBM and (rank, core) for MTE engines. */
typedef struct {
  const char *kind;
  int32_t a, b;
  uint64_t bytes;   /* payload bytes served */
  uint64_t busy_ps; /* time spent serving */
  uint64_t packets;
} a2_stage_info;
uint32_t a2_sim_stage_count(const a2_sim *s);
void a2_sim_stage_info(const a2_sim *s, uint32_t id, a2_stage_info *out);

#ifdef __cplusplus
}
#endif
#endif
