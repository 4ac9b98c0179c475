/* Binary min-heap on (t_ps, seq): see tq.h. */
#include "common/tq.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

static bool before(const a2_tq_item *x, const a2_tq_item *y) {
  return x->t_ps < y->t_ps || (x->t_ps == y->t_ps && x->seq < y->seq);
}

static int cmp_items(const void *x, const void *y) {
  return before(x, y) ? -1 : before(y, x) ? 1 : 0;
}

/* Before seq would wrap: number the queued items 0..n-1 in their order
 * (a sorted array is a heap), so that ties still come out first in, first
 * out. An empty queue simply starts again at 0. */
static void renumber(a2_tq *q) {
  qsort(q->v, q->n, sizeof *q->v, cmp_items);
  for (uint32_t i = 0; i < q->n; i++) q->v[i].seq = i;
  q->seq = q->n;
}

void a2_tq_set_sorted(a2_tq *q) {
  q->sorted = 1;
}

/* The sorted layout: items v[0..n) in order within heap[0..heap_cap). */
static void sorted_push(a2_tq *q, uint64_t t_ps, const a2_tq_item *item) {
  if (!q->heap || q->v + q->n == q->heap + q->heap_cap) { /* no room after the last */
    if (q->heap && q->v != q->heap && q->n <= q->heap_cap / 2) {
      memmove(q->heap, q->v, q->n * sizeof *q->v); /* the popped room, back at the front */
    } else {
      uint32_t cap = q->heap_cap < 64 ? 64 : q->heap_cap * 2;
      a2_tq_item *v = malloc(cap * sizeof *v);
      if (!v) a2_out_of_memory("a timed queue");
      if (q->n) memcpy(v, q->v, q->n * sizeof *v);
      free(q->heap);
      q->heap = v;
      q->heap_cap = cap;
    }
    q->v = q->heap;
  }
  /* after every item not later (first in, first out on ties); most land
   * among the last few, in cache: those a step at a time, the rest by a
   * binary search without branches */
  uint32_t lo = q->n, near = q->n > 16 ? q->n - 16 : 0;
  while (lo > near && q->v[lo - 1].t_ps > t_ps) lo--;
  if (lo == near && lo && q->v[lo - 1].t_ps > t_ps) {
    const a2_tq_item *b = q->v;
    for (uint32_t len = lo; len > 1; len -= len / 2) b += b[len / 2].t_ps <= t_ps ? len / 2 : 0;
    lo = (uint32_t)(b - q->v) + (b->t_ps <= t_ps);
  }
  if (lo < q->n) memmove(&q->v[lo + 1], &q->v[lo], (q->n - lo) * sizeof *q->v);
  q->v[lo] = *item;
  q->v[lo].t_ps = t_ps;
  q->v[lo].seq = 0; /* the position is the order */
  q->n++;
}

void a2_tq_push(a2_tq *q, uint64_t t_ps, const a2_tq_item *item) {
  if (q->sorted) {
    sorted_push(q, t_ps, item);
    return;
  }
  if (!q->cap) { /* first use */
    q->v = q->inl;
    q->cap = A2_TQ_INLINE;
  }
  if (q->n == q->cap) {
    if (q->v == q->inl && q->heap) { /* out of place again: into the kept array */
      memcpy(q->heap, q->inl, q->n * sizeof *q->heap);
      q->v = q->heap;
      q->cap = q->heap_cap;
    }
    if (q->n == q->cap) {
      uint32_t cap = q->cap < 16 ? 16 : q->cap * 2;
      a2_tq_item *v = q->v == q->inl ? malloc(cap * sizeof *v) : realloc(q->v, cap * sizeof *v);
      if (!v) a2_out_of_memory("a core's timed queue");
      if (q->v == q->inl) memcpy(v, q->inl, q->n * sizeof *v);
      q->v = q->heap = v;
      q->cap = q->heap_cap = cap;
    }
  }
  if (!q->n)
    q->seq = 0;
  else if (q->seq == UINT32_MAX)
    renumber(q);
  a2_tq_item e = *item;
  e.t_ps = t_ps;
  e.seq = q->seq++;
  uint32_t i = q->n++;
  while (i && before(&e, &q->v[(i - 1) / 2])) {
    q->v[i] = q->v[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  q->v[i] = e;
}

int a2_tq_pop_due(a2_tq *q, uint64_t t_max, a2_tq_item *out) {
  if (!q->n || q->v[0].t_ps > t_max) return 0;
  *out = q->v[0];
  if (q->sorted) {
    q->v = --q->n ? q->v + 1 : q->heap;
    return 1;
  }
  a2_tq_item last = q->v[--q->n];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= q->n) break;
    if (c + 1 < q->n && before(&q->v[c + 1], &q->v[c])) c++;
    if (!before(&q->v[c], &last)) break;
    q->v[i] = q->v[c];
    i = c;
  }
  if (q->n) q->v[i] = last;
  if (q->v != q->inl && q->n <= A2_TQ_INLINE) { /* back in place: the heap order is kept */
    memcpy(q->inl, q->v, q->n * sizeof *q->v);
    q->v = q->inl;
    q->cap = A2_TQ_INLINE;
  }
  return 1;
}

void a2_tq_free(a2_tq *q) {
  free(q->heap);
  q->v = q->heap = NULL;
  q->n = q->cap = q->heap_cap = 0;
}

/* An item stays four words: a core's queue lives in its cache lines. */
_Static_assert(sizeof(a2_tq_item) == 32, "a2_tq_item is 32 bytes");
