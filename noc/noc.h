/* The transport every timed transfer uses: FIFO servers ("stages") joined
 * into paths. A link port, an HBM controller and an MTE engine are all
 * stages: a bandwidth bw (bytes/s), a latency lat (ps) and a queue. A
 * transfer is cut into packets of at most pkt_bytes that go stage by stage
 * (docs/timing-model.md, "Stages"; x a stage of the path, j a packet):
 *
 *   S_x(n)  = ceil(n * 1e12 / bw_x)                             service time
 *   D(x, j) = max(D(x-1, j) + lat(x-1), D(x, j-1)) + S_x(size_j)   departure
 *
 * and the transfer is complete at D(last, k) + lat(last). Packets of one
 * transfer enter the first stage one at a time (the next is queued when the
 * previous starts service), so transfers sharing a stage interleave packet
 * by packet and share its bandwidth fairly; a queue is ordered by arrival.
 *
 * Under packet timing each stage is one event-kernel process (under reservation
 * timing, below, stages have none); packets and transfers come from pools
 * (no heap allocation per packet once warm). */
#ifndef A2_NOC_H
#define A2_NOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "configs/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define A2_NO_HOP 0xffff
#define A2_INLINE_HOPS 12 /* paths up to this long need no heap memory (a2_xfer_path) */

typedef struct a2_noc a2_noc;
typedef struct a2_xfer a2_xfer;

/* Called when packet [off, off+len) of x starts service at hop x->apply_hop:
 * the moment its bytes are read (source) or written (destination). */
typedef void (*a2_xfer_apply_fn)(a2_xfer *x, uint64_t off, uint32_t len);
/* Called once, when the last packet starts service at the last hop;
 * t_done_ps (>= now) is when it leaves that stage (service + latency).
 * The transfer is recycled after the call returns. */
typedef void (*a2_xfer_done_fn)(a2_xfer *x, uint64_t t_done_ps);

/* A transfer, from a2_xfer_alloc. These fields are all the caller owns of
 * it: it sets them, and its path (a2_xfer_path), before a2_xfer_start; the
 * network only reads them. The network's own state of a transfer (its path,
 * its progress, its place in the pool) is private to noc/noc.c. The caller's
 * context is the a2_noc_create(ctx_bytes) bytes at a2_xfer_context(x). A
 * transfer belongs to the network again once it is recycled (below). */
struct a2_xfer {
  uint64_t bytes;            /* total payload, > 0 */
  a2_xfer_apply_fn on_apply; /* NULL: nothing to apply */
  a2_xfer_done_fn on_done;   /* NULL: no completion call */
  uint16_t apply_hop;        /* the hop whose service applies the payload; A2_NO_HOP: none */
  uint8_t known;             /* reservation timing: the caller takes the completion time from
                                a2_xfer_start; the payload is applied when reserved, no event */
  uint8_t lands;             /* reservation timing: a2_xfer_start returns when the last packet
                                starts service at apply_hop (the moment packet timing applies
                                it), where the caller applies the payload itself: no on_apply,
                                no on_done, no event */
  uint8_t writes;            /* on_apply writes (a notify): applied at its time even at hop 0 */
};

/* The caller's context of x: ctx_bytes (a2_noc_create) bytes, aligned to
 * A2_XFER_CONTEXT_ALIGN, right after the fields above. The network never
 * reads or writes it; a2_xfer_alloc leaves it as the last user left it. */
#define A2_XFER_CONTEXT_ALIGN 8
static inline void *a2_xfer_context(a2_xfer *x) {
  return x + 1;
}

/* A DMA queue's engine has one stage per rate: SDMA writes (put), SDMA
 * reads (get), RDMA messages through the NIC, SDMA copies within one NPU. */
typedef enum {
  A2_STAGE_LINK = 0,
  A2_STAGE_HBM,
  A2_STAGE_MTE_IN,
  A2_STAGE_MTE_OUT,
  A2_STAGE_SDMA_WRITE,
  A2_STAGE_SDMA_READ,
  A2_STAGE_RDMA,
  A2_STAGE_L2,         /* a rank's L2, which its cube cores' loads pass */
  A2_STAGE_MTE2,       /* a cube core's GM -> L1 engine */
  A2_STAGE_FIXPIPE,    /* a cube core's L0C -> GM engine */
  A2_STAGE_SDMA_LOCAL, /* a DMA queue's copies within its own NPU */
  A2_STAGE_STORE_PORT  /* a link's port for its rank's remote stores */
} a2_stage_kind;
/* A kind's name in reports and timelines: "link", "hbm", "mte_in", "mte_out",
 * "sdma_write", "sdma_read", "rdma", "l2", "mte2", "fixpipe", "sdma_local",
 * "store_port". */
static inline const char *a2_stage_kind_name(a2_stage_kind k) {
  static const char *const names[] = {"link",       "hbm",       "mte_in",     "mte_out",
                                      "sdma_write", "sdma_read", "rdma",       "l2",
                                      "mte2",       "fixpipe",   "sdma_local", "store_port"};
  return names[k];
}

typedef struct {
  uint64_t bytes;   /* payload bytes served */
  uint64_t busy_ps; /* time spent serving */
  uint64_t packets;
} a2_stage_stats;

/* Create an empty network (no stages yet): pkt_bytes is the packet size,
 * ctx_bytes the size of the caller's context of each transfer
 * (a2_xfer_context), at most 32768 (A2_E_INTERNAL beyond). A2_E_NOMEM when
 * out of memory. */
a2_code a2_noc_create(uint32_t pkt_bytes, size_t ctx_bytes, a2_noc **out, a2_err *err);
void a2_noc_free(a2_noc *n);

/* Add a stage; returns its id in *id. Only before the run starts. `a`/`b`
 * identify it for reports (link: from/to rank or -1 for a switch; HBM:
 * rank; MTE: rank, core; DMA engines: rank, queue). */
a2_code a2_noc_add_stage(a2_noc *n, a2_stage_kind kind, uint64_t bw_bytes_per_s, uint64_t lat_ps,
                         int32_t a, int32_t b, uint32_t *id, a2_err *err);

uint32_t a2_noc_stage_count(const a2_noc *n);
a2_stage_kind a2_noc_stage_kind(const a2_noc *n, uint32_t id, int32_t *a, int32_t *b);
const a2_stage_stats *a2_noc_stage_stats(const a2_noc *n, uint32_t id);

/* A fresh transfer from the pool: its fields zero but apply_hop
 * (A2_NO_HOP), no path yet, its context not initialised. NULL when out of
 * memory. */
a2_xfer *a2_xfer_alloc(a2_noc *n);

/* x's path: room for its nhops stage ids, which the caller writes (in path
 * order) before a2_xfer_start. NULL when out of memory (only for more than
 * A2_INLINE_HOPS). */
uint32_t *a2_xfer_path(a2_xfer *x, uint16_t nhops);
/* The stage id at hop h of x's path, as written (h < its nhops). */
uint32_t a2_xfer_hop(a2_xfer *x, uint16_t h);
/* The number of hops of x's path (its last a2_xfer_path's nhops). */
uint16_t a2_xfer_hops(a2_xfer *x);

/* Start x: its first packet is ready at the first stage at t_ps (>= now).
 * Returns, under reservation timing, when its last packet leaves the path
 * (for x->lands: when it starts service at apply_hop); UINT64_MAX when not
 * known yet: under packet timing, and for a transfer reserved in steps
 * (below). Under packet timing x is recycled when its last packet leaves
 * the path, after on_done. Under reservation timing a transfer with nothing
 * to do later (no on_done, nothing left to apply - e.g. a request whose
 * reply can then be started at once) is recycled before this returns, any
 * other in a2_xfer_finish. */
uint64_t a2_xfer_start(a2_noc *n, a2_xfer *x, uint64_t t_ps);

/* Reservation timing (config interconnect.timing: reservation). Call right
 * after a2_noc_create, before any stage is added: stages then get no event-kernel
 * process. a2_xfer_start computes every packet's service at every stage of
 * the path at once: each packet takes the earliest slot of each stage, at or
 * after its arrival there, that is free in the stage's reserved future
 * (earliest fit; the equations of the header hold whenever that slot is
 * the stage's free time, i.e. without contention). Instead of events per
 * packet, the network then calls defer(ctx, x, t) once: the caller must call
 * a2_xfer_finish(n, x) when simulated time reaches t, which applies the
 * whole payload (on_apply over [0, bytes)), calls on_done(x, t_done) with
 * t_done when the last packet leaves the path, and recycles x. t is t_done,
 * except for a transfer with on_apply and no on_done (a notify): then it is
 * when its last packet starts service at the apply hop, the moment packet
 * timing applies it. A read whose apply hop is
 * its first (at its source) applies when it is reserved instead, so that it
 * never sees a write that program order puts after it (a write there, with
 * x->writes, waits for its time like any other); one with nothing left to
 * do is not deferred.
 *
 * Steps: a transfer longer than 16 packets that is neither known nor lands
 * is reserved 16 packets at a time, each step when its first packet reaches
 * the first stage (packet j+1 arrives there when packet j starts service):
 * defer is called for that moment too, and a2_xfer_finish then reserves the
 * step. Transfers that share their first stage (cores loading from one HBM)
 * then take it in turns by steps, close to the packet-by-packet turns of
 * packet timing, instead of the first reserved taking it for its whole
 * length; alone, a transfer's times are the same either way. */
typedef void (*a2_noc_defer_fn)(void *ctx, a2_xfer *x, uint64_t t_ps);
/* Whether a transfer of `bytes` that is neither known nor lands is
 * reserved whole (not in steps) under reservation timing, so that
 * a2_xfer_start returns its completion; a known one or one that lands is
 * reserved whole at any length. */
bool a2_noc_whole_at_start(const a2_noc *n, uint64_t bytes);
void a2_noc_set_reservation(a2_noc *n, a2_noc_defer_fn defer, void *ctx);
int a2_noc_reservation(const a2_noc *n);
void a2_xfer_finish(a2_noc *n, a2_xfer *x);
/* Reservation timing: start xs[0..count) together, x[i] ready at its first
 * stage at t_ps[i]. Each must have bytes > 0 and be a transfer whose caller
 * takes the completion time (x->known: no on_done, no defer). Their
 * packets are reserved one at a time, each through every hop of its path,
 * in order of arrival at their first stages, as packet timing queues them:
 * packet j+1 of a transfer arrives when packet j starts service there; at
 * equal arrivals a transfer's first packet goes before another's later
 * one, else the earlier in xs. done_ps[i] is when x[i]'s last packet
 * leaves its path; first_ps (NULL: not wanted), when its first packet
 * does. Payloads (on_apply) are applied now and the transfers
 * recycled. Two transfers that share their first stage and arrive together
 * thus alternate there packet by packet, where a2_xfer_start one after the
 * other would serve the first whole before the second. */
void a2_xfer_start_group(a2_noc *n, a2_xfer *const *xs, const uint64_t *t_ps, uint64_t *done_ps,
                         uint64_t *first_ps, unsigned count);

/* Reservation timing, in order of arrival (ordered timing where routes
 * relay through links other routes share: docs/timing-model.md, "Arrival
 * order"). Start x, its first packet ready at its first stage at t_ps
 * (>= now), without reserving anything yet: its packets are reserved at
 * each stage when a2_noc_arrivals_run reaches their arrival there, in order
 * of arrival across every transfer so started (packet j+1 reaches the first
 * stage when packet j starts service there; a run of one transfer's
 * packets at one stage is reserved together until another run's arrival
 * comes first). Its payload (on_apply) is applied now. When its last packet
 * leaves its path, a2_noc_arrivals_run calls on_done(x, t_done) and
 * recycles x (a path of no stage: on_done(x, max(t_ps, now)) before this
 * returns). Aborts when out of memory. */
void a2_xfer_start_arrival(a2_noc *n, a2_xfer *x, uint64_t t_ps);
/* Reserve the queued runs whose arrival is <= upto (ps), in order of
 * arrival, and those that on_done calls start meanwhile; a run's packets
 * that arrive later than upto stay queued. */
void a2_noc_arrivals_run(a2_noc *n, uint64_t upto);
/* The earliest arrival still queued; UINT64_MAX: none. */
uint64_t a2_noc_arrivals_next(const a2_noc *n);

/* Optional observer of every packet service (for timelines): stage id,
 * start and end of service in ps, payload bytes. */
typedef void (*a2_noc_observer)(void *ctx, uint32_t stage, uint64_t start_ps, uint64_t end_ps,
                                uint32_t bytes);
void a2_noc_set_observer(a2_noc *n, a2_noc_observer fn, void *ctx);
/* Reservation timing shows packets to the observer in order of start as
 * time passes; this shows the rest (call before removing the observer). */
void a2_noc_flush_observer(a2_noc *n);

/* Prefetch hints (reads only; docs/architecture.md, "Layout and prefetch
 * rules"). What reserving a packet at stages ids[0..count) reads first:
 * level 0 each stage's first line, all that a reservation without
 * contention reads; level 1, once those are cached, the earlier intervals
 * of the stages that hold some. Ids A2_NO_STAGE are skipped. */
#define A2_NO_STAGE UINT32_MAX
void a2_noc_prefetch_stages(const a2_noc *n, const uint32_t *ids, unsigned count, int level);
/* What a2_xfer_finish(n, x) reads: all of x, its context included. */
void a2_noc_prefetch_xfer(const a2_noc *n, const a2_xfer *x);

/* S(len): the service time of len bytes at bw bytes/s, in ps, rounded up. */
uint64_t a2_ser_ps(uint64_t len, uint64_t bw_bytes_per_s);

/* The uncontended time of a message of len bytes (at most a packet) along
 * stages ids[0..count): sum over them of S_x(len) + lat_x, in ps; 0 for no
 * stage. Reads the stages' parameters only (no queue, no reservation): the
 * model times acknowledgements with it (docs/timing-model.md). */
uint64_t a2_noc_msg_ps(const a2_noc *n, const uint32_t *ids, unsigned count, uint32_t len);

#ifdef __cplusplus
}
#endif
#endif
