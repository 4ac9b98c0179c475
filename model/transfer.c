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

#include "common/oom.h"
#include "common/prefetch.h"
#include "model/internal.h"
#include "traces/fp16.h"

/* A transfer of `kind` for instruction seq, in, of core c. */
static a2_xfer *xfer_new(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t bytes,
                         a2_xfer_kind kind) {
  a2_xfer *x = a2_xfer_alloc(c->sim->net);
  if (!x) a2_out_of_memory("transfers in flight");
  a2_xfer_ctx *m = a2_ctx_of(x);
  m->owner = m->runner = c;
  m->in = in;
  m->seq = seq;
  m->kind = (uint8_t)kind;
  if (kind == A2_XFER_MEM) m->chunk.off = 0; /* a remote access's piece sets its own */
  x->bytes = bytes;
  return x;
}

static void on_done(a2_xfer *x, uint64_t t) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core_complete(m->owner, m->seq, t);
}

/* Remember stage id among the core's recent ones (the event kernel's prefetch
 * hint brings them in before the core's next activation: a collective's
 * steps reuse the same paths). Called for the stages of a path that are not
 * the core's own (those are always hinted), under reservation timing only
 * (the hint is given there only). The set is searched whole, so a step's
 * few stages all stay in it (a slot per id modulo 16 lost about a fifth of
 * them to collisions: a rank's NIC up- and down-links are P ids apart); a
 * new id takes the slots in turn. */
static void note_stage(a2_core *c, uint32_t id) {
  if (!c->ahead) return;
  uint32_t *recent = &c->stages[ST_OWN];
  unsigned hit = 0;
  for (int i = 0; i < A2_RECENT_STAGES; i++) hit |= recent[i] == id; /* no branch: vectorised */
  if (hit) return;
  recent[c->recent_next] = id;
  c->recent_next = (uint8_t)((c->recent_next + 1) % A2_RECENT_STAGES);
}

/* t, delayed by the fault jitter when the transfer just routed is remote
 * (add_route). */
static uint64_t jittered(a2_core *c, uint64_t t) {
  if (c->jit_pending) {
    c->jit_pending = false;
    t += a2_fault_jitter_next(c);
  }
  return t;
}

static uint64_t start(a2_core *c, a2_xfer *x, uint64_t t) {
  return a2_xfer_start(c->sim->net, x, jittered(c, t));
}

/* Start the transfer that completes instruction seq, at t. Under
 * reservation timing the completion time of one reserved whole is known at
 * once: the slot gets it now and no event follows. One reserved in steps
 * (longer than 16 packets, noc/noc.h) completes as under packet timing
 * (on_done). */
static void launch(a2_core *c, a2_xfer *x, uint64_t seq, uint64_t t) {
  if (c->ahead && a2_noc_whole_at_start(c->sim->net, x->bytes)) {
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
 * requesting tile (the tile cannot be used before the transfer completes).
 * off is within the transfer, which starts at byte m->chunk.off of the
 * instruction's region (a piece of a remote access; 0 otherwise). */
static void apply_read(a2_xfer *x, uint64_t off, uint32_t len) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core *c = m->owner;
  if (c->sim->no_data) return;
  const a2_instr *in = m->in;
  off += m->chunk.off;
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

/* Write at the destination HBM, rank m->rank's (off as for apply_read). */
static void apply_write(a2_xfer *x, uint64_t off, uint32_t len) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core *c = m->owner;
  if (c->sim->no_data) return;
  const a2_instr *in = m->in;
  off += m->chunk.off;
  uint8_t *dst = a2_mem(c->sim, m->rank, in->buf) + in->off + off;
  const uint8_t *src = tile_ptr(c, in->tile) + off;
  if (in->op == A2_OP_TFIXPIPE) { /* from the fp32 accumulator: off is at the buffer */
    a2_dtype dt = c->sim->k->bufs[in->buf].dtype;
    a2_fixpipe_cast(dst, tile_ptr(c, in->tile) + off / a2_dtype_size(dt) * 4, len, dt);
  } else if (in->op == A2_OP_RSTORE && in->mode == A2_MODE_ATOMIC_ADD)
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
  if (s->cfg->faults) {
    if (a2_topo_has_down_links(s->topo)) a2_fault_note_route(c, src, dst);
    c->jit_pending = s->cfg->faults->jitter_ps != 0 && n > 0;
  }
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
  /* a cube core's tload reads through its rank's L2 (the stage its cube
   * cores share), then its MTE2 */
  p[0] = in->op == A2_OP_TLOAD ? c->sim->l2[c->rank] : c->sim->hbm[c->rank];
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

/* ---- remote loads and stores: pieces through the core's windows ----
 * (docs/timing-model.md, "Windows"). A remote access is cut into pieces
 * (a2_window_piece: one when the access fits its window); each piece holds
 * its bytes in the window from its start until it returns: a remote load's
 * piece when its data has arrived (a request, then the data), a remote
 * store's when the acknowledgement of its last packet is back. The
 * instruction completes when its last piece returns. */

/* The uncontended time of an acknowledgement from peer back to c's rank:
 * a control message along route(peer -> me), not queued. The last one is
 * kept: a core's writes mostly go to one peer at a time, and the route's
 * stages are cold lines at scale. */
static uint64_t ack_ps(a2_core *c, uint32_t peer) {
  if (peer == c->ack_peer) return c->ack_t_ps;
  a2_sim *s = c->sim;
  uint16_t n = route_len(c, peer, c->rank);
  uint32_t inl[16], *ids = n <= 16 ? inl : malloc(n * sizeof *ids);
  if (!ids) a2_out_of_memory("an acknowledgement's route");
  a2_topo_route(s->topo, s->dev[peer], s->dev[c->rank], ids);
  uint64_t t = a2_noc_msg_ps(s->net, ids, n, s->cfg->ctrl_bytes);
  if (ids != inl) free(ids);
  c->ack_peer = peer;
  c->ack_t_ps = t;
  return t;
}

static void pump(a2_core *c, int io, uint64_t t);

/* The window a remote store's pieces hold their bytes in: atomic adds have
 * their own (docs/timing-model.md, "Windows"). */
static int store_window(const a2_instr *in) {
  return in->mode == A2_MODE_ATOMIC_ADD ? A2_IO_ATOMIC : A2_IO_WRITE;
}

/* A piece of len bytes of instruction seq, of the window c->win_io[io], returned
 * its bytes at t. known: the return is known when the piece starts
 * (reservation timing), so the instruction's completion is set without an
 * event; else (packet timing, a held reply) it is an event for the core,
 * and the pieces that waited for room start. */
static void piece_settled(a2_core *c, uint64_t seq, int io, uint64_t len, uint64_t t, bool known) {
  uint32_t k = a2_slot_of(c, seq);
  a2_slot_ext *e = &c->ext[k];
  a2_window_give(&c->win_io[io], len, t);
  e->inflight--;
  if (t > e->last_ps) e->last_ps = t;
  if (e->next_off == c->win[k].in.len && e->inflight == 0) {
    if (known)
      c->done[k] = e->last_ps; /* known now: no event */
    else
      a2_core_complete(c, seq, e->last_ps);
  }
  if (!known) pump(c, io, a2k_now_ps()); /* what waited for it */
}

static void piece_returned(a2_core *c, uint64_t seq, int io, uint64_t len, uint64_t t) {
  piece_settled(c, seq, io, len, t, c->ahead);
}

/* Packet timing, or a remote load's reply in order of arrival: a piece's
 * last packet starts service at its last stage; t is when it leaves it. */
static void piece_done(a2_xfer *x, uint64_t t) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  int io = m->in->op == A2_OP_RSTORE ? store_window(m->in) : A2_IO_READ;
  piece_settled(m->owner, m->seq, io, m->chunk.len,
                t + (io != A2_IO_READ ? ack_ps(m->owner, m->rank) : 0), false);
}

/* The data leg of a remote load's piece, not started: peer HBM -> route ->
 * MTE-in. */
static a2_xfer *rload_data(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t off,
                           uint64_t len) {
  uint32_t peer = (uint32_t)in->peer;
  a2_xfer *x = xfer_new(c, in, seq, len, A2_XFER_MEM);
  uint16_t n = (uint16_t)(route_len(c, peer, c->rank) + 2);
  uint32_t *p = a2_xfer_path(x, n);
  if (!p) a2_out_of_memory("a transfer's route");
  p[0] = hbm_of(c, peer);
  add_route(c, p + 1, peer, c->rank, (uint16_t)(n - 2));
  p[n - 1] = c->stages[ST_MTE_IN];
  x->apply_hop = 0;
  x->on_apply = apply_read;
  a2_xfer_ctx *m = a2_ctx_of(x);
  m->rank = peer;
  m->chunk.off = off;
  m->chunk.len = len;
  return x;
}

/* Start x, a remote load's request or reply whose completion is an event,
 * from t: by packets, or under ordered timing where routes relay
 * (held.arrival) in order of arrival (a2_xfer_start_arrival; the hold's
 * process runs the queue). Returns when its first packet is ready. */
static uint64_t start_evented(a2_core *c, a2_xfer *x, uint64_t t) {
  t = jittered(c, t);
  if (c->ahead)
    a2_xfer_start_arrival(c->sim->net, x, t);
  else
    a2_xfer_start(c->sim->net, x, t);
  return t;
}

/* Packet timing, or in order of arrival: a piece's request has reached the
 * peer at t; its data comes back from there. */
static void rload_request_done(a2_xfer *req, uint64_t t) {
  const a2_xfer_ctx *m = a2_ctx_of(req);
  a2_xfer *x = rload_data(m->owner, m->in, m->seq, m->chunk.off, m->chunk.len);
  x->on_done = piece_done;
  start_evented(m->owner, x, t);
}

/* ---- replies reserved together (reservation timing) ----
 * A remote load's reply is reserved from its request's arrival, but not at
 * once: the replies of the core's pieces to one peer are held in c->rgroup
 * and reserved together, packet by packet in order of arrival at the
 * peer's HBM (a2_xfer_start_group), as packet timing serves them there.
 * Reserved one by one, the first would be served whole before the second,
 * whose request arrived while it was. The group is reserved when a piece
 * goes to another peer, when the window has no room for the next piece
 * without a held piece's return, when it is full, and when the core needs a
 * held piece's completion or ends its activation (a2_rload_flush). */

bool a2_rload_flush(a2_core *c) {
  a2_rgroup *g = &c->rgroup;
  uint32_t n = g->n;
  if (!n) return false;
  a2_xfer *xs[A2_RGROUP_MAX];
  uint64_t ts[A2_RGROUP_MAX], done[A2_RGROUP_MAX];
  for (uint32_t i = 0; i < n; i++) {
    xs[i] = g->p[i].x;
    ts[i] = g->p[i].t;
  }
  a2_xfer_start_group(c->sim->net, xs, ts, done, NULL, n);
  g->n = 0;
  c->rgroup_slots = 0;
  for (uint32_t i = 0; i < n; i++) piece_returned(c, g->p[i].seq, A2_IO_READ, g->p[i].len, done[i]);
  return true;
}

/* ---- replies held (ordered timing) ----
 * Every core's replies go into the sim's hold (a2_held_replies,
 * internal.h) instead of the core's group, and a process reserves them:
 * one over a link of its own, and any where a rank has several cores, when
 * its request arrives at the peer's HBM; any other with the rest of the
 * hold when the first held reply arrives. Reserved when its request
 * arrives, a reply no longer goes before the peer's own loads that reach
 * the HBM earlier; a link of the pair's own carries no other rank's
 * replies, so there it also meets no reply out of order. If the peer also
 * reads (its route's first link has carried a request), such a reply is
 * split in two legs: its packets at the HBM then, the rest of its route
 * when its first packet reaches the first link, so that it no longer goes
 * before the peer's requests that reach that link in the meantime (the
 * HBM's latency). With several cores a rank the peer's cores send such
 * loads and requests all the time. Where such a reply crosses a switch
 * (more than one link), it is always split, and its request and its leg
 * past the HBM each go a link at a time, reserved at a link when their
 * first packet reaches it (request_hold, rests_reserve): reserved through
 * every link at once, they took the switch's link to a rank ahead of what
 * reached it first. With one core a rank over shared links
 * the replies wait for the first held one: their second legs, reserved in
 * the order they reached the first link, would cross the switch's link to
 * the requester out of order (docs/timing-model.md, "Held-out cases").
 * Over shared links, replies reserved together keep their order at the
 * links they share. */

/* Whether the reply of a remote load between NPUs src and dst (distinct)
 * waits in at_hbm. */
static bool held_at_hbm(const a2_sim *s, uint32_t src, uint32_t dst) {
  return s->k->ncores > 1 || a2_topo_own_link(s->topo, src, dst);
}

/* Grow *pv (elements of size bytes, room *cap) to hold need. */
static void held_grow(void *pv, uint32_t *cap, uint32_t need, size_t size) {
  if (need <= *cap) return;
  uint32_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void **pp = pv;
  void *v = realloc(*pp, c * size);
  if (!v) a2_out_of_memory("held replies");
  *pp = v;
  *cap = c;
}

static void held_wake(a2_held_replies *h, uint64_t t) {
  if (t < h->due_ps) {
    h->due_ps = t;
    a2k_wake_at(h->proc, t);
  }
}

/* Remote loads in order of arrival (ordered timing, routes that relay:
 * a2_topo_relays): the request and then the reply go through the network's
 * arrival queue (start_evented), which the hold's process runs when
 * simulated time reaches the first arrival queued, up to
 * A2_ARRIVAL_AHEAD_PS ahead of the present, so that they are served at
 * each link in the order they reach it, as packet timing serves them. */
#define A2_ARRIVAL_AHEAD_PS 200000 /* 0.2 us */

/* Hold the reply of piece p from peer. One held until its request arrives
 * over a single link is split only if that link has carried a request (the
 * peer reads): the peer's requests, which its cores send as they go, are
 * what could be served between its packets that the whole reservation
 * holds behind them; without them the second leg would change no time.
 * One with later links is always split: they carry other ranks' requests. */
static void reply_hold(a2_core *c, uint32_t peer, const a2_rgroup_piece *p) {
  a2_sim *s = c->sim;
  a2_held_replies *h = &s->held;
  uint32_t src = s->dev[peer], dst = s->dev[c->rank];
  if (held_at_hbm(s, src, dst)) {
    /* its route's first link (rload_data) has carried a request, or it has
     * more than one link (HBM, links, MTE-in) */
    uint8_t split = h->requests[a2_xfer_hop(p->x, 1)] || a2_xfer_hops(p->x) > 3;
    a2_tq_push(&h->at_hbm, p->t, &(a2_tq_item){.kind = A2_TQ_REPLY, .u.reply = {p->x, split}});
  } else {
    held_grow(&h->v, &h->cap, h->n + 1, sizeof *h->v);
    h->v[h->n++] = (a2_held_reply){c, peer, *p};
  }
  held_wake(h, p->t);
}

/* The rest of a request's route (across a switch where its reply waits
 * for it: held_at_hbm), held until its packet reaches the next link at
 * t_ps; its reply's data leg d is held then, until the request arrives. A
 * request reserved whole when started would take the peer's link from the
 * switch ahead of the replies that reach it first. */
static void request_hold(a2_held_replies *h, a2_xfer *rest, a2_xfer *d, uint64_t t_ps) {
  a2_tq_push(&h->rest, t_ps, &(a2_tq_item){.kind = A2_TQ_REQUEST, .u.request = {rest, d}});
  held_wake(h, t_ps);
}

/* x split after its first hop: x keeps that hop (a reply's: the peer's
 * HBM; a request's: its first link), and the transfer returned takes the
 * rest of its route (a reply's links and the core's MTE-in), with x's
 * context and payload and nothing to apply. *msg_ps (NULL: not wanted):
 * the uncontended time of x's last packet along that rest (a2_noc_msg_ps). */
static a2_xfer *leg_split(a2_xfer *x, uint64_t *msg_ps) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_sim *s = m->owner->sim;
  uint16_t n = (uint16_t)(a2_xfer_hops(x) - 1);
  a2_xfer *y = a2_xfer_alloc(s->net);
  uint32_t *p = y ? a2_xfer_path(y, n) : NULL;
  if (!p) a2_out_of_memory("transfers in flight");
  *a2_ctx_of(y) = *m;
  y->bytes = x->bytes;
  y->known = 1;
  for (uint16_t i = 0; i < n; i++) p[i] = a2_xfer_hop(x, (uint16_t)(i + 1));
  if (msg_ps) {
    uint64_t last = (x->bytes - 1) % s->cfg->packet_bytes + 1;
    *msg_ps = a2_noc_msg_ps(s->net, p, n, (uint32_t)last);
  }
  a2_xfer_path(x, 1);
  return y;
}

/* The legs past the HBM whose first packet reaches their first link by
 * upto, reserved together in order of arrival there (a group at a time).
 * A leg with more than one link (across a switch) is reserved one link at
 * a time: its first link now, the rest queued for when its first packet
 * reaches the next, so that every shared link takes it in order of
 * arrival there, not ahead of what reaches it first. The pieces whose
 * last leg is reserved go into h->r, their completions into h->rdone.
 * Returns how many. */
static uint32_t rests_reserve(a2_held_replies *h, uint64_t upto) {
  uint32_t n = 0;
  a2_tq_item it;
  while (a2_tq_pop_due(&h->rest, upto, &it)) {
    if (it.kind == A2_TQ_REQUEST) { /* the rest of it now; its reply held until it arrives */
      a2_xfer *d = it.u.request.reply;
      const a2_xfer_ctx *m = a2_ctx_of(d);
      a2_rgroup_piece p = {d, a2_xfer_start(h->net, it.u.request.x, it.t_ps), m->seq, m->chunk.len};
      reply_hold(m->owner, m->rank, &p);
      continue;
    }
    a2_xfer *y = it.u.rest.x;
    const a2_xfer_ctx *m = a2_ctx_of(y); /* read now: y is recycled when reserved */
    held_grow(&h->r, &h->rcap, n + 1, sizeof *h->r);
    held_grow(&h->rdone, &h->rdone_cap, n + 1, sizeof *h->rdone);
    h->r[n] = (a2_held_reply){m->owner, m->rank, {y, it.t_ps, m->seq, m->chunk.len}};
    h->rdone[n++] = it.u.rest.floor_ps;
  }
  uint32_t settled = 0;
  for (uint32_t i = 0, j; i < n; i = j) {
    a2_xfer *xs[A2_RGROUP_MAX], *next[A2_RGROUP_MAX];
    uint64_t ts[A2_RGROUP_MAX], done[A2_RGROUP_MAX], first[A2_RGROUP_MAX];
    for (j = i; j < n && j - i < A2_RGROUP_MAX; j++) {
      a2_held_reply *r = &h->r[j];
      /* more than one link before the MTE-in: its first link now, the rest later */
      next[j - i] = a2_xfer_hops(r->p.x) > 2 ? leg_split(r->p.x, NULL) : NULL;
      xs[j - i] = r->p.x;
      ts[j - i] = r->p.t;
    }
    a2_xfer_start_group(h->net, xs, ts, done, first, j - i);
    for (uint32_t k = i; k < j; k++) {
      if (next[k - i]) { /* the rest, when its first packet reaches the next link */
        a2_tq_push(&h->rest, first[k - i],
                   &(a2_tq_item){.kind = A2_TQ_REST, .u.rest = {next[k - i], h->rdone[k]}});
        continue;
      }
      h->r[settled] = h->r[k];
      h->rdone[settled] = done[k - i] > h->rdone[k] ? done[k - i] : h->rdone[k];
      settled++;
    }
  }
  return settled;
}

/* The replies held until their request arrives (at_hbm) whose request
 * reaches the peer's HBM by upto: their
 * legs at the HBM reserved together, packet by packet in order of arrival
 * there (as packet timing serves them), a group at a time; the rest of
 * each queued for when its first packet reaches the link, and not to
 * complete before its last packet could, uncontended. */
static void hbm_legs_reserve(a2_held_replies *h, uint64_t upto) {
  enum { GROUP = 64 };
  struct {
    a2_held_reply r; /* the reply (its data leg) and its piece */
    a2_xfer *rest;   /* a split one's leg past the HBM; NULL: reserved whole */
    uint64_t msg;    /* the rest's uncontended time for the last packet */
  } v[GROUP];
  a2_xfer *xs[GROUP];
  uint64_t ts[GROUP], done[GROUP], first[GROUP];
  a2_tq_item it;
  for (;;) {
    uint32_t k = 0;
    for (; k < GROUP && a2_tq_pop_due(&h->at_hbm, upto, &it); k++) {
      if (h->at_hbm.n > 4) a2_prefetch(a2_ctx_of(h->at_hbm.v[4].u.reply.x)); /* sorted: 4 on */
      /* in order of arrival, those of one peer's HBM together (stable) */
      a2_xfer *x = it.u.reply.x;
      const a2_xfer_ctx *m = a2_ctx_of(x); /* read now: x is recycled when reserved */
      uint32_t i = k;
      for (; i > 0 && v[i - 1].r.peer > m->rank; i--) v[i] = v[i - 1];
      v[i].r = (a2_held_reply){m->owner, m->rank, {x, it.t_ps, m->seq, m->chunk.len}};
      v[i].rest = it.u.reply.split ? leg_split(x, &v[i].msg) : NULL;
    }
    if (!k) return;
    for (uint32_t i = 0; i < k; i++) {
      xs[i] = v[i].r.p.x;
      ts[i] = v[i].r.p.t;
    }
    /* a group per HBM: a split reply's leg has no other stage, and one
     * reserved whole has a link of its own, which no other group crosses */
    for (uint32_t i = 0, j; i < k; i = j) {
      for (j = i + 1; j < k && v[j].r.peer == v[i].r.peer;) j++;
      a2_xfer_start_group(h->net, xs + i, ts + i, done + i, first + i, j - i);
    }
    for (uint32_t i = 0; i < k; i++)
      if (v[i].rest)
        a2_tq_push(&h->rest, first[i],
                   &(a2_tq_item){.kind = A2_TQ_REST, .u.rest = {v[i].rest, done[i] + v[i].msg}});
      else /* reserved whole: its return is known */
        piece_settled(v[i].r.c, v[i].r.p.seq, A2_IO_READ, v[i].r.p.len, done[i], false);
  }
}

void a2_replies_reserve(void *ctx) {
  a2_held_replies *h = ctx;
  uint64_t upto = a2k_now_ps() + h->batch_ps;
  h->due_ps = UINT64_MAX;
  if (h->arrival) {
    a2_noc_arrivals_run(h->net, a2k_now_ps() + A2_ARRIVAL_AHEAD_PS);
    uint64_t next = a2_noc_arrivals_next(h->net);
    if (next != UINT64_MAX) held_wake(h, next);
  }
  uint32_t nr = rests_reserve(h, upto);
  hbm_legs_reserve(h, upto);
  /* every other reply held, in the order their requests started; the hold
   * is emptied first, since the returns start pieces whose replies are held
   * anew */
  uint32_t n = h->n;
  held_grow(&h->b, &h->bcap, n, sizeof *h->b);
  held_grow(&h->done, &h->done_cap, n, sizeof *h->done);
  if (n) memcpy(h->b, h->v, n * sizeof *h->b);
  h->n = 0;
  const a2_held_reply *v = h->b;
  for (uint32_t i = 0, j; i < n; i = j) {
    /* a core's consecutive replies from one peer: together (a2_rload_flush) */
    a2_xfer *xs[A2_RGROUP_MAX];
    uint64_t ts[A2_RGROUP_MAX];
    for (j = i; j < n && j - i < A2_RGROUP_MAX && v[j].c == v[i].c && v[j].peer == v[i].peer; j++) {
      xs[j - i] = v[j].p.x;
      ts[j - i] = v[j].p.t;
    }
    a2_xfer_start_group(h->net, xs, ts, h->done + i, NULL, j - i);
  }
  for (uint32_t i = 0; i < n; i++)
    piece_settled(v[i].c, v[i].p.seq, A2_IO_READ, v[i].p.len, h->done[i], false);
  for (uint32_t i = 0; i < nr; i++)
    piece_settled(h->r[i].c, h->r[i].p.seq, A2_IO_READ, h->r[i].p.len, h->rdone[i], false);
  if (h->at_hbm.n) held_wake(h, a2_tq_next(&h->at_hbm));
  if (h->rest.n) held_wake(h, a2_tq_next(&h->rest));
}

/* Remote load piece [off, off+len) of instruction seq from t: the request
 * (a control message along route(me -> peer)), then its data. */
static void rload_piece(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t off, uint64_t len,
                        uint64_t t) {
  uint32_t peer = (uint32_t)in->peer;
  a2_xfer *x = xfer_new(c, in, seq, c->sim->cfg->ctrl_bytes, A2_XFER_MEM);
  uint16_t n = route_len(c, c->rank, peer);
  uint32_t *p = a2_xfer_path(x, n);
  if (!p) a2_out_of_memory("a transfer's route");
  add_route(c, p, c->rank, peer, n);
  if (c->ahead && !c->sim->held.arrival) { /* the request now, the reply held */
    bool at_hbm = c->ordered && held_at_hbm(c->sim, c->sim->dev[c->rank], c->sim->dev[peer]);
    if (at_hbm) c->sim->held.requests[p[0]] = 1; /* its first link (read before x is recycled) */
    /* across a switch, its first link now and the rest when it reaches
     * the next (request_hold) */
    a2_xfer *rest = at_hbm && n > 1 ? leg_split(x, NULL) : NULL;
    uint64_t t_req = start(c, x, t);
    a2_xfer *d = rload_data(c, in, seq, off, len);
    d->known = 1;
    if (rest) {
      request_hold(&c->sim->held, rest, d, t_req);
      return;
    }
    a2_rgroup_piece piece = {d, jittered(c, t_req), seq, len};
    if (c->ordered) {
      reply_hold(c, peer, &piece);
      return;
    }
    a2_rgroup *g = &c->rgroup;
    g->peer = peer;
    g->p[g->n++] = piece;
    c->rgroup_slots |= 1ull << a2_slot_of(c, seq);
    return;
  }
  a2_ctx_of(x)->chunk.off = off;
  a2_ctx_of(x)->chunk.len = len; /* the data leg's */
  x->on_done = rload_request_done;
  uint64_t t0 = start_evented(c, x, t);
  if (c->ahead) held_wake(&c->sim->held, t0); /* its arrival at the first stage */
}

/* Remote store piece [off, off+len) of instruction seq from t: MTE-out ->
 * the store port of its first link -> route(me -> peer) -> peer HBM
 * (written, or atomically added, there); it returns when the
 * acknowledgement is back. */
static void rstore_piece(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t off, uint64_t len,
                         uint64_t t) {
  uint32_t peer = (uint32_t)in->peer;
  a2_xfer *x = xfer_new(c, in, seq, len, A2_XFER_MEM);
  uint16_t links = route_len(c, c->rank, peer), port = links ? 1 : 0;
  uint16_t n = (uint16_t)(links + port + 2);
  uint32_t *p = a2_xfer_path(x, n);
  if (!p) a2_out_of_memory("a transfer's route");
  p[0] = c->stages[ST_MTE_OUT];
  add_route(c, p + 1 + port, c->rank, peer, links);
  if (port) {
    p[1] = c->sim->store_port[p[2]];
    note_stage(c, p[1]);
  }
  p[n - 1] = hbm_of(c, peer);
  x->apply_hop = (uint16_t)(n - 1);
  x->on_apply = apply_write;
  a2_xfer_ctx *m = a2_ctx_of(x);
  m->rank = peer;
  m->chunk.off = off;
  m->chunk.len = len;
  if (c->ahead) {
    x->known = 1;
    piece_returned(c, seq, store_window(in), len, start(c, x, t) + ack_ps(c, peer));
    return;
  }
  x->on_done = piece_done;
  start(c, x, t);
}

/* Start the pieces the window lets start, from t: under reservation timing
 * all of them (every return is known), under packet timing those whose
 * turn has come; the rest wait (c->wait) until a piece returns. */
static void pump(a2_core *c, int io, uint64_t t) {
  a2_window *w = &c->win_io[io];
  uint64_t pkt = c->sim->cfg->packet_bytes;
  while (c->wait_n[io]) {
    uint8_t r = c->wait[io][c->wait_head[io]];
    uint64_t seq = c->seq_oldest + (uint8_t)(r - (uint8_t)(c->seq_oldest % A2_WIN)) % A2_WIN;
    uint32_t k = a2_slot_of(c, seq);
    const a2_instr *in = &c->win[k].in;
    a2_slot_ext *e = &c->ext[k];
    while (e->next_off < in->len) {
      uint64_t off = e->next_off, len = a2_window_piece(w, in->len, off, pkt);
      const a2_rgroup *g = &c->rgroup;
      if (io == A2_IO_READ && g->n &&
          (g->n == A2_RGROUP_MAX || g->peer != (uint32_t)in->peer || !a2_window_fits(w, len, t)))
        a2_rload_flush(c);
      uint64_t s = a2_window_take(w, len, t);
      if (s == UINT64_MAX) return; /* packet timing: a piece in flight returns first */
      e->next_off += len;
      e->inflight++;
      if (io != A2_IO_READ)
        rstore_piece(c, in, seq, off, len, s);
      else
        rload_piece(c, in, seq, off, len, s);
    }
    c->wait_head[io] = (uint8_t)((c->wait_head[io] + 1) % A2_WIN);
    c->wait_n[io]--;
  }
}

/* A remote access of instruction seq through the window c->win_io[io], started
 * at t: it queues behind the accesses of that window still waiting for room. */
static void remote_access(a2_core *c, int io, uint64_t seq, uint64_t t) {
  a2_slot_ext *e = &c->ext[a2_slot_of(c, seq)];
  e->next_off = 0;
  e->inflight = 0;
  e->last_ps = 0;
  c->wait[io][(c->wait_head[io] + c->wait_n[io]) % A2_WIN] = (uint8_t)(seq % A2_WIN);
  c->wait_n[io]++;
  pump(c, io, t);
}

void a2_issue_rload(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  if ((uint32_t)in->peer == c->rank)
    local_read(c, in, seq, t);
  else
    remote_access(c, A2_IO_READ, seq, t);
}

void a2_issue_rstore(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  if ((uint32_t)in->peer == c->rank) {
    local_write(c, in, seq, t);
  } else if (!c->sim->store_port) {
    /* a program produced on demand that did not declare its remote stores
     * (uses_rstore): there are no store ports to route them through */
    a2_core_fail(c, in, "the program has no store ports (a2_program.uses_rstore is not set)");
    local_write(c, in, seq, t);
  } else {
    remote_access(c, store_window(in), seq, t);
  }
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
 * peer's core: the cell, the value, and whether it adds or sets. */
void a2_notify_land(a2_core *r, uint8_t *cell, int32_t value, bool add) {
  notify_cell(cell, add ? A2_MODE_ADD : A2_MODE_SET, value);
  a2_signal_changed(r->sim, r->rank);
}

/* Packet timing: a notify's packet starts service at the peer's HBM (it
 * has landed); t is when it leaves that stage. The notify completes when
 * the acknowledgement is back. */
static void notify_done(a2_xfer *x, uint64_t t) {
  const a2_xfer_ctx *m = a2_ctx_of(x);
  a2_core_complete(m->owner, m->seq, t + ack_ps(m->owner, m->rank));
}

/* A notify blocks (docs/timing-model.md, "The vector core"): it completes
 * when its write has landed at the peer's HBM and the acknowledgement is
 * back, and every later instruction of the core waits for that. */
void a2_issue_notify(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  uint32_t peer = (uint32_t)in->peer;
  a2_xfer *x = xfer_new(c, in, seq, c->sim->cfg->ctrl_bytes, A2_XFER_NOTIFY);
  uint16_t len = (uint16_t)(route_len(c, c->rank, peer) + 1);
  uint32_t *p = a2_xfer_path(x, len);
  if (!p) a2_out_of_memory("a transfer's route");
  add_route(c, p, c->rank, peer, (uint16_t)(len - 1));
  uint32_t hbm = p[len - 1] = hbm_of(c, peer);
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
    a2_tq_push(&r->pend, t_land,
               &(a2_tq_item){.kind = A2_TQ_NOTIFY,
                             .u.notify = {cell, in->value, in->mode == A2_MODE_ADD}});
    a2_core_wake(r, t_land);
    /* it leaves the HBM stage S_h(c) + lat_h after it landed (the last stage) */
    c->done[a2_slot_of(c, seq)] =
        t_land + a2_noc_msg_ps(c->sim->net, &hbm, 1, c->sim->cfg->ctrl_bytes) + ack_ps(c, peer);
    return;
  }
  x->on_apply = apply_notify;
  x->writes = 1; /* at hop 0 too: a notify to its own rank lands at its time */
  a2_xfer_ctx *m = a2_ctx_of(x);
  m->rank = peer;
  /* Under reservation timing a core may retire the notify (and reuse its
   * slot) ahead of the present, before the peer's core carries out the
   * landing: the transfer carries its own copy of the instruction. */
  m->notify.copy = *in;
  m->in = &m->notify.copy;
  m->runner = a2_notify_runner(c, peer);              /* lands there: its core acts */
  const a2_slot_ext *e = &c->ext[a2_slot_of(c, seq)]; /* set only with these options */
  if (c->sim->race) m->notify.snap = e->snap;         /* handed to the cell on landing */
  if (c->sim->obs) {
    m->notify.start_ps = e->start_ps;
    m->notify.lane = e->lane;
  }
  if (c->ahead) { /* the transfer lands on the runner's event; it leaves the path now known */
    c->done[a2_slot_of(c, seq)] = start(c, x, t) + ack_ps(c, peer);
    return;
  }
  x->on_done = notify_done;
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
  if (!p) a2_out_of_memory("a transfer's route");
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
    if (!p) a2_out_of_memory("a transfer's route");
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
