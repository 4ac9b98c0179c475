/* Ladder step 14: reduce-scatter. N = bytes of each rank's OUTPUT block
 * (the --size flag); the input x holds P*N, block q destined for rank q.
 * Each rank stages the P-1 blocks other ranks need into its window `data`
 * (its own block stays in x), joins one barrier (signal [P]), then reduces
 * block r: its own block from x, plus block r of every peer's window, read
 * starting with its right neighbour so that no rank is everyone's first
 * source. The result goes to y. */
#include "collectives/generators.h"

a2_code a2_gen_reduce_scatter(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, T = a2_min64(N, a2_coll_chunk_bytes(p->ub_bytes));
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  a2_coll_describe(k, "reduce_scatter", p, 0);
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, (uint64_t)P * N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, (uint64_t)P * N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 4ull * P, A2_INIT_ZERO);
  a2_tiles t;
  a2_tiles_declare(&t, &tb, dt, T, 1, 2);
  k->golden = (a2_golden){A2_GOLDEN_REDUCE_SCATTER, p->op, x, y, N, 0};
  a2_at out = a2_at_local(y, 0);
  for (uint32_t me = 0; me < P; me++) {
    uint64_t mine = (uint64_t)me * N;
    a2_tb_at(&tb, me, 0);
    t.turn = 0;
    for (uint32_t q = 0; q < P; q++) { /* stage-in of the blocks peers read */
      if (q == me) continue;
      a2_at dst = a2_at_local(data, (uint64_t)q * N);
      a2_coll_copy(&t, a2_at_local(x, (uint64_t)q * N), &dst, 1, N, T);
    }
    a2_coll_barrier(&tb, me, P, sig, 0);
    t.turn = 0;
    a2_coll_reduce(&t, a2_reduce_opcode(p->op), a2_at_local(x, mine), data, mine, me, P,
                   (me + 1) % P, &out, 1, N, T);
  }
  return tb.rc;
}

void a2_card_reduce_scatter(const a2_coll_params *p, a2_card *c) {
  c->remote_read_bytes = (double)(p->nranks - 1) * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 1 : 0;
}
