/* All-to-all with put + set-notify. N = bytes of each block; x and y hold
 * P blocks. Rank r puts block q of x into rank q's window `data` at offset
 * r*N (a DMA copy, chunked and double-buffered, the m-th peer's on DMA queue
 * m, modulo the queues), then notifies q (set 1 in
 * cell r of q's signal [P]); the notify drains the core first, so the data
 * has landed when q sees it. Then r copies its own block x[r*N] to y
 * locally, waits for all P-1 cells, and copies the window's blocks to y.
 * Traffic is remote writes only: no rank reads a peer.
 *
 * With --cores C > 1 (HCCL's AIV all-to-all runs on several vector cores a
 * rank): every block is cut into C slices of whole elements
 * (a2_core_slice), core c putting, notifying and copying slice c of every
 * block, its notifies in its own lane of the signal [P, C] (cell r*C + c),
 * core c's m-th peer on DMA queue c*(P-1) + m modulo the queues; a core
 * without a slice has an empty program. The rank's cores together write
 * (P-1)*N. */
#include "collectives/generators.h"

enum { X, Y, DATA, SIG };

static const a2_coll_shape shape = {
    .algo = "all_to_all",
    .golden = A2_GOLDEN_ALLTOALL,
    .multi_core = true,
    .dma = true,
    .nrecv = 2,
    .bufs = {[X] = {"x", A2_BUF_TENSOR, .per_rank = 1},
             [Y] = {"y", A2_BUF_TENSOR, .per_rank = 1},
             [DATA] = {"data", A2_BUF_WINDOW, .per_rank = 1},
             [SIG] = {"signal", A2_BUF_SIGNAL, .per_rank = 1}},
};

static void body(a2_tb *tb, const void *ctx, uint32_t me, uint32_t core) {
  const a2_coll_ctx *c = ctx;
  a2_slice part = a2_core_slice(c, c->N, core);
  if (part.len == 0) return; /* no slice: an empty program */
  uint32_t P = c->P, C = c->C;
  uint64_t N = c->N, T = c->T, L = part.len, mine = (uint64_t)me * N + part.off;
  uint64_t np = a2_pieces(L, T), lane = (uint64_t)core * (P - 1);
  a2_tiles t = a2_tiles_on(tb, &c->tiles);
  A2_STEPS(tb, s, 2ull * (P - 1)) { /* right neighbour first: no hot spot */
    uint32_t q = (uint32_t)((me + 1 + s / 2) % P);
    if (s % 2 == 0) {
      a2_tb_dma how = {(uint32_t)T, 1, 0, a2_coll_queue(c, lane + s / 2)}; /* a queue per peer */
      a2_tb_put(tb, DATA, q, mine, L, X, (uint64_t)q * N + part.off, &how);
    } else {
      a2_tb_notify(tb, SIG, q, (uint64_t)me * C + core, A2_MODE_SET, 1);
    }
  }
  a2_at own = a2_at_local(Y, mine);
  a2_coll_copy(&t, a2_at_local(X, mine), &own, 1, L, T);
  A2_STEPS(tb, s, P - 1)
  a2_tb_wait(tb, SIG, (uint64_t)((me + P - 1 - s) % P) * C + core, A2_MODE_GE, 1);
  uint64_t turn = t.turn; /* the received slices, left neighbour first, a step per piece */
  A2_STEPS(tb, s, (uint64_t)(P - 1) * np) {
    uint64_t q = (me + P - 1 - s / np) % P * N + part.off, off = s % np * T;
    a2_at dst = a2_at_local(Y, q);
    a2_coll_copy_piece(&t, turn + s, a2_at_local(DATA, q), &dst, 1, off, a2_min64(L - off, T));
  }
}

A2_DEFINE_GENERATOR(all_to_all, shape, body)

void a2_card_all_to_all(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = 0;
  c->remote_write_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
