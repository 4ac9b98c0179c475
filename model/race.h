/* Race detection (internal to model/): happens-before from program order
 * plus notify->wait edges, with vector clocks over all cores. Every access to
 * a buffer (windows and tensors; signals are synchronisation, not data) is
 * checked, when dispatched, against the earlier accesses to overlapping bytes;
 * a conflicting pair (at least one write) that no chain of program order and
 * notify->wait orders is a race, whatever the timing did with it.
 *
 * Clocks: core t starts with VC_t[t] = 1, others 0. An access is stamped with
 * its core's epoch VC_t[t]. A notify snapshots VC_t and then increments
 * VC_t[t]; when it lands, the signal cell's release clock joins the snapshot
 * (an add) or becomes it (a set). A satisfied wait joins the cell's release
 * clock into VC_t: it is ordered after every notify that contributed to the
 * value it observed. Access a happens before access b iff
 * a.epoch <= VC_{b.core}[a.core]. */
#ifndef A2_RACE_H
#define A2_RACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "traces/program.h"

typedef struct a2_race a2_race;

/* One detector for nranks * ncores cores, using at most budget_bytes for its
 * clocks and records: past that it stops checking (a2_race_abandoned). */
a2_race *a2_race_create(const a2_kernel *k, uint64_t budget_bytes);
void a2_race_free(a2_race *r);

/* Core gid dispatches an access to buf of rank `owner`, bytes [off, off+len). */
void a2_race_access(a2_race *r, uint32_t gid, uint32_t owner, uint16_t buf, uint64_t off,
                    uint64_t len, int write, const a2_instr *in, uint64_t now_ps);
/* Core gid dispatches a notify: returns a snapshot to deliver with it. */
uint32_t *a2_race_notify(a2_race *r, uint32_t gid);
/* The notify landed in cell (rank, buf, byte offset); consumes snap. */
void a2_race_land(a2_race *r, uint32_t rank, uint16_t buf, uint64_t off, int set, uint32_t *snap);
/* Core gid passed a wait on cell (rank, buf, byte offset). */
void a2_race_acquire(a2_race *r, uint32_t gid, uint32_t rank, uint16_t buf, uint64_t off);

/* Races found (pairs), and a report of the first ones. */
uint64_t a2_race_count(const a2_race *r);
/* True when the budget ran out and checking stopped; *budget = the budget. */
bool a2_race_abandoned(const a2_race *r, uint64_t *budget);
void a2_race_report(const a2_race *r, FILE *out);

#endif
