/* Broadcast from any root R, HCCL's Star: one step, the root sends its N
 * bytes to every other rank at once. The root puts x into each non-root's
 * window `data` (a DMA copy, the m-th peer's on DMA queue m, modulo the
 * queues, nearest rank first, all in flight together), then set-notifies
 * each (cell 0 of its `ready`; the first notify drains the core, so the
 * data has landed when a peer sees it), and copies x to its own y. Every other rank waits for the
 * cell and copies its window to y. Traffic is the root's remote writes only: no rank reads a peer.
 */
#include "collectives/generators.h"

enum { X, Y, DATA, READY };

static const a2_coll_shape shape = {
    .algo = "broadcast_star",
    .golden = A2_GOLDEN_BROADCAST,
    .rooted = true,
    .dma = true,
    .nrecv = 2,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .fixed = 1},
             [Y] = {"y", A2_BUF_TENSOR, .fixed = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .fixed = 1},
             [READY] = {"ready", A2_BUF_SIGNAL, .fixed = 1}},
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  uint32_t P = c->P, R = c->root;
  uint64_t N = c->N, T = c->T;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at out = a2_at_local(Y, 0);
  if (me == R) {
    A2_STEPS(tb, s, 2ull * (P - 1)) { /* every put, then every notify */
      uint32_t m = (uint32_t)(s % (P - 1)), q = (R + 1 + m) % P;
      if (s < P - 1) {
        a2_tb_dma how = {(uint32_t)T, 1, 0, a2_coll_queue(c, m)}; /* a queue per peer */
        a2_tb_put(tb, DATA, q, 0, N, X, 0, &how);
      } else {
        a2_tb_notify(tb, READY, q, 0, A2_MODE_SET, 1);
      }
    }
    a2_coll_copy(&t, a2_at_local(X, 0), &out, 1, N, T);
    return;
  }
  A2_STEPS(tb, s, 1) a2_tb_wait(tb, READY, 0, A2_MODE_GE, 1);
  a2_coll_copy(&t, a2_at_local(DATA, 0), &out, 1, N, T);
}

A2_DEFINE_GENERATOR(broadcast_star, shape, body)

void a2_card_broadcast_star(const a2_coll_params *p, a2_card *c) {
  /* per rank: the root writes N to each of the P-1 others */
  c->remote_read_bytes = 0;
  c->remote_write_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
