/* Timeline production (internal to model/): turns what the model does
 * into timeline events (traces/timeline.h). Tracks per rank: one per core
 * pipe lane (a pipe with several instructions in flight gets several lanes,
 * so slices on one track never overlap), one for each core's waits, one per
 * HBM, MTE engine and outgoing link port. Flows join the notify that made a
 * wait pass to that wait. Counters give each link's and HBM's utilisation
 * per 1 us window. */
#ifndef A2_OBSERVE_H
#define A2_OBSERVE_H

#include <stdint.h>

#include "model/timeline.h"

struct a2_sim;
struct a2_core;
typedef struct a2_observer a2_observer;

a2_code a2_obs_create(struct a2_sim *s, const char *path, a2_observer **out, a2_err *err);
/* Flush counters, close the file, free. */
a2_code a2_obs_finish(a2_observer *o, a2_err *err);

/* An instruction starts in `pipe` at start_ps (>= now): returns its lane. */
uint8_t a2_obs_start(a2_observer *o, struct a2_core *c, int pipe, uint64_t start_ps);
/* It completed: its slice [start, done] on (pipe, lane). */
void a2_obs_done(a2_observer *o, struct a2_core *c, int pipe, uint8_t lane, uint64_t start_ps,
                 uint64_t done_ps, const void *instr);
/* A notify sent at issue_ps from (c, lane) landed at now in cell
 * (rank, buf, byte offset). */
void a2_obs_notify_landed(a2_observer *o, struct a2_core *c, uint8_t lane, uint64_t issue_ps,
                          const void *instr, uint32_t rank, uint16_t buf, uint64_t off);
/* A wait of core c blocked since since_ps passed at now. */
void a2_obs_wait(a2_observer *o, struct a2_core *c, uint64_t since_ps, const void *instr);

/* The network observer hook (noc/net.h). */
void a2_obs_packet(void *ctx, uint32_t stage, uint64_t start_ps, uint64_t end_ps, uint32_t bytes);

#endif
