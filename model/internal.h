/* State shared by the model's files (not a public contract), and the
 * core's wake-up primitives. Calls between the files run one way:
 *   sim.c  builds and runs the model           -> core.c
 *   core.c dispatch, pipes, retirement         -> transfer.c, vector.c
 *   transfer.c, vector.c  an instruction's transfers / vector op
 *                                              -> the inline wake-ups below
 * and each of them reports to the race detector (race.h) and the timeline
 * observer (observe.h), which know nothing of this state. */
#ifndef A2_MODEL_INTERNAL_H
#define A2_MODEL_INTERNAL_H

#include <stdbool.h>

#include "common/tq.h"
#include "kernel/kernel.h"
#include "model/observe.h"
#include "model/pipes.h"
#include "model/race.h"
#include "model/sim.h"
#include "model/window.h"
#include "noc/noc.h"
#include "noc/topology.h"

/* In-flight instruction window per core: dispatch stalls when full. */
#define A2_WIN 64
/* A core's remote-access windows (docs/timing-model.md, "Windows"): its
 * remote loads, its plain remote stores and its atomic-add remote stores
 * (chip.mte.remote_read_window, remote_write_window, remote_atomic_window). */
enum { A2_IO_READ = 0, A2_IO_WRITE, A2_IO_ATOMIC, A2_NIO };
/* Dependencies of one instruction on earlier ones still in the window: at
 * most the writers of its two source tiles and of its destination tile, the
 * destination's last reader on each pipe that reads tiles (MTE-out and
 * vector) and the core's last notify (a vector op: 3 + 2 + 1 = 6), or one
 * writer, those readers, one buffer write and the last notify (a load: 5). */
#define A2_MAXDEPS 8

/* Instructions of a streamed program a core holds (its batch, refilled in
 * place; a generator's batch is about 8, in whole steps). */
#define A2_CORE_BATCH 16

/* Stages a core remembers from its recent transfers besides its own, for
 * the event kernel's prefetch hint. */
#define A2_RECENT_STAGES 16
enum { ST_MTE_IN = 0, ST_MTE_OUT, ST_HBM, ST_OWN }; /* a core's own stages, in a2_core.stages */

/* A window slot: what dispatch writes and the pipes read for every
 * instruction, one line (docs/architecture.md, "Layout and prefetch rules"). */
typedef struct {
  a2_instr in;             /* a copy: streamed programs do not keep dispatched instructions */
  uint8_t dep[A2_MAXDEPS]; /* dependencies, as distances back (seq - dep, 1..A2_WIN-1);
                              0 ends the list; retired ones are not recorded */
} a2_slot;
_Static_assert(sizeof(a2_slot) == 64, "a2_slot is one cache line");

/* Per-slot state only some instructions or options use. */
typedef struct {
  uint64_t next_off; /* put/get, remote load/store: first byte not yet started */
  uint32_t *snap;    /* notify: vector-clock snapshot for the race detector */
  uint64_t start_ps; /* when the pipe started it (timeline only) */
  uint64_t last_ps;  /* remote load/store: latest return of its pieces so far */
  uint32_t inflight; /* put/get: chunks in flight; remote load/store: pieces */
  uint8_t lane;      /* its lane in the timeline */
} a2_slot_ext;

/* Reservation timing: the replies of a core's remote-load pieces to one
 * peer, held back within an activation to be reserved together
 * (transfer.c, a2_rload_flush). */
enum { A2_RGROUP_MAX = 8 };
typedef struct {
  struct a2_xfer *x; /* the reply */
  uint64_t t;        /* when it is ready at the peer's HBM (its request's arrival) */
  uint64_t seq, len; /* its instruction, its piece's bytes */
} a2_rgroup_piece;
typedef struct {
  uint32_t n;                       /* pieces held */
  uint32_t peer;                    /* whose HBM they are read from */
  a2_rgroup_piece p[A2_RGROUP_MAX]; /* the first on the group's first line */
} a2_rgroup;

/* Ordered timing: the replies of every core's remote-load pieces, held
 * until simulated time reaches a moment, then reserved in the order their
 * requests started, a core's consecutive replies from one peer together
 * (transfer.c, a2_replies_reserve). A reply over a link of its own
 * (a2_topo_own_link), and every reply where a rank has several cores,
 * is held until its request arrives at the peer's HBM (or
 * batch_ps before), its legs past the HBM then a link at a time; every
 * other reply until the first held one arrives.
 * What another core starts before then (the peer's own loads and stores,
 * requests) is reserved first. Until then a held piece's return is not
 * known: a core that needs it sleeps and is woken with it. */
typedef struct {
  struct a2_core *c; /* whose piece */
  uint32_t peer;     /* whose HBM it is read from */
  a2_rgroup_piece p;
} a2_held_reply;
typedef struct {
  a2k_proc proc;     /* reserves what is held; created under ordered timing only */
  uint64_t due_ps;   /* when proc is due; UINT64_MAX: not */
  uint64_t batch_ps; /* replies in at_hbm due this soon are reserved with those due now */
  uint32_t n, cap;   /* the other replies, held in v, in order; its room */
  a2_held_reply *v;
  a2_tq at_hbm;      /* replies held until their request arrives (A2_TQ_REPLY), by arrival */
  a2_tq rest;        /* their legs past the HBM (A2_TQ_REST) and requests past their first
                        link (A2_TQ_REQUEST), by arrival at their next link */
  a2_noc *net;       /* the sim's */
  uint8_t *requests; /* by stage id: 1 for a route's first link that has carried a request */
  uint8_t arrival;   /* remote loads in order of arrival (a2_topo_relays: a2_xfer_start_arrival) */
  uint32_t bcap, done_cap, rcap, rdone_cap; /* room in b, done, r, rdone */
  a2_held_reply *b; /* scratch for a2_replies_reserve: the other replies it reserves, in order */
  uint64_t *done;   /* their completions */
  a2_held_reply *r; /* scratch: the legs past the HBM it reserves */
  uint64_t *rdone;  /* their completions */
} a2_held_replies;

typedef struct {
  uint64_t w;         /* seq + 1 of the last writer dispatched; 0 = none */
  uint64_t r[NPIPES]; /* seq + 1 of the last reader per pipe */
} a2_tile_state;

/* A vector core. Its fields are ordered by what an activation touches
 * (docs/architecture.md, "Layout and prefetch rules"): first the scalars
 * every activation reads and writes, down to `done` the lines the event
 * kernel's hint prefetches first. */
typedef struct a2_core {
  struct a2_sim *sim;
  a2_instrs *prog;     /* materialised: the whole program; streamed: &batch */
  uint64_t pc;         /* index in the program of the next instruction to dispatch */
  uint64_t base;       /* index in the program of prog->v[0] */
  uint64_t seq_next;   /* next sequence number to dispatch */
  uint64_t seq_oldest; /* oldest not yet retired */
  uint64_t vt;         /* reservation timing: the time dispatch has reached by
                          retiring ahead (a full window's oldest completion) */
  uint64_t wake_ps;
  uint64_t end_ps;
  uint64_t wait_since; /* when the current wait blocked (timeline) */
  uint64_t vec_free_ps;
  uint64_t mte1_free_ps, cube_free_ps; /* a cube core's MTE1 and cube pipes (cube.c) */
  uint64_t rounds;
  uint32_t rank, idx;
  uint32_t ahead_n; /* retired ahead in this activation */
  bool prog_done;   /* nothing left beyond the window */
  bool failed;      /* the program source failed: the core stops (sim->run_err) */
  bool ahead;       /* reservation timing (the network's mode, read once): instructions
                       start in advance */
  bool ordered;     /* interconnect.timing ordered: start ahead only up to the event
                       kernel's horizon (a2k_horizon_ps) */
  bool wait_ahead;  /* stopped at a wait that is due at vt, not now */
  bool blocked;     /* waiting on a signal at dispatch */
  bool in_sync_run, run_has_wait;
  bool running;     /* inside its own activation: wake-ups due now are not needed */
  bool jit_pending; /* faults: the next transfer started is remote (jittered) */
  uint64_t jit_n;   /* faults: remote transfers this core has jittered */
  /* per pipe, the instructions dispatched to it and not yet started: bit
   * seq % A2_WIN (a pipe starts them in order: the lowest seq first) */
  uint64_t pq[NPIPES];
  uint32_t pq_mask;            /* bit p: pipe p has instructions not yet started */
  uint64_t slot_free;          /* storage slots not in use (bit k: win[k], done[k], ...) */
  uint64_t rgroup_slots;       /* storage slots with a piece in rgroup (done[k] not known yet) */
  uint64_t pipe_start[NPIPES]; /* reservation timing: start of each pipe's last instruction */
  a2_tq pend;                  /* reservation timing: events this core carries out, a
                                  transfer's (A2_TQ_XFER) or a notify's landing
                                  (A2_TQ_NOTIFY, a2_notify_land) */
  /* stage ids: its own (ST_*), then, for the event kernel's prefetch hint, the
   * other stages of its recent transfers (each id once, in any of the
   * A2_RECENT_STAGES slots; A2_NO_STAGE in a slot not used yet) */
  uint32_t stages[ST_OWN + A2_RECENT_STAGES];
  uint8_t recent_next; /* the recent stages' slot a new id takes (transfer.c, note_stage) */
  a2k_proc proc;
  a2_tile_state *tiles;
  uint64_t *buf_w; /* per buffer: seq + 1 of this core's last local write */
  uint8_t *ub;     /* tile storage */
  /* the storage slot of in-window sequence number seq is at[seq % A2_WIN]
   * (a2_slot_of): dispatch takes the lowest free one */
  uint8_t at[A2_WIN];
  /* its share of its rank's counters (a2_rank_stats, summed at the end of a run) */
  struct {
    uint64_t remote_read_bytes, remote_write_bytes, remote_ops, notifies, waits;
  } cnt;
  uint64_t notify_w;     /* seq + 1 of the last notify dispatched (every later instruction waits
                            for it: a notify blocks), 0 = none */
  uint32_t ack_peer;     /* the peer of the last acknowledgement timed (UINT32_MAX: none) */
  uint64_t ack_t_ps;     /* its time (an acknowledgement's depends only on the peer) */
  uint64_t done[A2_WIN]; /* per storage slot: completion time, UINT64_MAX until known */
  uint64_t disp[A2_WIN]; /* reservation timing: per storage slot, when it was dispatched */
  _Alignas(64) a2_slot win[A2_WIN];
  a2_slot_ext ext[A2_WIN];
  /* the windows of its remote loads, plain remote stores and atomic-add
   * remote stores (win_io[A2_IO_*]); under packet timing, per window, the
   * accesses whose pieces wait for a return, oldest first: seq % A2_WIN at
   * wait[d][(wait_head[d] + i) % A2_WIN], i < wait_n[d] */
  a2_window win_io[A2_NIO];
  uint8_t wait[A2_NIO][A2_WIN];
  uint8_t wait_head[A2_NIO], wait_n[A2_NIO];
  /* a streamed program's batch: refilled in the sim's scratch, and what is
   * left of it at the end of an activation in batch_v; both are lent to the
   * program source, which moves the batch to the heap if it outgrows them */
  a2_instrs batch;
  a2_instr batch_v[A2_CORE_BATCH];
  _Alignas(64) a2_rgroup rgroup; /* touched only by remote loads under reservation timing */
} a2_core;

struct a2_sim {
  const a2_config *cfg;
  const a2_program *k;
  a2_noc *net;
  a2_topo *topo;
  uint64_t cycle_ps;
  uint8_t **buf_mem;  /* [buf]: every rank's copy in one block (NULL: not allocated) */
  size_t *buf_stride; /* [buf]: bytes between two ranks' copies in buf_mem[buf] */
  uint64_t *ub_off;   /* byte offset of each tile in a core's UB */
  uint32_t *hbm;      /* HBM stage per rank */
  uint32_t *l2;       /* L2 stage per rank, the cube cores' loads (NULL: no cube cores) */
  a2_core *cores;     /* [rank * ncores + core] */
  /* every core's tile scoreboard, last local writes and tile bytes (UB), in
   * one block each; a core has its slice (core_ub NULL when timing-only) */
  a2_tile_state *core_tiles;
  uint64_t *core_buf_w;
  uint8_t *core_ub;
  size_t ub_stride;          /* bytes of a core's UB in core_ub */
  a2_rank_stats *stats;      /* per rank */
  uint32_t *dev;             /* NPU of each rank of the program */
  a2_race *race;             /* NULL when race checking is off */
  uint64_t race_budget;      /* bytes the race detector may use */
  a2_observer *obs;          /* NULL when no timeline is written */
  struct a2_dma_queue *dmaq; /* [rank * chip.sdma.queues + queue] (dma.c); NULL: no put/get */
  uint32_t *store_port;      /* [link stage id]: its store port (sim.c); NULL: no remote store */
  bool no_data;              /* timing-only: payload buffers and tiles are not allocated */
  a2_code run_rc;            /* first error raised during the run (a program source) */
  uint64_t stop_ps;          /* simulated time when a2_sim_run returned */
  a2_err run_err;
  /* where a core's streamed batch is refilled (only one core runs at a
   * time); what the core has not dispatched when its activation ends moves
   * to its batch_v (core.c, keep_rest): usually the wait the batch ended on */
  a2_instr scratch[A2_CORE_BATCH];
  /* faults (fault_effects.c): transfers that could not be routed */
  /* several jobs (a2_sim_set_rank_start / _names): when each rank's cores
   * start (NULL: all at 0), the timeline's name of each rank (NULL: the usual) */
  uint64_t *start_ps;
  const char *const *rank_names;
  struct a2_unrouted *unrouted; /* the first A2_UNROUTED_KEPT */
  uint64_t nunrouted;
  a2_held_replies held; /* ordered timing: replies not yet reserved */
};

/* Faults (configs/faults.h) as the model applies them (fault_effects.c). */
#define A2_UNROUTED_KEPT 16
typedef struct a2_unrouted {
  uint32_t rank, core, src, dst; /* ranks of the program */
  int32_t link_a, link_b;        /* NPUs of the link that is down */
  uint64_t t_ps;
} a2_unrouted;
/* A route src -> dst (ranks of the program) is being used by core c: recorded
 * when every route between them crosses a link that is down. */
void a2_fault_note_route(struct a2_core *c, uint32_t src, uint32_t dst);
/* The extra start delay of core c's next remote transfer (0 without
 * jitter): from the core's own sequence (its NPU, its index, its count), so
 * that it does not depend on the order in which cores run. */
uint64_t a2_fault_jitter_next(struct a2_core *c);
/* x scaled for the speed of rank r's NPU: a time divided by its
 * factor (time = 1), a rate multiplied by it (time = 0). */
uint64_t a2_fault_rank_scale(const struct a2_sim *s, uint32_t r, uint64_t x, int time);

/* The storage slot (win, done, disp, ext) of in-window sequence number seq. */
static inline uint32_t a2_slot_of(const a2_core *c, uint64_t seq) {
  return c->at[seq % A2_WIN];
}

/* Rank's copy of buffer buf, or NULL when not allocated (timing-only): at
 * rank times the buffer's stride in its block. */
static inline uint8_t *a2_mem(const struct a2_sim *s, uint32_t rank, uint32_t buf) {
  uint8_t *m = s->buf_mem[buf];
  return m ? m + (size_t)rank * s->buf_stride[buf] : NULL;
}

/* Wake core c no later than t_ps (the earliest wake-up wins). */
static inline void a2_core_wake(a2_core *c, uint64_t t_ps) {
  if (c->running && t_ps <= a2k_now_ps()) return; /* its loop sees the change */
  if (t_ps < c->wake_ps) {
    c->wake_ps = t_ps;
    a2k_wake_at(c->proc, t_ps);
  }
}

/* The transfer(s) of instruction seq completed at t_ps. */
static inline void a2_core_complete(a2_core *c, uint64_t seq, uint64_t t_ps) {
  c->done[a2_slot_of(c, seq)] = t_ps;
  a2_core_wake(c, t_ps);
}

/* A signal cell of `rank` changed: blocked cores there re-check. */
static inline void a2_signal_changed(struct a2_sim *s, uint32_t rank) {
  uint64_t now = a2k_now_ps();
  for (uint32_t i = 0; i < s->k->ncores; i++) {
    a2_core *c = &s->cores[rank * s->k->ncores + i];
    if (c->blocked) a2_core_wake(c, now);
  }
}

/* core.c */
/* c is zeroed, its stage ids and tiles/buf_w/ub slices set (sim.c). */
a2_code a2_core_init(struct a2_sim *s, a2_core *c, uint32_t rank, uint32_t idx, a2_err *err);
/* Reservation timing: the network's defer hook (ctx = the sim). */
void a2_core_defer(void *ctx, a2_xfer *x, uint64_t t_ps);
bool a2_core_finished(const a2_core *c);
/* The next instruction to dispatch (refilling a streamed program), or NULL
 * when the program is finished or its source failed. */
const a2_instr *a2_core_next(a2_core *c);

/* The model's context of each transfer (a2_xfer_context; the network
 * keeps it with the transfer and never reads it): the instruction the
 * transfer carries out and what its callbacks need, by kind. */
typedef enum {
  A2_XFER_MEM = 0, /* load, store, remote_load, remote_store (a remote load's request too) */
  A2_XFER_CHUNK,   /* put, get: a chunk's data leg, or a get's request for it */
  A2_XFER_NOTIFY
} a2_xfer_kind;

typedef struct {
  a2_core *owner;     /* the core whose instruction it carries out */
  a2_core *runner;    /* reservation timing: the core that carries out its deferred event
                         (the owner; a notify's: its peer's core 0, where it lands) */
  const a2_instr *in; /* the instruction: in owner's window, or a notify's own copy */
  uint64_t seq;       /* the instruction's sequence number in owner's window */
  uint32_t rank;      /* MEM, NOTIFY: the rank whose HBM the apply hop reads or writes */
  uint8_t kind;       /* a2_xfer_kind: which of the members below is set */
  union {
    struct {
      uint64_t off, len; /* the chunk: its offset in the copy, its length */
      uint32_t engine;   /* a get's request: the engine stage its data leg passes first */
    } chunk;             /* CHUNK; MEM: a remote access's piece (off 0 for the rest) */
    struct {
      a2_instr copy;     /* the instruction, kept with the transfer that lands it */
      uint32_t *snap;    /* race checking: the vector-clock snapshot the cell gets */
      uint64_t start_ps; /* timing trace: when its pipe started it */
      uint8_t lane;      /* timing trace: its lane */
    } notify;            /* NOTIFY */
  };
} a2_xfer_ctx;

static inline a2_xfer_ctx *a2_ctx_of(a2_xfer *x) {
  return (a2_xfer_ctx *)a2_xfer_context(x);
}
_Static_assert(_Alignof(a2_xfer_ctx) <= A2_XFER_CONTEXT_ALIGN, "a2_xfer_context's alignment");

/* The core a notify to `peer` lands on: the peer's core 0 carries out its
 * landing (a2_core_defer pushes onto its queue and wakes it). */
static inline a2_core *a2_notify_runner(const a2_core *c, uint32_t peer) {
  return &c->sim->cores[peer * c->sim->k->ncores];
}

/* transfer.c: start the timed transfers for one instruction at t_ps (>= now;
 * later than now only under reservation timing, where an instruction whose
 * dependencies have known completion times is started in advance). Under
 * reservation timing, load/store/remote_load/remote_store set the slot's
 * done_ps at once (a load or store reserved in steps, a2_noc_whole_at_start:
 * when it completes; a remote_load under ordered timing: when its replies
 * are reserved, a2_replies_reserve). */
void a2_issue_load(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t_ps);
void a2_issue_store(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t_ps);
void a2_issue_rload(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t_ps);
/* Reservation timing: reserve the replies held in c->rgroup, which makes
 * their instructions' completions known; false when none was held. The
 * core calls it before it reads a completion that may be held, and before
 * it sleeps. */
bool a2_rload_flush(a2_core *c);
static inline void a2_rload_flush_slot(a2_core *c, uint32_t slot) {
  if (c->rgroup_slots >> slot & 1) a2_rload_flush(c);
}
/* Ordered timing: the process function (ctx: the sim's a2_held_replies)
 * that reserves every reply held. */
void a2_replies_reserve(void *ctx);
void a2_issue_rstore(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t_ps);
void a2_issue_notify(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t_ps);
void a2_issue_dma(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t_ps); /* put, get */
/* Reservation timing without race checking or a timeline: a notify's
 * landing event in r's `pend` is two words (b != 0), not a transfer. */
void a2_notify_land(a2_core *r, uint8_t *cell, int32_t value, bool add);

/* An instruction the model cannot carry out makes the run an error (the
 * first one raised is the run's, sim.c), naming it and what: a put/get the
 * engines cannot serve, a remote store without store ports. The
 * instruction still runs (a put/get on queue 0, a remote store as a local
 * one), so the model stays consistent until the run ends. */
void a2_core_fail(a2_core *c, const a2_instr *in, const char *what);

/* dma.c: every rank's DMA queues and their engines (docs/timing-model.md,
 * "DMA engines"). */
typedef struct a2_dma_queue a2_dma_queue;
/* Whether program k may use put/get (uses_dma, or a put/get in its whole
 * instruction lists, whose queues are checked against cfg here: `name` for
 * messages); before anything is built. */
a2_code a2_dma_needed(const a2_program *k, const a2_config *cfg, const char *name, bool *need,
                      a2_err *err);
/* Build every rank's queues and engine stages (after the other stages). */
a2_code a2_dma_build(struct a2_sim *s, a2_err *err);
void a2_dma_free(struct a2_sim *s);
/* One descriptor of len bytes of put/get `in` of core c, ready at t_ps:
 * takes its queue's time and returns when its bytes leave for the fabric
 * (after its launch); *engine is the engine stage they pass first. A queue
 * the chip does not have makes the run an error (sim->run_rc). */
uint64_t a2_dma_launch(a2_core *c, const a2_instr *in, uint64_t len, uint64_t t_ps,
                       uint32_t *engine);
/* The queue put/get `in` of core c runs on (its queue, or A2_QUEUE_ANY's:
 * the core's index modulo chip.sdma.queues). */
uint32_t a2_dma_queue_of(const a2_core *c, const a2_instr *in);
/* Put/get seq of core c starts: it joins its queue's completion order. */
void a2_dma_begin(a2_core *c, const a2_instr *in, uint64_t seq);
/* Its last byte landed at t_ps: it completes (a2_core_complete) once every
 * earlier put/get of its queue has, at the latest of their landings. */
void a2_dma_end(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t_ps);

/* prefetch.c: the model's prefetch hints (reads only; docs/architecture.md,
 * "Layout and prefetch rules"). */
/* The event kernel's hint for core c (a2k_prefetch_fn, registered under
 * reservation timing): what its next activation touches first, level by
 * level. */
void a2_core_prefetch(const void *c, int level);
/* What the landing of notify `in` is handed to later in this activation
 * (its peer's core, a2_notify_runner). */
void a2_prefetch_notify_target(const a2_core *c, const a2_instr *in);

/* cube.c: a cube core's MTE1 (textract) and cube (tmatmul) instructions,
 * started at t_ps on their pipes, serialised there (docs/timing-model.md,
 * "Cube cores"); the data when not timing-only. */
void a2_cube_start(a2_core *c, const a2_instr *in, uint32_t slot, uint64_t t_ps);
/* FixPipe's data: len bytes of `dt` elements at dst from the fp32
 * accumulator elements at src (rounded to fp16 when dt is fp16). */
void a2_fixpipe_cast(uint8_t *dst, const uint8_t *src, uint64_t len, a2_dtype dt);

/* vector.c: element-wise op on tiles (data only; timing is in core.c). */
void a2_vector_apply(a2_core *c, const a2_instr *in);

#endif
