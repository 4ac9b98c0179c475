/* A time queue: items ordered by time, then by order of insertion (so
 * equal times come out first in, first out and runs stay deterministic),
 * in a binary min-heap or, for a queue set so, a sorted array. Each item
 * is one of a few kinds of event, a tagged union: its kind says which
 * member of `u` it carries. */
#ifndef A2_TQ_H
#define A2_TQ_H

#include <stdint.h>

struct a2_xfer; /* noc/noc.h's transfer; only pointed to here */

/* What an item is. */
typedef enum {
  A2_TQ_XFER = 1, /* a transfer whose events are due (reservation timing): u.xfer */
  A2_TQ_NOTIFY,   /* a notify lands in a signal cell: u.notify */
  A2_TQ_RETURN,   /* a core's window takes bytes back: u.bytes */
  A2_TQ_SERVICE,  /* a stage serves bytes, shown to a timeline observer: u.service */
  A2_TQ_REPLY,    /* a remote load's reply, held until its request arrives: u.reply */
  A2_TQ_REST,     /* the rest of a reply's route, held until its data reaches it: u.rest */
  A2_TQ_REQUEST,  /* the rest of a request's route, held until it reaches it: u.request */
  A2_TQ_RUN       /* a run of a transfer's packets reaching a stage (noc.c's arrivals): u.run */
} a2_tq_kind;

typedef struct {
  uint64_t t_ps;
  uint32_t seq;  /* order of insertion among the queued items */
  uint32_t kind; /* a2_tq_kind */
  union {
    struct a2_xfer *xfer;
    struct {
      uint8_t *cell; /* the int32 cell, in the peer's memory */
      int32_t value;
      uint8_t add; /* 1: cell += value; 0: cell = value */
    } notify;
    uint64_t bytes;
    struct {
      uint64_t end_ps;
      uint32_t stage, bytes;
    } service;
    struct {
      struct a2_xfer *x; /* its data leg, not started */
      uint8_t split;     /* reserved in two legs: at the HBM, then past it */
    } reply;
    struct {
      struct a2_xfer *x; /* the leg, not started */
      uint64_t floor_ps; /* its completion is not earlier (the data's last packet) */
    } rest;
    struct {
      struct a2_xfer *x;     /* the request's leg past its first link, not started */
      struct a2_xfer *reply; /* its reply's data leg, not started */
    } request;
    struct {
      void *a;        /* the transfer's arrival state (noc.c) */
      uint32_t j0, j; /* its packets [j0, j), all bound for one stage */
    } run;
  } u;
} a2_tq_item;

#define A2_TQ_INLINE 2 /* items held in place: most queues stay this short */

/* The items are in place while at most A2_TQ_INLINE are queued, in the
 * heap array while more are, and back in place once the queue is that
 * short again (the array is kept for the next time it grows): a queue in
 * the lines of its owner stays there (docs/architecture.md, "Layout and
 * prefetch rules"). A sorted queue (a2_tq_set_sorted) keeps its items in
 * the heap array only, seq unused. */
typedef struct {
  a2_tq_item *v; /* inl, or heap (sorted: the earliest item, within heap) */
  uint32_t n, cap;
  uint32_t seq;    /* the next item's; renumbered before it would wrap */
  uint32_t sorted; /* the layout of a2_tq_set_sorted */
  a2_tq_item inl[A2_TQ_INLINE];
  a2_tq_item *heap; /* NULL until the queue first outgrows inl */
  uint32_t heap_cap;
} a2_tq; /* zero-initialised = empty; not to be copied or moved once used */

/* Keep the items of empty queue q in one array sorted by time, instead of
 * a heap: a push costs a move of the items queued after it, a pop nothing.
 * For a long queue whose pushes come about in time order (the held replies
 * of model/transfer.c: a request's arrival is its start plus the route's
 * latency), where a heap's pop walks its whole depth. The items come out in
 * the same order either way. */
void a2_tq_set_sorted(a2_tq *q);

/* Add *e (its kind and u; t_ps and seq are set here) at t_ps. Aborts when
 * out of memory: callers' queues only grow with work in flight. */
void a2_tq_push(a2_tq *q, uint64_t t_ps, const a2_tq_item *e);
/* Remove the earliest item into *out if its time is <= t_max; 1 if one was
 * removed, 0 otherwise. */
int a2_tq_pop_due(a2_tq *q, uint64_t t_max, a2_tq_item *out);
/* Time of the earliest item, UINT64_MAX when empty. */
static inline uint64_t a2_tq_next(const a2_tq *q) {
  return q->n ? q->v[0].t_ps : UINT64_MAX;
}
void a2_tq_free(a2_tq *q);

#endif
