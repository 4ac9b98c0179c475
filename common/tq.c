/* Binary min-heap on (t_ps, seq): see tq.h. */
#include "common/tq.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

static bool before(const a2_tq_item *x, const a2_tq_item *y) {
  return x->t_ps < y->t_ps || (x->t_ps == y->t_ps && x->seq < y->seq);
}

void a2_tq_push(a2_tq *q, uint64_t t_ps, uint64_t a, uint64_t b) {
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
  a2_tq_item e = {t_ps, q->seq++, a, b};
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
