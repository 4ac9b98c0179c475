/* All-to-all with put + set-notify. N = bytes of each block; x and y hold
 * P blocks. Rank r puts block q of x into rank q's window `data` at offset
 * r*N (a DMA copy, chunked and double-buffered, the m-th peer's on DMA queue
 * m, modulo the queues), then notifies q (set 1 in
 * cell r of q's signal [P]); the notify drains the core first, so the data
 * has landed when q sees it. Then r copies its own block x[r*N] to y
 * locally, waits for all P-1 cells, and copies the window's blocks to y.
 * Traffic is remote writes only: no rank reads a peer. */
#include "collectives/generators.h"

enum { X, Y, DATA, SIG };

static const a2_coll_shape shape = {
    .algo = "all_to_all",
    .golden = A2_GOLDEN_ALLTOALL,
    .dma = true,
    .nrecv = 2,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .per_rank = 1},
             [Y] = {"y", A2_BUF_TENSOR, .per_rank = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .per_rank = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 1}},
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  (void)core;
  uint32_t P = c->P;
  uint64_t N = c->N, T = c->T, mine = (uint64_t)me * N, np = c->np;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  A2_STEPS(tb, s, 2ull * (P - 1)) { /* right neighbour first: no hot spot */
    uint32_t q = (uint32_t)((me + 1 + s / 2) % P);
    if (s % 2 == 0) {
      a2_tb_dma how = {(uint32_t)T, 1, 0, a2_coll_queue(c, s / 2)}; /* a queue per peer */
      a2_tb_put(tb, DATA, q, mine, N, X, (uint64_t)q * N, &how);
    } else {
      a2_tb_notify(tb, SIG, q, me, A2_MODE_SET, 1);
    }
  }
  a2_at own = a2_at_local(Y, mine);
  a2_coll_copy(&t, a2_at_local(X, mine), &own, 1, N, T);
  A2_STEPS(tb, s, P - 1) a2_tb_wait(tb, SIG, (me + P - 1 - s) % P, A2_MODE_GE, 1);
  uint64_t turn = t.turn; /* the received blocks, left neighbour first, a step per piece */
  A2_STEPS(tb, s, (uint64_t)(P - 1) * np) {
    uint64_t q = (me + P - 1 - s / np) % P * N, off = s % np * T;
    a2_at dst = a2_at_local(Y, q);
    a2_coll_copy_piece(&t, turn + s, a2_at_local(DATA, q), &dst, 1, off, a2_min64(N - off, T));
  }
}

A2_DEFINE_GENERATOR(all_to_all, shape, body)

void a2_card_all_to_all(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = 0;
  c->remote_write_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
