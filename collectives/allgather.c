/* Ladder step 13: all-gather. N = bytes of each rank's input; the output
 * y holds P*N (block q = rank q's input). Each rank stages its slice into
 * its window `data` (and its own block of y), joins one barrier (seed 08
 * style, signal [P]), then reads every peer's slice into y[q*N], starting
 * with its right neighbour so that the P-1 reads of the ranks spread over
 * all sources. */
#include "collectives/generators.h"

void a2_phase_gather(a2_tiles *t, uint32_t me, uint32_t P, uint16_t win, uint16_t out,
                     uint64_t N, uint64_t piece) {
  for (uint32_t i = 1; i < P; i++) {
    uint32_t q = (me + i) % P;
    a2_at dst = a2_at_local(out, (uint64_t)q * N);
    a2_coll_copy(t, a2_at_peer(win, q, 0), &dst, 1, N, piece);
  }
}

a2_code a2_gen_allgather(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes));
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  a2_coll_describe(k, "allgather", p, 0);
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, (uint64_t)P * N, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles t;
  a2_tiles_declare(&t, &tb, dt, T, 0, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLGATHER, p->op, x, y, N, 0};
  for (uint32_t me = 0; me < P; me++) {
    a2_tb_at(&tb, me, 0);
    t.turn = 0;
    a2_at staged[2] = {a2_at_local(data, 0), a2_at_local(y, (uint64_t)me * N)};
    a2_coll_copy(&t, a2_at_local(x, 0), staged, 2, N, T);
    a2_coll_barrier(&tb, me, P, sig, 0);
    a2_phase_gather(&t, me, P, data, y, N, T);
  }
  return tb.rc;
}

void a2_card_allgather(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
