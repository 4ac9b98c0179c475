/* A vector core: in-order dispatch into per-pipe queues; each pipe starts
 * its instructions in order once their tile dependencies (read-after-write,
 * write-after-read, write-after-write, tracked by sequence number) have
 * completed; pipes overlap. `wait` blocks dispatch until the local signal
 * cell satisfies it; `notify` first drains every earlier data instruction
 * (PyPTO semantics) and blocks: it completes when its write is acknowledged,
 * and every later instruction waits for that (pto-isa's TNOTIFY ends with a
 * memory barrier and a pipe barrier). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/internal.h"
#include "traces/validate.h"

bool a2_core_finished(const a2_core *c) {
  return c->prog_done && !c->failed && c->pc == c->base + c->prog->n &&
         c->seq_oldest == c->seq_next;
}

/* The slow path of a2_core_next: the window is used up. */
static const a2_instr *refill(a2_core *c) {
  if (c->prog_done || c->failed) return NULL;
  a2_sim *s = c->sim;
  a2_source *src = s->k->source;
  c->base = c->pc;
  if (c->prog == &c->batch && c->batch.lent) c->batch.v = s->scratch; /* see keep_rest */
  c->prog->n = 0;
  a2_err e;
  a2_code rc = src->fill(src, c->rank, c->idx, c->prog, &e);
  if (rc == A2_OK) rc = a2_validate_batch(s->k, c->rank, c->idx, c->prog->v, c->prog->n, NULL, &e);
  if (rc) {
    c->failed = true;
    if (!s->run_rc) {
      s->run_rc = rc;
      s->run_err = e;
    }
    return NULL;
  }
  if (c->prog->n == 0) {
    c->prog_done = true;
    return NULL;
  }
  return &c->prog->v[0];
}

/* The end of an activation: what is left of a batch refilled in the
 * shared scratch moves to the core's own batch_v. */
static void keep_rest(a2_core *c) {
  a2_instrs *p = &c->batch;
  if (p->v != c->sim->scratch) return;
  uint64_t i = c->pc - c->base;
  uint32_t left = i < p->n ? p->n - (uint32_t)i : 0;
  memcpy(c->batch_v, p->v + i, left * sizeof *p->v);
  p->v = c->batch_v;
  p->n = left;
  c->base = c->pc;
}

const a2_instr *a2_core_next(a2_core *c) {
  if (c->pc < c->base + c->prog->n) return &c->prog->v[c->pc - c->base];
  return refill(c);
}

static inline int pipe_of(uint8_t op) {
  switch (op) {
  case A2_OP_LOAD:
  case A2_OP_TLOAD:
  case A2_OP_RLOAD: return PIPE_MTE_IN;
  case A2_OP_STORE:
  case A2_OP_TFIXPIPE:
  case A2_OP_RSTORE: return PIPE_MTE_OUT;
  case A2_OP_TEXTRACT: return PIPE_MTE1;
  case A2_OP_TMATMUL: return PIPE_CUBE;
  case A2_OP_NOTIFY: return PIPE_SCALAR;
  case A2_OP_PUT:
  case A2_OP_GET: return PIPE_DMA;
  default: return PIPE_VEC;
  }
}

/* Record that instruction seq depends on seq_plus1 - 1 (0: none), unless
 * that one has retired (it is complete). */
static void add_dep(const a2_core *c, a2_slot *sl, uint64_t seq, uint64_t seq_plus1) {
  if (seq_plus1 <= c->seq_oldest) return;
  uint8_t dist = (uint8_t)(seq - (seq_plus1 - 1)); /* in the window: 1..A2_WIN-1 */
  int i = 0;
  for (; i < A2_MAXDEPS && sl->dep[i]; i++)
    if (sl->dep[i] == dist) return;
  if (i == A2_MAXDEPS) abort(); /* cannot happen: see A2_MAXDEPS */
  sl->dep[i] = dist;
}

/* Whether in-window instruction seq_plus1 - 1 is a put/get on the same DMA
 * queue as put/get `in` (a queue completes its put/get in order, dma.c). */
static bool dma_same_queue(const a2_core *c, const a2_instr *in, uint64_t seq_plus1) {
  if (seq_plus1 <= c->seq_oldest) return false;
  const a2_instr *w = &c->win[a2_slot_of(c, seq_plus1 - 1)].in;
  return (w->op == A2_OP_PUT || w->op == A2_OP_GET) &&
         a2_dma_queue_of(c, w) == a2_dma_queue_of(c, in);
}

/* Record dependencies of a new instruction on earlier ones touching the same
 * tiles, then mark it as the tiles' latest reader / writer. */
static void track_tiles(a2_core *c, const a2_instr *in, a2_slot *sl, uint64_t seq, int pipe) {
  int nr = 0, wr = -1;
  uint16_t rd[2];
  switch (in->op) {
  case A2_OP_LOAD:
  case A2_OP_TLOAD:
  case A2_OP_RLOAD: wr = in->tile; break;
  case A2_OP_STORE:
  case A2_OP_TFIXPIPE:
  case A2_OP_RSTORE: rd[nr++] = in->tile; break;
  case A2_OP_TEXTRACT:
    rd[nr++] = in->tile_a;
    wr = in->tile;
    break;
  case A2_OP_TMATMUL:
    rd[nr++] = in->tile_a;
    rd[nr++] = in->tile_b;
    wr = in->tile;
    break;
  case A2_OP_VADD:
  case A2_OP_VMAX:
  case A2_OP_VMIN:
  case A2_OP_VMUL:
    rd[nr++] = in->tile_a;
    rd[nr++] = in->tile_b;
    wr = in->tile;
    break;
  default: break;
  }
  for (int i = 0; i < nr; i++) add_dep(c, sl, seq, c->tiles[rd[i]].w);
  if (wr >= 0) {
    a2_tile_state *t = &c->tiles[wr];
    add_dep(c, sl, seq, t->w);
    for (int p = 0; p < NPIPES; p++) add_dep(c, sl, seq, t->r[p]);
  }
  /* Local memory: a read of a buffer waits for this core's last local write
   * to it (PyPTO inserts that pipe sync; ordering between cores and ranks is
   * the program's job: notify/wait). Local writes share one path (MTE-out,
   * HBM), so they land in program order without a dependency. */
  bool local =
      (in->op <= A2_OP_RSTORE && (in->op <= A2_OP_STORE || (uint32_t)in->peer == c->rank)) ||
      in->op == A2_OP_TLOAD || in->op == A2_OP_TFIXPIPE;
  bool mem_write = in->op == A2_OP_STORE || in->op == A2_OP_RSTORE || in->op == A2_OP_TFIXPIPE;
  if (local && !mem_write) add_dep(c, sl, seq, c->buf_w[in->buf]);
  if (local && mem_write) c->buf_w[in->buf] = seq + 1;
  if (in->op == A2_OP_PUT) add_dep(c, sl, seq, c->buf_w[in->buf2]); /* reads a local buffer */
  if (in->op == A2_OP_GET || (in->op == A2_OP_PUT && (uint32_t)in->peer == c->rank)) {
    /* writes a local buffer: after the core's last local write to it, unless
     * that is a put/get on the same DMA queue, which completes them in order */
    uint64_t w = c->buf_w[in->buf];
    if (!dma_same_queue(c, in, w)) add_dep(c, sl, seq, w);
    c->buf_w[in->buf] = seq + 1;
  }
  for (int i = 0; i < nr; i++) c->tiles[rd[i]].r[pipe] = seq + 1;
  if (wr >= 0) {
    memset(c->tiles[wr].r, 0, sizeof c->tiles[wr].r);
    c->tiles[wr].w = seq + 1;
  }
  /* A notify blocks: everything after it waits for its completion. */
  add_dep(c, sl, seq, c->notify_w);
  if (in->op == A2_OP_NOTIFY) c->notify_w = seq + 1;
}

/* Tell the race detector which bytes this instruction reads and writes. */
static void race_accesses(a2_core *c, const a2_instr *in, uint64_t now) {
  a2_race *r = c->sim->race;
  uint32_t gid = c->rank * c->sim->k->ncores + c->idx, peer = (uint32_t)in->peer;
  switch (in->op) {
  case A2_OP_LOAD:
  case A2_OP_TLOAD: a2_race_access(r, gid, c->rank, in->buf, in->off, in->len, 0, in, now); break;
  case A2_OP_STORE:
  case A2_OP_TFIXPIPE:
    a2_race_access(r, gid, c->rank, in->buf, in->off, in->len, 1, in, now);
    break;
  case A2_OP_RLOAD: a2_race_access(r, gid, peer, in->buf, in->off, in->len, 0, in, now); break;
  case A2_OP_RSTORE:
    a2_race_access(r, gid, peer, in->buf, in->off, in->len,
                   in->mode == A2_MODE_ATOMIC_ADD ? A2_RACE_ATOMIC_ADD : A2_RACE_WRITE, in, now);
    break;
  case A2_OP_PUT:
    a2_race_access(r, gid, c->rank, in->buf2, in->off2, in->len, 0, in, now);
    a2_race_access(r, gid, peer, in->buf, in->off, in->len,
                   in->mode & A2_MODE_DMA_ATOMIC_ADD ? A2_RACE_ATOMIC_ADD : A2_RACE_WRITE, in, now);
    break;
  case A2_OP_GET:
    a2_race_access(r, gid, peer, in->buf2, in->off2, in->len, 0, in, now);
    a2_race_access(r, gid, c->rank, in->buf, in->off, in->len, 1, in, now);
    break;
  default: break;
  }
}

static void close_sync_run(a2_core *c) {
  if (c->in_sync_run && c->run_has_wait) c->rounds++;
  c->in_sync_run = c->run_has_wait = false;
}

static bool wait_satisfied(const a2_core *c, const a2_instr *in) {
  int32_t v;
  memcpy(&v, a2_mem(c->sim, c->rank, in->buf) + in->off, sizeof v);
  return in->mode == A2_MODE_EQ ? v == in->value : v >= in->value;
}

static bool retire(a2_core *c, uint64_t now);

/* Reservation timing, window full: the oldest instruction's completion time
 * is known, so its slot is free from then on. The core takes it without
 * sleeping until then: dispatch moves on to that time (c->vt) and what it
 * dispatches starts no earlier. As with starting ahead, only the order in
 * which reservations are made changes; a wait stops it (a signal is read at
 * its own time). */
static bool retire_ahead(a2_core *c) {
  a2_rload_flush_slot(c, a2_slot_of(c, c->seq_oldest));
  uint64_t d = c->done[a2_slot_of(c, c->seq_oldest)];
  if (!c->ahead || d == UINT64_MAX) return false;
  /* Only with every dispatched instruction started: one still queued may
   * depend on what would retire, and a retired dependency is not waited for
   * (it is complete by the dispatch time of what comes after it). */
  if (c->pq_mask) return false;
  /* At most a window's worth per activation: the stages' interval lists
   * hold what is reserved ahead of now, so running further ahead costs
   * memory for nothing; the core wakes when the oldest completes instead. */
  if (c->ahead_n == A2_WIN) return false;
  c->ahead_n++;
  if (d > c->vt) c->vt = d;
  return retire(c, c->vt);
}

/* Dispatch as many instructions as allowed; returns true on progress. */
static bool dispatch(a2_core *c, uint64_t now) {
  bool progress = false;
  const a2_instr *in;
  while ((in = a2_core_next(c))) {
    if (in->op == A2_OP_WAIT) {
      if (c->vt > now) { /* dispatch is ahead of now: read the signal then */
        c->wait_ahead = true;
        break;
      }
      if (!wait_satisfied(c, in)) {
        if (!c->blocked) c->wait_since = now;
        c->blocked = true;
        break;
      }
      if (c->sim->obs)
        a2_obs_wait(c->sim->obs, c->rank, c->idx, c->blocked ? c->wait_since : now, now, in);
      c->blocked = false;
      c->cnt.waits++;
      if (c->sim->race)
        a2_race_acquire(c->sim->race, c->rank * c->sim->k->ncores + c->idx, c->rank, in->buf,
                        in->off);
      /* a satisfied wait is work done: it counts towards the end time */
      if (now > c->end_ps) c->end_ps = now;
      c->in_sync_run = c->run_has_wait = true;
      c->pc++;
      progress = true;
      continue;
    }
    if (c->seq_next - c->seq_oldest == A2_WIN && !retire_ahead(c)) break;
    uint64_t seq = c->seq_next++;
    uint32_t k = (uint32_t)__builtin_ctzll(c->slot_free); /* one is free: the window is not full */
    c->slot_free &= c->slot_free - 1;
    c->at[seq % A2_WIN] = (uint8_t)k;
    if (c->ahead) c->disp[k] = c->vt > now ? c->vt : now;
    a2_slot *sl = &c->win[k];
    int pipe = pipe_of(in->op);
    c->done[k] = UINT64_MAX;
    sl->in = *in;
    memset(sl->dep, 0, sizeof sl->dep);
    track_tiles(c, in, sl, seq, pipe);
    if (c->sim->race) {
      race_accesses(c, in, c->vt > now ? c->vt : now);
      if (in->op == A2_OP_NOTIFY)
        c->ext[k].snap = a2_race_notify(c->sim->race, c->rank * c->sim->k->ncores + c->idx);
    }
    c->pq[pipe] |= 1ull << (seq % A2_WIN);
    c->pq_mask |= 1u << pipe;
    if (in->op == A2_OP_NOTIFY) {
      c->cnt.notifies++;
      c->in_sync_run = true;
      if (c->ahead) a2_prefetch_notify_target(c, in); /* it starts later in this activation */
    } else {
      close_sync_run(c);
    }
    bool remote = (in->op == A2_OP_RLOAD || in->op == A2_OP_RSTORE || in->op == A2_OP_PUT ||
                   in->op == A2_OP_GET) &&
                  (uint32_t)in->peer != c->rank;
    if (remote) {
      c->cnt.remote_ops++;
      if (in->op == A2_OP_RLOAD || in->op == A2_OP_GET)
        c->cnt.remote_read_bytes += in->len;
      else
        c->cnt.remote_write_bytes += in->len;
    }
    c->pc++;
    progress = true;
  }
  if (!in && c->prog_done) close_sync_run(c);
  return progress;
}

/* When instruction seq may start: the latest completion among its
 * dependencies (for a notify, which drains, every earlier non-notify
 * instruction), 0 when all are retired, UINT64_MAX while one is unknown. */
static uint64_t ready_at(a2_core *c, const a2_slot *sl, uint64_t seq) {
  uint64_t t = 0;
  if (sl->in.op == A2_OP_NOTIFY) a2_rload_flush(c);
  for (int i = 0; i < A2_MAXDEPS && sl->dep[i]; i++)
    if (seq - sl->dep[i] >= c->seq_oldest) {
      uint32_t k = a2_slot_of(c, seq - sl->dep[i]);
      a2_rload_flush_slot(c, k);
      uint64_t d = c->done[k];
      if (d > t) t = d;
    }
  if (sl->in.op == A2_OP_NOTIFY)
    for (uint64_t s = c->seq_oldest; s < seq; s++) {
      uint32_t k = a2_slot_of(c, s);
      if (c->done[k] > t && c->win[k].in.op != A2_OP_NOTIFY) t = c->done[k];
    }
  return t;
}

/* A vector op on the vector pipe, serialised there (docs/timing-model.md):
 *   V(n) = (startup_cycles + ceil(n / bytes_per_cycle)) * cycle,  compute K: K * cycle */
static void start_vector(a2_core *c, const a2_instr *in, uint32_t slot, uint64_t now) {
  /* now: when it may start (later than the present when started ahead) */
  const a2_config *cfg = c->sim->cfg;
  uint64_t cycles;
  if (in->op == A2_OP_COMPUTE)
    cycles = (uint64_t)in->value;
  else
    cycles = cfg->vec_startup_cycles +
             (in->len + cfg->vec_bytes_per_cycle - 1) / cfg->vec_bytes_per_cycle;
  uint64_t start = c->vec_free_ps > now ? c->vec_free_ps : now; /* max(ready, pipe free) */
  c->vec_free_ps = start + a2_fault_rank_scale(c->sim, c->rank, cycles * c->sim->cycle_ps, 1);
  if (in->op != A2_OP_COMPUTE && !c->sim->no_data) a2_vector_apply(c, in);
  c->done[slot] = c->vec_free_ps;
  if (!c->ahead) a2_core_wake(c, c->vec_free_ps);
}

/* Whether starting in reserves time at a stage other cores share (every op
 * but the vector pipe's, which only the core itself uses): under ordered
 * timing only those wait for the event kernel's horizon. */
static bool reserves(const a2_instr *in) {
  switch (in->op) {
  case A2_OP_LOAD:
  case A2_OP_TLOAD:
  case A2_OP_STORE:
  case A2_OP_TFIXPIPE:
  case A2_OP_TEXTRACT:
  case A2_OP_TMATMUL:
  case A2_OP_RLOAD:
  case A2_OP_RSTORE:
  case A2_OP_NOTIFY:
  case A2_OP_PUT:
  case A2_OP_GET: return true;
  default: return false;
  }
}

/* Start pipe heads whose dependencies are met; returns true on progress.
 * Under reservation timing (c->ahead) every completion time is known when
 * its instruction starts, so a head whose dependencies have known times is
 * started at once for the moment they complete (in order within its pipe):
 * the core sleeps until something it cannot know (a signal, a DMA chunk). */
static bool start_pipes(a2_core *c, uint64_t now) {
  bool progress = false;
  for (uint32_t m = c->pq_mask; m; m &= m - 1) { /* the pipes with work, in order */
    int p = __builtin_ctz(m);
    while (c->pq[p]) {
      /* the head: the first pending position from the oldest on (the
       * window is at most A2_WIN long, so rotated they are in seq order) */
      uint32_t rot = (uint32_t)(c->seq_oldest % A2_WIN);
      uint64_t r = rot ? c->pq[p] >> rot | c->pq[p] << (A2_WIN - rot) : c->pq[p];
      uint64_t seq = c->seq_oldest + (uint64_t)__builtin_ctzll(r);
      uint32_t slot = a2_slot_of(c, seq);
      a2_slot *sl = &c->win[slot];
      uint64_t t = ready_at(c, sl, seq);
      if (c->ahead ? t == UINT64_MAX : t > now) break;
      if (t < now) t = now;
      if (c->ahead && t < c->disp[slot]) t = c->disp[slot]; /* dispatched ahead */
      if (c->ahead && t < c->pipe_start[p]) t = c->pipe_start[p];
      /* Ordered reservation timing: a head starts ahead (its transfers
       * reserved now) only up to the event kernel's horizon, the earliest time another
       * process may run, so that transfers are reserved in order of their
       * starts across cores, as packet timing serves them
       * (docs/timing-model.md, "Starting ahead"); beyond it the core
       * sleeps until the start. */
      if (c->ordered && t > now && t > a2k_horizon_ps() && reserves(&sl->in)) {
        a2_core_wake(c, t);
        break;
      }
      c->pipe_start[p] = t;
      c->pq[p] &= ~(1ull << (seq % A2_WIN));
      if (!c->pq[p]) c->pq_mask &= ~(1u << p);
      progress = true;
      if (c->sim->obs) {
        c->ext[slot].start_ps = t;
        c->ext[slot].lane = a2_obs_start(c->sim->obs, c->rank, c->idx, p, t);
      }
      const a2_instr *in = &sl->in;
      switch (in->op) {
      case A2_OP_LOAD:
      case A2_OP_TLOAD: a2_issue_load(c, in, seq, t); break;
      case A2_OP_STORE:
      case A2_OP_TFIXPIPE: a2_issue_store(c, in, seq, t); break;
      case A2_OP_TEXTRACT:
      case A2_OP_TMATMUL: a2_cube_start(c, in, slot, t); break;
      case A2_OP_RLOAD: a2_issue_rload(c, in, seq, t); break;
      case A2_OP_RSTORE: a2_issue_rstore(c, in, seq, t); break;
      case A2_OP_NOTIFY: a2_issue_notify(c, in, seq, t); break;
      case A2_OP_PUT:
      case A2_OP_GET:
        c->ext[slot].next_off = 0;
        c->ext[slot].inflight = 0;
        a2_issue_dma(c, in, seq, t);
        break;
      default: start_vector(c, in, slot, t); break;
      }
    }
  }
  return progress;
}

static bool retire(a2_core *c, uint64_t now) {
  bool progress = false;
  while (c->seq_oldest < c->seq_next) {
    uint32_t slot = a2_slot_of(c, c->seq_oldest);
    uint64_t done = c->done[slot];
    if (done > now) break;
    if (done > c->end_ps) c->end_ps = done;
    const a2_slot *sl = &c->win[slot];
    if (c->sim->obs && sl->in.op != A2_OP_NOTIFY) /* a notify's slice ends when it lands */
      a2_obs_done(c->sim->obs, c->rank, c->idx, pipe_of(sl->in.op), c->ext[slot].lane,
                  c->ext[slot].start_ps, done, &sl->in);
    c->slot_free |= 1ull << slot;
    c->seq_oldest++;
    progress = true;
  }
  return progress;
}

void a2_core_defer(void *ctx, a2_xfer *x, uint64_t t) {
  (void)ctx;
  a2_core *c = a2_ctx_of(x)->runner;
  a2_tq_push(&c->pend, t, &(a2_tq_item){.kind = A2_TQ_XFER, .u.xfer = x});
  a2_core_wake(c, t);
}

/* Reservation timing: carry out the transfer events due now. */
static bool run_pending(a2_core *c, uint64_t now) {
  bool progress = false;
  a2_tq_item it;
  while (a2_tq_pop_due(&c->pend, now, &it)) {
    if (it.kind == A2_TQ_NOTIFY)
      a2_notify_land(c, it.u.notify.cell, it.u.notify.value, it.u.notify.add);
    else
      a2_xfer_finish(c->sim->net, it.u.xfer);
    progress = true;
  }
  return progress;
}

static void core_run(void *ctx) {
  a2_core *c = ctx;
  uint64_t now = a2k_now_ps();
  c->wake_ps = UINT64_MAX;
  c->running = true;
  c->wait_ahead = false;
  c->ahead_n = 0;
  for (;;) {
    bool progress = run_pending(c, now);
    progress |= retire(c, now);
    progress |= start_pipes(c, now);
    progress |= dispatch(c, now);
    if (!progress && !a2_rload_flush(c)) break; /* held replies' completions may free more */
  }
  /* Sleep until the next known completion (transfers in flight call
   * a2_core_complete, signals call a2_signal_changed). Started ahead, the
   * core needs a completion only to free its window or to finish. */
  uint64_t next = UINT64_MAX;
  if (!c->ahead) {
    for (uint64_t s = c->seq_oldest; s < c->seq_next; s++) {
      uint64_t t = c->done[a2_slot_of(c, s)];
      if (t > now && t < next) next = t;
    }
  } else if (c->seq_next - c->seq_oldest == A2_WIN) {
    uint64_t t = c->done[a2_slot_of(c, c->seq_oldest)];
    if (t > now && t < next) next = t;
  } else if (c->seq_oldest < c->seq_next && !a2_core_next(c)) { /* nothing left to dispatch */
    uint64_t last = 0;
    for (uint64_t s = c->seq_oldest; s < c->seq_next; s++)
      if (c->done[a2_slot_of(c, s)] > last) last = c->done[a2_slot_of(c, s)];
    if (last > now && last != UINT64_MAX) next = last;
  }
  if (c->wait_ahead && c->vt < next) next = c->vt;
  if (a2_tq_next(&c->pend) < next) next = a2_tq_next(&c->pend);
  keep_rest(c);
  c->running = false;
  if (next != UINT64_MAX) a2_core_wake(c, next);
}

a2_code a2_core_init(struct a2_sim *s, a2_core *c, uint32_t rank, uint32_t idx, a2_err *err) {
  const a2_program *k = s->k;
  c->sim = s;
  c->rank = rank;
  c->idx = idx;
  c->prog = &k->progs[rank * k->ncores + idx];
  if (k->source) {
    c->batch = (a2_instrs){c->batch_v, 0, A2_CORE_BATCH, 1};
    c->prog = &c->batch;
  }
  c->prog_done = k->source == NULL;
  c->ahead = a2_noc_reservation(s->net);
  c->ordered = s->cfg->timing == A2_TIMING_ORDERED;
  c->wake_ps = UINT64_MAX;
  c->slot_free = UINT64_MAX;
  c->ack_peer = UINT32_MAX;
  c->win_io[A2_IO_READ].cap_bytes = s->cfg->rd_window_bytes;
  c->win_io[A2_IO_WRITE].cap_bytes = s->cfg->wr_window_bytes;
  c->win_io[A2_IO_ATOMIC].cap_bytes = s->cfg->atomic_window_bytes;
  c->stages[ST_HBM] = s->hbm[rank];
  for (int i = 0; i < A2_RECENT_STAGES; i++) c->stages[ST_OWN + i] = A2_NO_STAGE; /* none yet */
  a2_code rc = a2k_proc_create("core", core_run, c, &c->proc, err);
  /* Under packet timing most activations are packets at stages and a core's
   * are short and frequent, and under ordered timing a core runs once for
   * each instruction that reserves: the hint would cost more than it saves
   * there (docs/benchmarks.md, "Prefetch hints"). */
  if (rc == A2_OK && c->ahead && !c->ordered) a2k_proc_set_prefetch(c->proc, a2_core_prefetch);
  return rc;
}
