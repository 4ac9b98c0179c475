/* All-reduce on the DMA engines, shaped like HCCL's one-server mesh
 * all-reduce on an A2 (910B) server (AllReduceMeshExecutor: a multi-stream
 * mesh reduce-scatter with inline reduce, then a mesh all-gather that writes
 * to every peer; docs/collectives.md): no vector core moves data, one DMA
 * queue per peer. N (a multiple of P elements) is cut into P slices of S =
 * N/P; slice q is reduced at rank q, in its window `y`, which is also the
 * output. Rank r:
 *   ready:          barrier (signal row 0)
 *   reduce-scatter: put atomic_add x[slice q] into y@q[slice q] for every
 *                   rank q, itself included (y starts zeroed), the m-th of
 *                   them (q = r+1+m mod P) on DMA queue m, all at once
 *   barrier (row 1): every slice has all P contributions
 *   all-gather:     put y[slice r] into y@q[slice r] for every peer q, the
 *                   m-th on queue m, all at once
 *   barrier (row 2): every rank's y is complete.
 * Where HCCL copies its own slice into the buffer first and then waits for
 * a handshake, the owner here adds its slice like its peers do, on queue
 * P-1 (queues modulo chip.sdma.queues). */
#include "collectives/generators.h"

enum { X, Y, SIG };

/* Each put moves its slice in descriptors of 1 MiB, two in flight: the
 * SDMA block size pto-isa's asynchronous transfers use by default
 * (docs/sources.md; HCCL's own descriptor size is not published). */
#define DESCRIPTOR (1u << 20)

static const a2_coll_shape shape = {
    .algo = "allreduce_sdma_mesh",
    .golden = A2_GOLDEN_ALLREDUCE,
    .dma = true,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_WINDOW, .fixed = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 3}}, /* rows 0, 1, 2 */
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  uint32_t P = c->P;
  uint64_t S = c->B;
  a2_coll_barrier(tb, me, P, SIG, 0);
  A2_STEPS(tb, m, P) { /* reduce-scatter: rank me+1+m (mod P) owns slice q */
    uint32_t q = (uint32_t)((me + 1 + m) % P);
    a2_tb_dma how = {DESCRIPTOR, 1, 1, a2_coll_queue(c, m)};
    a2_tb_put(tb, Y, q, q * S, S, X, q * S, &how);
  }
  a2_coll_barrier(tb, me, P, SIG, 1);
  A2_STEPS(tb, m, P - 1) { /* all-gather: my slice to every peer */
    uint32_t q = (uint32_t)((me + 1 + m) % P);
    a2_tb_dma how = {DESCRIPTOR, 1, 0, a2_coll_queue(c, m)};
    a2_tb_put(tb, Y, q, me * S, S, Y, me * S, &how);
  }
  a2_coll_barrier(tb, me, P, SIG, 2);
}

A2_DEFINE_GENERATOR(allreduce_sdma_mesh, shape, body)

void a2_card_allreduce_sdma_mesh(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 0;
  c->remote_write_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->barrier_rounds = p->nranks > 1 ? 3 : 0;
}
