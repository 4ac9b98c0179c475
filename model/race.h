/* Race detection (internal to model/): happens-before from program order
 * plus notify->wait edges, with vector clocks over all cores. Every access to
 * a buffer (windows and tensors; signals are synchronisation, not data) is
 * checked, when dispatched, against the earlier accesses to overlapping bytes
 * that it has not superseded; a conflicting pair that no chain of program
 * order and notify->wait orders is a race, whatever the timing did with it.
 *
 * Conflicts: two accesses conflict unless both are reads or both are atomic
 * adds (element-wise atomic adds commute; an atomic add against a plain read
 * or write conflicts).
 *
 * Clocks: core t starts with VC_t[t] = 1, others 0. An access is stamped with
 * its core's epoch VC_t[t]. A notify snapshots VC_t and then increments
 * VC_t[t]; when it lands, the signal cell's release clock joins the snapshot
 * (an add) or becomes it (a set). A satisfied wait joins the cell's release
 * clock into VC_t: it is ordered after every notify that contributed to the
 * value it observed. Access a happens before access b iff
 * a.epoch <= VC_{b.core}[a.core] (an epoch comparison, as in FastTrack:
 * Flanagan and Freund, PLDI 2009).
 *
 * What is kept: an earlier access stays a candidate until a later access that
 * covers all its bytes and is ordered after it supersedes it: any write does,
 * an atomic add supersedes atomic adds, a read supersedes reads by its own
 * core. The candidates are indexed by byte range (blocks of buffer bytes that
 * share one access history, or pages of sorted regions that each do), so an
 * access costs time in the blocks and regions it touches, not in the accesses
 * before it, and memory follows the regions with distinct histories. */
#ifndef A2_RACE_H
#define A2_RACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "traces/program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct a2_race a2_race;

/* How an access touches its bytes. */
typedef enum { A2_RACE_READ = 0, A2_RACE_WRITE = 1, A2_RACE_ATOMIC_ADD = 2 } a2_race_kind;

/* One detector for k->nranks * k->ncores cores (k must outlive it). It stops
 * checking (a2_race_abandoned) after the first operation that leaves it
 * holding more than budget_bytes, or when an allocation fails; the races found
 * until then stay counted and reported. NULL when out of memory. */
a2_race *a2_race_create(const a2_program *k, uint64_t budget_bytes);
void a2_race_free(a2_race *r);

/* Core gid dispatches an access of `kind` at now_ps to buf of rank `owner`,
 * bytes [off, off+len); `in` names it in reports (its line and opcode). */
void a2_race_access(a2_race *r, uint32_t gid, uint32_t owner, uint16_t buf, uint64_t off,
                    uint64_t len, a2_race_kind kind, const a2_instr *in, uint64_t now_ps);
/* Core gid dispatches a notify: returns a snapshot to deliver with it. */
uint32_t *a2_race_notify(a2_race *r, uint32_t gid);
/* The notify landed in cell (rank, buf, byte offset); consumes snap. */
void a2_race_land(a2_race *r, uint32_t rank, uint16_t buf, uint64_t off, int set, uint32_t *snap);
/* Core gid passed a wait on cell (rank, buf, byte offset). */
void a2_race_acquire(a2_race *r, uint32_t gid, uint32_t rank, uint16_t buf, uint64_t off);

/* Racing pairs found (each pair counted once, when its later access is
 * dispatched). */
uint64_t a2_race_count(const a2_race *r);
/* True when checking stopped; *budget = the budget (bytes), *at_ps = the
 * dispatch time of the last access checked (either may be NULL). */
bool a2_race_abandoned(const a2_race *r, uint64_t *budget, uint64_t *at_ps);
/* How many racing pairs the report lists (default 8; the rest are counted). */
void a2_race_set_report_limit(a2_race *r, uint32_t pairs);
/* The first pairs found, in the order found (by later access, then by the
 * earlier access's dispatch order), then how many more there are. */
void a2_race_report(const a2_race *r, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
