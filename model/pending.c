/* Binary min-heap on (t_ps, seq): see pending.h. */
#include "model/pending.h"

#include <stdbool.h>
#include <stdlib.h>

static bool before(const a2_pend *a, const a2_pend *b) {
  return a->t_ps < b->t_ps || (a->t_ps == b->t_ps && a->seq < b->seq);
}

void a2_pending_push(a2_pending *p, uint64_t t_ps, a2_xfer *x) {
  if (p->n == p->cap) {
    uint32_t cap = p->cap ? p->cap * 2 : 8;
    a2_pend *v = realloc(p->v, cap * sizeof *v);
    if (!v) abort();
    p->v = v;
    p->cap = cap;
  }
  a2_pend e = {t_ps, p->seq++, x};
  uint32_t i = p->n++;
  while (i && before(&e, &p->v[(i - 1) / 2])) {
    p->v[i] = p->v[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  p->v[i] = e;
}

a2_xfer *a2_pending_pop_due(a2_pending *p, uint64_t now_ps) {
  if (!p->n || p->v[0].t_ps > now_ps) return NULL;
  a2_xfer *x = p->v[0].x;
  a2_pend last = p->v[--p->n];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= p->n) break;
    if (c + 1 < p->n && before(&p->v[c + 1], &p->v[c])) c++;
    if (!before(&p->v[c], &last)) break;
    p->v[i] = p->v[c];
    i = c;
  }
  if (p->n) p->v[i] = last;
  return x;
}

void a2_pending_free(a2_pending *p) {
  free(p->v);
  p->v = NULL;
  p->n = p->cap = 0;
}
