/* How each memory instruction becomes timed transfers (paths of stages):
 *   load         local HBM -> MTE-in                 (bytes read at HBM)
 *   store        MTE-out -> local HBM                (bytes written at HBM)
 *   remote_load  request: route(me->peer), control message;
 *                then data: peer HBM -> route(peer->me) -> MTE-in
 *   remote_store MTE-out -> route(me->peer) -> peer HBM (plain or atomic add)
 *   notify       route(me->peer) -> peer HBM          (cell updated at HBM)
 *   put / get    a DMA queue's engine -> source HBM -> route -> destination
 *                HBM, after the descriptor's launch (dma.c); a get sends a
 *                request to the peer first
 * A remote_load / remote_store whose peer is the rank itself is a local
 * access: no NoC, no remote counters. */
#include <stdlib.h>
#include <string.h>

#include "model/internal.h"
#include "traces/fp16.h"

/* A transfer of `kind` for instruction seq, in, of core c. */
static a2_xfer *xfer_new(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t bytes,
                         a2_xfer_kind kind) {
  a2_xfer *x = a2_xfer_alloc(c->sim->net);
  if (!x) abort();
  a2_xfer_ctx *m = a2_ctx_of(x);
  m->owner = m->runner = c;
  m->in = in;
  m->seq = seq;
  m->kind = (uint8_t)kind;
  x->bytes = bytes;
  return x;
}

static void on_done(a2_xfer *x, uint64_t t) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core_complete(m->owner, m->seq, t);
}

/* Remember stage id among the core's recent ones (the kernel's prefetch
 * hint brings them in before the core's next activation: a collective's
 * steps reuse the same paths). Called for the stages of a path that are not
 * the core's own (those are always hinted), under reservation timing only
 * (the hint is given there only). */
static void note_stage(a2_core *c, uint32_t id) {
  if (c->ahead) c->stages[ST_OWN + id % A2_RECENT_STAGES] = id; /* direct-mapped: no search */
}

static uint64_t start(a2_core *c, a2_xfer *x, uint64_t t) {
  return a2_xfer_start(c->sim->net, x, t);
}

/* Start the transfer that completes instruction seq, at t. Under
 * reservation timing its completion time is known at once: the slot gets
 * it now and no event follows. */
static void launch(a2_core *c, a2_xfer *x, uint64_t seq, uint64_t t) {
  if (c->ahead) {
    x->known = 1;
    x->on_done = NULL;
    c->done[a2_slot_of(c, seq)] = start(c, x, t);
  } else {
    start(c, x, t);
  }
}

static uint8_t *tile_ptr(const a2_core *c, uint16_t tile) {
  return c->ub + c->sim->ub_off[tile];
}

/* Read at the source HBM, rank m->rank's: bytes go straight into the
 * requesting tile (the tile cannot be used before the transfer completes). */
static void apply_read(a2_xfer *x, uint64_t off, uint32_t len) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core *c = m->owner;
  if (c->sim->no_data) return;
  const a2_instr *in = m->in;
  memcpy(tile_ptr(c, in->tile) + off, a2_mem(c->sim, m->rank, in->buf) + in->off + off, len);
}

static void atomic_add(uint8_t *dst, const uint8_t *src, uint32_t len, a2_dtype t) {
  uint32_t es = a2_dtype_size(t);
  for (uint32_t i = 0; i + es <= len; i += es) {
    if (t == A2_FP32) {
      float a, b;
      memcpy(&a, dst + i, 4);
      memcpy(&b, src + i, 4);
      a += b;
      memcpy(dst + i, &a, 4);
    } else if (t == A2_INT32) {
      int32_t a, b;
      memcpy(&a, dst + i, 4);
      memcpy(&b, src + i, 4);
      a = (int32_t)((uint32_t)a + (uint32_t)b);
      memcpy(dst + i, &a, 4);
    } else {
      uint16_t a, b;
      memcpy(&a, dst + i, 2);
      memcpy(&b, src + i, 2);
      a = a2_f32_to_f16(a2_f16_to_f32(a) + a2_f16_to_f32(b));
      memcpy(dst + i, &a, 2);
    }
  }
}

/* Write at the destination HBM, rank m->rank's. */
static void apply_write(a2_xfer *x, uint64_t off, uint32_t len) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core *c = m->owner;
  if (c->sim->no_data) return;
  const a2_instr *in = m->in;
  uint8_t *dst = a2_mem(c->sim, m->rank, in->buf) + in->off + off;
  const uint8_t *src = tile_ptr(c, in->tile) + off;
  if (in->op == A2_OP_RSTORE && in->mode == A2_MODE_ATOMIC_ADD)
    atomic_add(dst, src, len, c->sim->k->bufs[in->buf].dtype);
  else
    memcpy(dst, src, len);
}

static uint16_t route_len(a2_core *c, uint32_t src, uint32_t dst) {
  return a2_topo_route_len(c->sim->topo, c->sim->dev[src], c->sim->dev[dst]);
}

/* Write route(src->dst), its n = route_len(c, src, dst) stage ids, at path. */
static void add_route(a2_core *c, uint32_t *path, uint32_t src, uint32_t dst, uint16_t n) {
  a2_sim *s = c->sim;
  a2_topo_route(s->topo, s->dev[src], s->dev[dst], path);
  for (uint16_t i = 0; i < n; i++) note_stage(c, path[i]);
}

/* The HBM stage of a rank (a peer's is remembered as a recent stage). */
static uint32_t hbm_of(a2_core *c, uint32_t rank) {
  uint32_t id = c->sim->hbm[rank];
  if (rank != c->rank) note_stage(c, id);
  return id;
}

static void local_read(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  a2_xfer *x = xfer_new(c, in, seq, in->len, A2_XFER_MEM);
  uint32_t *p = a2_xfer_path(x, 2);
  p[0] = c->sim->hbm[c->rank];
  p[1] = c->stages[ST_MTE_IN];
  x->apply_hop = 0;
  x->on_apply = apply_read;
  x->on_done = on_done;
  a2_ctx_of(x)->rank = c->rank;
  launch(c, x, seq, t);
}

static void local_write(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  a2_xfer *x = xfer_new(c, in, seq, in->len, A2_XFER_MEM);
  uint32_t *p = a2_xfer_path(x, 2);
  p[0] = c->stages[ST_MTE_OUT];
  p[1] = c->sim->hbm[c->rank];
  x->apply_hop = 1;
  x->on_apply = apply_write;
  x->on_done = on_done;
  a2_ctx_of(x)->rank = c->rank;
  launch(c, x, seq, t);
}

void a2_issue_load(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  local_read(c, in, seq, t);
}
void a2_issue_store(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  local_write(c, in, seq, t);
}

/* The data leg of a remote load: peer HBM -> route -> MTE-in, from t. */
static void rload_data(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  uint32_t peer = (uint32_t)in->peer;
  a2_xfer *x = xfer_new(c, in, seq, in->len, A2_XFER_MEM);
  uint16_t n = (uint16_t)(route_len(c, peer, c->rank) + 2);
  uint32_t *p = a2_xfer_path(x, n);
  if (!p) abort();
  p[0] = hbm_of(c, peer);
  add_route(c, p + 1, peer, c->rank, (uint16_t)(n - 2));
  p[n - 1] = c->stages[ST_MTE_IN];
  x->apply_hop = 0;
  x->on_apply = apply_read;
  x->on_done = on_done;
  a2_ctx_of(x)->rank = peer;
  launch(c, x, seq, t);
}

/* The request has reached the peer at t: the data comes back from there. */
static void rload_request_done(a2_xfer *req, uint64_t t) {
  const a2_xfer_ctx *m = a2_ctx_of(req);
  rload_data(m->owner, m->in, m->seq, t);
}

void a2_issue_rload(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  uint32_t peer = (uint32_t)in->peer;
  if (peer == c->rank) {
    local_read(c, in, seq, t);
    return;
  }
  a2_xfer *x = xfer_new(c, in, seq, c->sim->cfg->ctrl_bytes, A2_XFER_MEM);
  uint16_t n = route_len(c, c->rank, peer);
  uint32_t *p = a2_xfer_path(x, n);
  if (!p) abort();
  add_route(c, p, c->rank, peer, n);
  if (c->ahead) { /* reservation timing: the reply is reserved at once */
    rload_data(c, in, seq, start(c, x, t));
    return;
  }
  x->on_done = rload_request_done;
  start(c, x, t);
}

void a2_issue_rstore(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  uint32_t peer = (uint32_t)in->peer;
  if (peer == c->rank) {
    local_write(c, in, seq, t);
    return;
  }
  a2_xfer *x = xfer_new(c, in, seq, in->len, A2_XFER_MEM);
  uint16_t len = (uint16_t)(route_len(c, c->rank, peer) + 2);
  uint32_t *p = a2_xfer_path(x, len);
  if (!p) abort();
  p[0] = c->stages[ST_MTE_OUT];
  add_route(c, p + 1, c->rank, peer, (uint16_t)(len - 2));
  p[len - 1] = hbm_of(c, peer);
  x->apply_hop = (uint16_t)(len - 1);
  x->on_apply = apply_write;
  x->on_done = on_done;
  a2_ctx_of(x)->rank = peer;
  launch(c, x, seq, t);
}

/* Set the signal cell at `cell` as a notify of `mode` with `value` does. */
static void notify_cell(uint8_t *cell, uint8_t mode, int32_t value) {
  int32_t v;
  memcpy(&v, cell, 4);
  v = mode == A2_MODE_ADD ? (int32_t)((uint32_t)v + (uint32_t)value) : value;
  memcpy(cell, &v, 4);
}

/* The landing of a notify at its peer's HBM, rank m->rank's. */
static void apply_notify(a2_xfer *x, uint64_t off, uint32_t len) {
  (void)off;
  (void)len;
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_sim *s = m->runner->sim; /* the sender (owner) is read only with an observer */
  const a2_instr *in = m->in;
  uint32_t peer = m->rank;
  notify_cell(a2_mem(s, peer, in->buf) + in->off, in->mode, in->value);
  if (s->race)
    a2_race_land(s->race, peer, in->buf, in->off, in->mode == A2_MODE_SET, m->notify.snap);
  if (s->obs)
    a2_obs_notify_landed(s->obs, m->owner->rank, m->owner->idx, m->notify.lane, m->notify.start_ps,
                         a2k_now_ps(), in, peer);
  a2_signal_changed(s, peer);
}

/* A landing event of a2_issue_notify's short form, carried out by r, the
 * peer's core: a = the cell, b = value << 32 | mode << 1 | 1 (a transfer's
 * event has b = 0). */
void a2_notify_land(a2_core *r, uint64_t a, uint64_t b) {
  notify_cell((uint8_t *)(uintptr_t)a, b >> 1 & 1 ? A2_MODE_ADD : A2_MODE_SET,
              (int32_t)(uint32_t)(b >> 32));
  a2_signal_changed(r->sim, r->rank);
}

void a2_issue_notify(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  uint32_t peer = (uint32_t)in->peer;
  a2_xfer *x = xfer_new(c, in, seq, c->sim->cfg->ctrl_bytes, A2_XFER_NOTIFY);
  uint16_t len = (uint16_t)(route_len(c, c->rank, peer) + 1);
  uint32_t *p = a2_xfer_path(x, len);
  if (!p) abort();
  add_route(c, p, c->rank, peer, (uint16_t)(len - 1));
  p[len - 1] = hbm_of(c, peer);
  x->apply_hop = (uint16_t)(len - 1);
  if (c->ahead && !c->sim->race && !c->sim->obs) {
    /* Reservation timing, nothing else to hand over: the landing needs only
     * the cell and the value, so the transfer is recycled now and the peer's
     * core gets them as its event (a2_notify_land), not the transfer, whose
     * lines are cold again by then at scale. */
    x->lands = 1;
    uint64_t t_land = start(c, x, t);
    a2_core *r = a2_notify_runner(c, peer);
    uint8_t *cell = a2_mem(c->sim, peer, in->buf) + in->off;
    a2_tq_push(&r->pend, t_land, (uint64_t)(uintptr_t)cell,
               (uint64_t)(uint32_t)in->value << 32 | (uint64_t)(in->mode == A2_MODE_ADD) << 1 | 1);
    a2_core_wake(r, t_land);
    return;
  }
  x->on_apply = apply_notify;
  x->writes = 1; /* at hop 0 too: a notify to its own rank lands at its time */
  a2_xfer_ctx *m = a2_ctx_of(x);
  m->rank = peer;
  /* A notify is posted: its slot may be reused before it lands, so the
   * transfer carries its own copy of the instruction. */
  m->notify.copy = *in;
  m->in = &m->notify.copy;
  m->runner = a2_notify_runner(c, peer);              /* lands there: its core acts */
  const a2_slot_ext *e = &c->ext[a2_slot_of(c, seq)]; /* set only with these options */
  if (c->sim->race) m->notify.snap = e->snap;         /* handed to the cell on landing */
  if (c->sim->obs) {
    m->notify.start_ps = e->start_ps;
    m->notify.lane = e->lane;
  }
  start(c, x, t);
}

/* ---- put / get: copies between a local buffer and a peer's window on the
 * rank's DMA engines (dma.c), HBM to HBM, not through a core's UB. Each
 * chunk is one descriptor on the instruction's queue; chunks go one at a
 * time, or two in flight with pipelining. A transfer's context holds its
 * chunk. A put with A2_MODE_DMA_ATOMIC_ADD adds at the destination. ---- */

static void dma_apply(a2_xfer *x, uint64_t off, uint32_t len) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core *c = m->owner;
  if (c->sim->no_data) return;
  const a2_instr *in = m->in;
  uint32_t peer = (uint32_t)in->peer;
  uint64_t o = m->chunk.off + off;
  if (in->op == A2_OP_GET) {
    memcpy(a2_mem(c->sim, c->rank, in->buf) + in->off + o,
           a2_mem(c->sim, peer, in->buf2) + in->off2 + o, len);
    return;
  }
  uint8_t *dst = a2_mem(c->sim, peer, in->buf) + in->off + o;
  const uint8_t *src = a2_mem(c->sim, c->rank, in->buf2) + in->off2 + o;
  if (in->mode & A2_MODE_DMA_ATOMIC_ADD)
    atomic_add(dst, src, len, c->sim->k->bufs[in->buf].dtype);
  else
    memcpy(dst, src, len);
}

static void dma_start_chunk(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t);

static void dma_chunk_done(a2_xfer *x, uint64_t t) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core *c = m->owner;
  const a2_instr *in = m->in;
  uint64_t seq = m->seq;
  a2_slot_ext *sl = &c->ext[a2_slot_of(c, seq)];
  sl->inflight--;
  if (sl->next_off < in->len)
    dma_start_chunk(c, in, seq, t);
  else if (sl->inflight == 0)
    a2_dma_end(c, in, seq, t); /* completes in its queue's order */
}

/* The data leg from t: the queue's engine stage, then source HBM -> route
 * -> destination HBM (the bytes land at the destination's service). */
static void dma_data(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t off, uint64_t len,
                     uint32_t engine, uint64_t t) {
  uint32_t peer = (uint32_t)in->peer, src = in->op == A2_OP_PUT ? c->rank : peer;
  uint32_t dst = in->op == A2_OP_PUT ? peer : c->rank;
  a2_xfer *x = xfer_new(c, in, seq, len, A2_XFER_CHUNK);
  uint16_t n = (uint16_t)(route_len(c, src, dst) + 3);
  uint32_t *p = a2_xfer_path(x, n);
  if (!p) abort();
  p[0] = engine;
  note_stage(c, engine);
  p[1] = hbm_of(c, src);
  add_route(c, p + 2, src, dst, (uint16_t)(n - 3));
  p[n - 1] = hbm_of(c, dst);
  x->apply_hop = (uint16_t)(n - 1);
  x->on_apply = dma_apply;
  x->on_done = dma_chunk_done;
  a2_ctx_of(x)->chunk.off = off;
  a2_ctx_of(x)->chunk.len = len;
  start(c, x, t);
}

static void get_request_done(a2_xfer *req, uint64_t t) {
  const a2_xfer_ctx *m = a2_ctx_of(req);
  dma_data(m->owner, m->in, m->seq, m->chunk.off, m->chunk.len, m->chunk.engine, t);
}

/* The next chunk of instruction seq, ready at t: a descriptor on its queue
 * (a2_dma_launch), then a get's request to the peer and the data leg. */
static void dma_start_chunk(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  a2_slot_ext *sl = &c->ext[a2_slot_of(c, seq)];
  uint64_t off = sl->next_off, left = in->len - off;
  uint64_t len = in->chunk && in->chunk < left ? in->chunk : left;
  sl->next_off += len;
  sl->inflight++;
  uint32_t engine, peer = (uint32_t)in->peer;
  uint64_t go = a2_dma_launch(c, in, len, t, &engine);
  if (in->op == A2_OP_GET && peer != c->rank) {
    a2_xfer *x = xfer_new(c, in, seq, c->sim->cfg->ctrl_bytes, A2_XFER_CHUNK);
    uint16_t n = route_len(c, c->rank, peer);
    uint32_t *p = a2_xfer_path(x, n);
    if (!p) abort();
    add_route(c, p, c->rank, peer, n);
    a2_ctx_of(x)->chunk.off = off;
    a2_ctx_of(x)->chunk.len = len; /* the data leg's */
    a2_ctx_of(x)->chunk.engine = engine;
    x->on_done = get_request_done;
    start(c, x, go);
  } else {
    dma_data(c, in, seq, off, len, engine, go);
  }
}

void a2_issue_dma(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  a2_dma_begin(c, in, seq);
  int depth = in->chunk && (in->mode & A2_MODE_PIPELINE) ? 2 : 1;
  for (int i = 0; i < depth && c->ext[a2_slot_of(c, seq)].next_off < in->len; i++)
    dma_start_chunk(c, in, seq, t);
}
