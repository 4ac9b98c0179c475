/* Timeline production (internal to model/): the observer the core, its
 * transfers and the network report to, turning what they do into timeline
 * events (model/timeline.h). The hooks take plain values - rank, core
 * index, pipe, times, the instruction - so this side knows nothing of the
 * core's or the sim's state, and the calls run one way. Callers hold an
 * a2_observer pointer that is NULL when no timeline is written and call a
 * hook only when it is set: without a timeline an observation point costs
 * a NULL test.
 *
 * Tracks per rank: one per core pipe lane (a pipe with several instructions
 * in flight gets several lanes, so slices on one track never overlap), one
 * for each core's waits, one per HBM, MTE engine and outgoing link port.
 * Flows join the notify that made a wait pass to that wait. Counters give
 * each link's and HBM's utilisation per 1 us window. Times in ps. */
#ifndef A2_OBSERVE_H
#define A2_OBSERVE_H

#include <stdint.h>

#include "common/err.h"
#include "noc/noc.h"
#include "traces/program.h"

typedef struct a2_observer a2_observer;

/* Write the timeline of a run of nranks ranks of ncores cores each (a program
 * of nbufs buffers; rank r on NPU dev[r], its process named names[r], or
 * "rank r (npu d)" when names is NULL) to path. dev, names and net (its
 * stages' kinds name the tracks) must outlive the observer. A2_E_IO when path
 * cannot be written, A2_E_NOMEM. */
a2_code a2_obs_create(const char *path, uint32_t nranks, uint32_t ncores, uint32_t nbufs,
                      const uint32_t *dev, const char *const *names, const a2_noc *net,
                      a2_observer **out, a2_err *err);
/* Flush counters, close the file, free; A2_E_IO when writing failed. */
a2_code a2_obs_finish(a2_observer *o, a2_err *err);
/* Drop a timeline of a run that never ran: no file is left at its path. */
void a2_obs_discard(a2_observer *o);

/* An instruction of core `core` of `rank` starts in `pipe` (PIPE_*,
 * model/pipes.h) at start_ps: returns its lane. */
uint8_t a2_obs_start(a2_observer *o, uint32_t rank, uint32_t core, int pipe, uint64_t start_ps);
/* It completed: its slice [start_ps, done_ps] on (pipe, lane). */
void a2_obs_done(a2_observer *o, uint32_t rank, uint32_t core, int pipe, uint8_t lane,
                 uint64_t start_ps, uint64_t done_ps, const a2_instr *in);
/* Notify `in`, sent at issue_ps from (rank, core, its scalar lane), landed at
 * now_ps in its signal cell on rank `peer`. */
void a2_obs_notify_landed(a2_observer *o, uint32_t rank, uint32_t core, uint8_t lane,
                          uint64_t issue_ps, uint64_t now_ps, const a2_instr *in, uint32_t peer);
/* Wait `in` of (rank, core), blocked since since_ps, passed at now_ps. */
void a2_obs_wait(a2_observer *o, uint32_t rank, uint32_t core, uint64_t since_ps, uint64_t now_ps,
                 const a2_instr *in);

/* The network's packet hook (a2_noc_observer, noc/noc.h); ctx = the observer. */
void a2_obs_packet(void *ctx, uint32_t stage, uint64_t start_ps, uint64_t end_ps, uint32_t bytes);

#endif
