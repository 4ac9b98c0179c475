/* All-to-all, HCCL's Pairwise: P-1 steps; in step k (1..P-1) rank r sends
 * its block for q = r+k (mod P) and receives the block of r-k (mod P), one
 * peer each way a step, so no rank's port takes several senders at once.
 * N = bytes of each block; x and y hold P blocks. Step k: put x[q*N] into
 * q's window `data` at r*N (DMA, chunked and double-buffered), notify q (set
 * 1 in cell r of q's signal [P]: the notify drains the core, so the data
 * has landed), wait for cell r-k here, and copy that block to y. The own
 * block is copied locally first. Remote writes only. */
#include "collectives/generators.h"

enum { X, Y, DATA, SIG };

static const a2_coll_shape shape = {
    .algo = "all_to_all_pairwise",
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
  uint64_t N = c->N, T = c->T, mine = (uint64_t)me * N, np = c->np, per = 3 + np;
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  a2_at own = a2_at_local(Y, mine);
  a2_coll_copy(&t, a2_at_local(X, mine), &own, 1, N, T);
  /* step k = s / per + 1: put, notify, wait, then one piece per step */
  A2_STEPS(tb, s, (uint64_t)(P - 1) * per) {
    uint64_t k = s / per + 1, j = s % per;
    uint32_t to = (uint32_t)((me + k) % P), from = (uint32_t)((me + P - k) % P);
    if (j == 0) {
      a2_tb_dma how = {(uint32_t)T, 1, 0, a2_coll_queue(c, 0)};
      a2_tb_put(tb, DATA, to, mine, N, X, (uint64_t)to * N, &how);
    } else if (j == 1) {
      a2_tb_notify(tb, SIG, to, me, A2_MODE_SET, 1);
    } else if (j == 2) {
      a2_tb_wait(tb, SIG, from, A2_MODE_GE, 1);
    } else {
      uint64_t off = (j - 3) * T;
      a2_at dst = a2_at_local(Y, (uint64_t)from * N);
      a2_coll_copy_piece(&t, j - 3, a2_at_local(DATA, (uint64_t)from * N), &dst, 1, off,
                         a2_min64(N - off, T));
    }
  }
}

A2_DEFINE_GENERATOR(all_to_all_pairwise, shape, body)

void a2_card_all_to_all_pairwise(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = 0;
  c->remote_write_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->barrier_rounds = p->nranks > 1 ? p->nranks - 1ull : 0;
}
