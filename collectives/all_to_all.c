/* Ladder step 15: all-to-all with put + set-notify. N = bytes of each
 * block; x and y hold P blocks. Rank r puts block q of x into rank q's
 * window `data` at offset r*N (a DMA copy, chunked and double-buffered),
 * then notifies q (set 1 in cell r of q's signal [P]); the notify drains the
 * core first, so the data has landed when q sees it. Then r copies its own
 * block x[r*N] to y locally, waits for all P-1 cells, and copies the window's
 * blocks to y. Traffic is remote writes only: no rank reads a peer. */
#include "collectives/generators.h"

a2_code a2_gen_all_to_all(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes));
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  a2_coll_describe(k, "all_to_all", p, 0);
  a2_dtype dt = p->dtype;
  uint64_t PN = (uint64_t)P * N;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, PN, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, PN, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, PN, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles t;
  a2_tiles_declare(&t, &tb, dt, T, 0, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLTOALL, p->op, x, y, N, 0};
  for (uint32_t me = 0; me < P; me++) {
    uint64_t mine = (uint64_t)me * N;
    a2_tb_at(&tb, me, 0);
    t.turn = 0;
    for (uint32_t i = 1; i < P; i++) { /* right neighbour first: no hot spot */
      uint32_t q = (me + i) % P;
      a2_tb_put(&tb, data, q, mine, N, x, (uint64_t)q * N, (uint32_t)T, 1);
      a2_tb_notify(&tb, sig, q, me, A2_MODE_SET, 1);
    }
    a2_at own = a2_at_local(y, mine);
    a2_coll_copy(&t, a2_at_local(x, mine), &own, 1, N, T);
    for (uint32_t i = 1; i < P; i++) a2_tb_wait(&tb, sig, (me + P - i) % P, A2_MODE_GE, 1);
    for (uint32_t i = 1; i < P; i++) {
      uint64_t q = (me + P - i) % P;
      a2_at dst = a2_at_local(y, q * N);
      a2_coll_copy(&t, a2_at_local(data, q * N), &dst, 1, N, T);
    }
  }
  return tb.rc;
}

void a2_card_all_to_all(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = 0;
  c->remote_write_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
