/* Deferred transfer events of one core under reservation timing: a small
 * binary heap of (time, arrival order, transfer). Equal times come out in
 * the order they went in, so runs are deterministic. */
#ifndef A2_PENDING_H
#define A2_PENDING_H

#include <stdint.h>

#include "noc/net.h"

typedef struct {
  uint64_t t_ps, seq;
  a2_xfer *x;
} a2_pend;

typedef struct {
  a2_pend *v;
  uint32_t n, cap;
  uint64_t seq;
} a2_pending;

/* Add x, due at t_ps. Aborts when out of memory (the heap only grows with
 * transfers in flight, bounded by the cores' instruction windows). */
void a2_pending_push(a2_pending *p, uint64_t t_ps, a2_xfer *x);
/* The earliest entry if it is due by now_ps (removed), else NULL. */
a2_xfer *a2_pending_pop_due(a2_pending *p, uint64_t now_ps);
/* Time of the earliest entry, UINT64_MAX when empty. */
static inline uint64_t a2_pending_next(const a2_pending *p) {
  return p->n ? p->v[0].t_ps : UINT64_MAX;
}
void a2_pending_free(a2_pending *p);

#endif
