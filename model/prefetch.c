/* The model's prefetch hints: what a core's next activation touches first,
 * asked for before it runs (the event kernel's hint, a2k_proc_set_prefetch), and
 * the peer core a notify's landing is handed to. At scale each of these
 * lines is a cache miss, and without the hints they come one after the
 * other. Hints only read; no result depends on them (docs/architecture.md,
 * "Layout and prefetch rules"). */
#include "common/prefetch.h"

#include <stddef.h>

#include "model/internal.h"

/* The signal cell a deferred notify x lands on (nothing for another
 * transfer). */
static void prefetch_landing(const a2_core *c, a2_xfer *x) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  if (m->kind != A2_XFER_NOTIFY) return;
  const uint8_t *cell = a2_mem(c->sim, m->rank, m->in->buf);
  if (cell) a2_prefetch_w(cell + m->in->off);
}

/* Level 0: the core's own hot fields; level 1: what they point to (window
 * slots, tiles, the event at the head of `pend`, the first line of its own
 * and its recent stages); level 2: one more pointer (its next
 * instructions, the signal cell of a landing notify, the earlier intervals
 * of those stages). The event at the head of `pend` is usually a notify
 * landing here, on the signal cell the core then reads. */
void a2_core_prefetch(const void *ctx, int level) {
  const a2_core *c = ctx;
  if (level == 0) { /* nothing of the core is read before it arrives */
    a2_prefetch_lines_w(c, offsetof(a2_core, done));
    return;
  }
  const a2_sim *s = c->sim;
  /* the event at the head of `pend`: a notify's landing (its cell), or a transfer */
  const a2_tq_item *ev = c->pend.n ? &c->pend.v[0] : NULL;
  a2_xfer *x = ev && ev->kind == A2_TQ_XFER ? ev->u.xfer : NULL;
  uint32_t sn = c->slot_free ? (uint32_t)__builtin_ctzll(c->slot_free) : 0; /* the next one taken */
  if (level == 1) {
    a2_prefetch(c->prog);
    size_t tiles = s->k->ntiles * sizeof *c->tiles;
    a2_prefetch_lines_w(c->tiles, tiles < 1024 ? tiles : 1024);
    a2_prefetch_w(c->buf_w);
    a2_prefetch_w(&c->done[a2_slot_of(c, c->seq_oldest)]);
    a2_prefetch_w(&c->done[sn]);
    a2_prefetch_w(&c->disp[sn]);
    a2_prefetch(&c->win[a2_slot_of(c, c->seq_oldest)]);
    for (uint32_t i = 0; i < 8; i++) /* what dispatch writes next: about a step's worth */
      a2_prefetch_w(&c->win[(sn + i) % A2_WIN]);
    if (x)
      a2_noc_prefetch_xfer(s->net, x);
    else if (ev && ev->kind == A2_TQ_NOTIFY)
      a2_prefetch_w(ev->u.notify.cell);
    a2_noc_prefetch_stages(s->net, c->stages, ST_OWN + A2_RECENT_STAGES, 0);
    return;
  }
  /* the next instructions of its program, up to about a step's worth (a
   * streamed batch is refilled in the shared scratch, already cached) */
  const a2_instrs *p = c->prog;
  uint64_t i = c->pc - c->base, e = i + 8 < p->n ? i + 8 : p->n;
  for (uintptr_t a = (uintptr_t)&p->v[i] & ~(uintptr_t)(A2_LINE_BYTES - 1); a < (uintptr_t)&p->v[e];
       a += A2_LINE_BYTES)
    a2_prefetch((const void *)a);
  if (x) prefetch_landing(c, x);
  /* the earlier intervals of the stages it reserved at recently, where there are any */
  a2_noc_prefetch_stages(s->net, c->stages, ST_OWN + A2_RECENT_STAGES, 1);
}

void a2_prefetch_notify_target(const a2_core *c, const a2_instr *in) {
  const a2_core *r = a2_notify_runner(c, (uint32_t)in->peer);
  a2_prefetch_w(r); /* running, wake_ps */
  a2_prefetch_w(&r->pend);
  a2_prefetch_w((const char *)&r->pend + sizeof r->pend - 1);
}
