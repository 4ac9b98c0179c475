/* A time queue: a binary min-heap of items ordered by time, then by order
 * of insertion (so equal times come out first in, first out and runs stay
 * deterministic). Each item carries two words of the caller's data. */
#ifndef A2_TQ_H
#define A2_TQ_H

#include <stdint.h>

typedef struct {
  uint64_t t_ps, seq;
  uint64_t a, b; /* caller's data */
} a2_tq_item;

#define A2_TQ_INLINE 2 /* items held in place: most queues stay this short */

/* The items are in place while at most A2_TQ_INLINE are queued, in the
 * heap array while more are, and back in place once the queue is that
 * short again (the array is kept for the next time it grows): a queue in
 * the lines of its owner stays there (docs/architecture.md, "Layout and
 * prefetch rules"). */
typedef struct {
  a2_tq_item *v; /* inl, or heap */
  uint32_t n, cap;
  uint64_t seq;
  a2_tq_item inl[A2_TQ_INLINE];
  a2_tq_item *heap; /* NULL until the queue first outgrows inl */
  uint32_t heap_cap;
} a2_tq; /* zero-initialised = empty; not to be copied or moved once used */

/* Add an item at t_ps. Aborts when out of memory: callers' queues only grow
 * with work in flight. */
void a2_tq_push(a2_tq *q, uint64_t t_ps, uint64_t a, uint64_t b);
/* Remove the earliest item into *out if its time is <= t_max; 1 if one was
 * removed, 0 otherwise. */
int a2_tq_pop_due(a2_tq *q, uint64_t t_max, a2_tq_item *out);
/* Time of the earliest item, UINT64_MAX when empty. */
static inline uint64_t a2_tq_next(const a2_tq *q) {
  return q->n ? q->v[0].t_ps : UINT64_MAX;
}
void a2_tq_free(a2_tq *q);

#endif
