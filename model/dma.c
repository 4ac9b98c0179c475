/* The DMA engines that run put/get (docs/timing-model.md, "DMA engines"):
 * every rank has chip.sdma.queues queues, each serving its descriptors one
 * after another. A descriptor of n bytes that is ready at t on queue q
 *
 *   starts at       s  = max(t, F_q)                 (F_q: when q is free)
 *   is launched     a  = chip.sdma.launch             (RDMA: interconnect.nic.rdma_launch)
 *   passes the queue's engine stage, hop 0 of its data, from s + a on, at the
 *   engine's rate; the queue is free again when its last packet leaves it:
 *                   F_q = s + a + E(n),  E(n) = sum over its packets of S_e(packet)
 *
 * while its bytes go on through the fabric (their latency overlaps the next
 * descriptor's launch). The engine is the SDMA write engine for a put, the
 * SDMA read engine for a get, the local-copy engine for a put/get whose
 * source and destination are on the same NPU (peer = the rank itself, at
 * chip.sdma.local_bandwidth), and RDMA on the NIC when the route crosses
 * NIC ports (two_level, between groups; levels, above the lowest) whose
 * engine is rdma (interconnect.nic.engine, a level's engine). Each queue's
 * engine stages are its own and it uses one at a time, so they serve one
 * descriptor at a time and E(n) is the time they take (a get's data reaches
 * the engine after its request; only a request delayed by contention can
 * make two of them meet there, and then the stage serves them in order of
 * arrival).
 *
 * With chip.sdma.launch_overlap = puts, a put on the SDMA write engine does
 * not hold its queue while its bytes pass the engine: the next descriptor is
 * launched once this one's launch is done and the one before it has passed
 * the engine (G_q: when the engine finishes the queue's last descriptor),
 *
 *                   F_q = max(s + a, G_q),  then  G_q = max(s + a, G_q) + E(n)
 *
 * so a stream of puts takes max(a, E(n)) per descriptor, and the engine
 * stage serves a descriptor's bytes while the next one is launched.
 *
 * A put/get whose lowest common level (levels) has dma_ack_latency or
 * dma_ack_bandwidth holds its queue until the far end acknowledges it,
 * H(n) = dma_ack_latency + n / dma_ack_bandwidth after its bytes pass the
 * engine, and its launch does not overlap the previous descriptor:
 *
 *                   F_q = s + a + E(n) + H(n)
 *
 * (HIXL between two machines of an A3 super-node: a + n / B per descriptor
 * with a larger a and a smaller B than between the dies of one package).
 *
 * A queue completes its put/get in the order they were issued to it: one
 * whose bytes have landed completes when every earlier one on its queue has
 * (its completion is the latest of their landings), as a hardware queue
 * reports completions in order. */
#include <stdlib.h>

#include "common/oom.h"
#include "model/internal.h"

enum { ENG_SDMA_WRITE = 0, ENG_SDMA_READ, ENG_SDMA_LOCAL, ENG_RDMA, ENG_KINDS };

/* A put/get issued to a queue and not yet complete, in issue order. */
typedef struct {
  a2_core *c;
  uint64_t seq;
  uint64_t landed; /* when its last byte landed; UINT64_MAX: not yet */
} pending;

struct a2_dma_queue {
  uint64_t free_ps;   /* F_q: when the queue may start its next descriptor */
  uint64_t eng_ps;    /* G_q: when its engine finishes its last descriptor (launch_overlap) */
  uint64_t last_done; /* completion of the last put/get it completed */
  pending *v;         /* ring of cap: v[(head + i) % cap], i < n */
  uint32_t head, n, cap;
  uint32_t stage[ENG_KINDS]; /* its engine stages (ENG_RDMA: A2_NO_STAGE without NICs) */
};

static int is_dma(const a2_instr *in) {
  return in->op == A2_OP_PUT || in->op == A2_OP_GET;
}

/* The first put/get of a whole program whose queue is not one of the
 * chip's, as an error; *any = whether there is a put/get at all. */
static a2_code scan(const a2_program *k, uint32_t queues, const char *name, int *any, a2_err *err) {
  *any = 0;
  for (uint64_t p = 0; p < (uint64_t)k->nranks * k->ncores; p++)
    for (uint32_t i = 0; i < k->progs[p].n; i++) {
      const a2_instr *in = &k->progs[p].v[i];
      if (!is_dma(in)) continue;
      *any = 1;
      if (in->queue != A2_QUEUE_ANY && in->queue >= queues)
        return a2_err_set(err, A2_E_INPUT, name, (int)in->line, 0,
                          "%s: queue %u outside 0..%u (chip.sdma.queues)",
                          a2_op_name((a2_opcode)in->op), in->queue, queues - 1);
    }
  return A2_OK;
}

a2_code a2_dma_needed(const a2_program *k, const a2_config *cfg, const char *name, bool *need,
                      a2_err *err) {
  int any = 0;
  a2_code rc = k->source ? A2_OK : scan(k, cfg->sdma_queues, name, &any, err);
  *need = k->uses_dma || any;
  return rc;
}

a2_code a2_dma_build(a2_sim *s, a2_err *err) {
  const a2_config *cfg = s->cfg;
  const a2_program *k = s->k;
  uint32_t Q = cfg->sdma_queues, P = k->nranks;
  s->dmaq = calloc((size_t)P * Q, sizeof *s->dmaq);
  if (!s->dmaq) return a2_err_set(err, A2_E_NOMEM, NULL, 0, 0, "out of memory for DMA queues");
  int nic = a2_topo_has_nic(s->topo); /* RDMA stages: built whenever there are NICs */
  for (uint32_t r = 0; r < P; r++)
    for (uint32_t q = 0; q < Q; q++) {
      a2_dma_queue *dq = &s->dmaq[(size_t)r * Q + q];
      dq->stage[ENG_RDMA] = A2_NO_STAGE;
      a2_code rc = a2_noc_add_stage(s->net, A2_STAGE_SDMA_WRITE,
                                    a2_fault_rank_scale(s, r, cfg->sdma_write_bw, 0), 0, (int32_t)r,
                                    (int32_t)q, &dq->stage[ENG_SDMA_WRITE], err);
      if (!rc)
        rc = a2_noc_add_stage(s->net, A2_STAGE_SDMA_READ,
                              a2_fault_rank_scale(s, r, cfg->sdma_read_bw, 0), 0, (int32_t)r,
                              (int32_t)q, &dq->stage[ENG_SDMA_READ], err);
      if (!rc)
        rc = a2_noc_add_stage(s->net, A2_STAGE_SDMA_LOCAL,
                              a2_fault_rank_scale(s, r, cfg->sdma_local_bw, 0), 0, (int32_t)r,
                              (int32_t)q, &dq->stage[ENG_SDMA_LOCAL], err);
      if (!rc && nic)
        rc = a2_noc_add_stage(s->net, A2_STAGE_RDMA, a2_fault_rank_scale(s, r, cfg->rdma_bw, 0), 0,
                              (int32_t)r, (int32_t)q, &dq->stage[ENG_RDMA], err);
      if (rc) return rc;
    }
  return A2_OK;
}

void a2_dma_free(a2_sim *s) {
  if (!s->dmaq) return;
  for (size_t i = 0; i < (size_t)s->k->nranks * s->cfg->sdma_queues; i++) free(s->dmaq[i].v);
  free(s->dmaq);
  s->dmaq = NULL;
}

uint32_t a2_dma_queue_of(const a2_core *c, const a2_instr *in) {
  return in->queue == A2_QUEUE_ANY ? c->idx % c->sim->cfg->sdma_queues : in->queue;
}

void a2_core_fail(a2_core *c, const a2_instr *in, const char *what) {
  a2_sim *s = c->sim;
  if (s->run_rc) return;
  s->run_rc = A2_E_INPUT;
  a2_err_set(&s->run_err, A2_E_INPUT, NULL, (int)in->line, 0, "%s: %s (rank %u, core %u)",
             a2_op_name((a2_opcode)in->op), what, c->rank, c->idx);
}

/* E(n): the engine's time for n bytes, packet by packet, as the stage
 * serves them (S_e rounded up per packet). */
static uint64_t engine_ps(uint64_t n, uint64_t pkt, uint64_t bw) {
  uint64_t k = (n + pkt - 1) / pkt;
  return (k - 1) * a2_ser_ps(pkt, bw) + a2_ser_ps(n - (k - 1) * pkt, bw);
}

/* The queue of put/get `in` of core c; NULL (and the run an error) when
 * there is no such queue. */
static a2_dma_queue *queue_of(a2_core *c, const a2_instr *in) {
  a2_sim *s = c->sim;
  uint32_t Q = s->cfg->sdma_queues, q = a2_dma_queue_of(c, in);
  if (!s->dmaq) {
    /* a program produced on demand that did not declare put/get (uses_dma):
     * there are no engines to run it on */
    a2_core_fail(c, in, "the program has no DMA engines (a2_program.uses_dma is not set)");
    return NULL;
  }
  if (q >= Q) {
    a2_core_fail(c, in, "queue outside chip.sdma.queues");
    q = 0;
  }
  return &s->dmaq[(size_t)c->rank * Q + q];
}

void a2_dma_begin(a2_core *c, const a2_instr *in, uint64_t seq) {
  a2_dma_queue *dq = queue_of(c, in);
  if (!dq) return;
  if (dq->n == dq->cap) { /* grow the ring, its entries from v[0] on */
    uint32_t cap = dq->cap ? 2 * dq->cap : 16;
    pending *v = malloc(cap * sizeof *v);
    if (!v) a2_out_of_memory("a DMA queue"); /* bounded by the instructions in flight */
    for (uint32_t i = 0; i < dq->n; i++) v[i] = dq->v[(dq->head + i) % dq->cap];
    free(dq->v);
    dq->v = v;
    dq->cap = cap;
    dq->head = 0;
  }
  dq->v[(dq->head + dq->n++) % dq->cap] = (pending){c, seq, UINT64_MAX};
}

void a2_dma_end(a2_core *c, const a2_instr *in, uint64_t seq, uint64_t t) {
  a2_dma_queue *dq = c->sim->dmaq ? queue_of(c, in) : NULL;
  if (!dq) {
    a2_core_complete(c, seq, t);
    return;
  }
  for (uint32_t i = 0; i < dq->n; i++) {
    pending *p = &dq->v[(dq->head + i) % dq->cap];
    if (p->c == c && p->seq == seq) p->landed = t;
  }
  /* complete, in issue order, every one whose bytes have landed: each no
   * earlier than the one before it */
  while (dq->n && dq->v[dq->head].landed != UINT64_MAX) {
    pending p = dq->v[dq->head];
    dq->head = (dq->head + 1) % dq->cap;
    dq->n--;
    if (p.landed > dq->last_done) dq->last_done = p.landed;
    a2_core_complete(p.c, p.seq, dq->last_done);
  }
}

/* The level a put/get between devices src and dst crosses: on levels, the
 * lowest level holding both when it is above the lowest (its route crosses
 * NIC ports); NULL on other topologies and inside a lowest-level group. */
static const a2_level *level_crossed(const a2_sim *s, uint32_t src, uint32_t dst) {
  const a2_config *cfg = s->cfg;
  if (cfg->topology != A2_TOPO_LEVELS || !a2_topo_via_nic(s->topo, src, dst)) return NULL;
  uint32_t l = a2_topo_level(s->topo, src, dst);
  return l < cfg->nlevels ? &cfg->levels[l] : NULL;
}

uint64_t a2_dma_launch(a2_core *c, const a2_instr *in, uint64_t len, uint64_t t, uint32_t *engine) {
  a2_sim *s = c->sim;
  const a2_config *cfg = s->cfg;
  a2_dma_queue *dq = queue_of(c, in);
  if (!dq) {
    *engine = s->hbm[c->rank];
    return t;
  }
  uint32_t peer = (uint32_t)in->peer, src = s->dev[c->rank], dst = s->dev[peer];
  /* RDMA on the NIC when the route crosses NIC ports whose engine is rdma
   * (interconnect.nic.engine on two_level, the crossed level's on levels) */
  const a2_level *lv = level_crossed(s, src, dst);
  int rdma = cfg->topology == A2_TOPO_LEVELS
                 ? lv && lv->engine == A2_ENGINE_RDMA
                 : a2_topo_via_nic(s->topo, src, dst) && cfg->nic_engine == A2_ENGINE_RDMA;
  int e = rdma                  ? ENG_RDMA
          : peer == c->rank     ? ENG_SDMA_LOCAL
          : in->op == A2_OP_PUT ? ENG_SDMA_WRITE
                                : ENG_SDMA_READ;
  uint64_t a = a2_fault_rank_scale(s, c->rank, rdma ? cfg->rdma_launch_ps : cfg->sdma_launch_ps, 1);
  uint64_t bw = a2_fault_rank_scale(s, c->rank,
                                    rdma                  ? cfg->rdma_bw
                                    : e == ENG_SDMA_LOCAL ? cfg->sdma_local_bw
                                    : e == ENG_SDMA_WRITE ? cfg->sdma_write_bw
                                                          : cfg->sdma_read_bw,
                                    0);
  uint64_t start = t > dq->free_ps ? t : dq->free_ps; /* s = max(t, F_q) */
  uint64_t E = engine_ps(len, cfg->packet_bytes, bw);
  /* H(n): the crossed level's acknowledgement, dma_ack_latency + n / dma_ack_bandwidth */
  uint64_t H = !lv ? 0 : lv->dma_ack_ps + (lv->dma_ack_bw ? a2_ser_ps(len, lv->dma_ack_bw) : 0);
  if (H) { /* held until the far end acknowledges: F_q = s + a + E(n) + H(n), no overlap */
    dq->free_ps = start + a + E + H;
    if (dq->free_ps > dq->eng_ps) dq->eng_ps = dq->free_ps;
  } else if (e == ENG_SDMA_WRITE && cfg->sdma_overlap == A2_OVERLAP_PUTS) {
    uint64_t go = start + a > dq->eng_ps ? start + a : dq->eng_ps;
    dq->free_ps = go;    /* F_q = max(s + a, G_q) */
    dq->eng_ps = go + E; /* G_q = max(s + a, G_q) + E(n) */
  } else {
    dq->free_ps = start + a + E;
    if (dq->free_ps > dq->eng_ps) dq->eng_ps = dq->free_ps;
  }
  *engine = dq->stage[e];
  return start + a;
}
