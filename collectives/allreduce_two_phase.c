/* Seed step 09: all-reduce, two-phase. Reduce-scatter (rank r sums chunk r
 * of every peer into its `result` window), a second barrier on its own
 * signal row, then all-gather (every rank reads chunk c from rank c,
 * itself included: that read is local). N must be a multiple of 4*P bytes. */
#include "collectives/allreduce.h"

a2_code a2_gen_allreduce_two_phase(const a2_coll_params *p, a2_kernel *k, a2_err *err) {
  uint32_t P = p->nranks;
  uint64_t N = p->size_bytes, B = N / P, C = a2_coll_chunk_bytes(p->ub_bytes);
  uint64_t T = a2_min64(B, C);  /* reduce-scatter / all-gather piece */
  uint64_t Ts = a2_min64(N, C); /* stage-in piece and tile size (>= T) */
  a2_tb tb;
  if (a2_tb_begin(&tb, k, P, 1, err)) return tb.rc;
  a2_coll_describe(k, "allreduce_two_phase", p, 0);
  a2_dtype dt = p->dtype;
  uint16_t x = a2_tb_buf(&tb, "x", A2_BUF_TENSOR, dt, N, A2_INIT_PATTERN);
  uint16_t y = a2_tb_buf(&tb, "y", A2_BUF_TENSOR, dt, N, A2_INIT_ZERO);
  uint16_t data = a2_tb_buf(&tb, "data", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t result = a2_tb_buf(&tb, "result", A2_BUF_WINDOW, dt, N, A2_INIT_ZERO);
  uint16_t sig = a2_tb_buf(&tb, "signal", A2_BUF_SIGNAL, A2_INT32, 8ull * P, A2_INIT_ZERO);
  a2_tiles t;
  a2_tiles_declare(&t, &tb, dt, Ts, 1, 2);
  k->golden = (a2_golden){A2_GOLDEN_ALLREDUCE, p->op, x, y, N, 0};
  for (uint32_t me = 0; me < P; me++) {
    a2_tb_at(&tb, me, 0);
    a2_at staged = a2_at_local(data, 0), mine = a2_at_local(result, me * B);
    t.turn = 0;
    a2_coll_copy(&t, a2_at_local(x, 0), &staged, 1, N, Ts);
    a2_coll_barrier(&tb, me, P, sig, 0); /* barrier A, signal row 0 */
    /* reduce-scatter: chunk `me` of every peer */
    t.turn = 0;
    a2_coll_reduce(&t, a2_reduce_opcode(p->op), a2_at_local(data, me * B), data, me * B, me, P,
                   0, &mine, 1, B, T);
    a2_coll_barrier(&tb, me, P, sig, 1); /* barrier B, its own row */
    /* all-gather: chunk cc from rank cc (a local read when cc == me) */
    t.turn = 0;
    for (uint32_t cc = 0; cc < P; cc++) {
      a2_at out = a2_at_local(y, cc * B);
      a2_coll_copy(&t, a2_at_peer(result, cc, cc * B), &out, 1, B, T);
    }
  }
  return tb.rc;
}

void a2_card_allreduce_two_phase(const a2_coll_params *p, a2_card *c) {
  double P = p->nranks;
  c->remote_read_bytes = 2.0 * (P - 1) / P * (double)p->size_bytes;
  c->remote_write_bytes = 0;
  c->barrier_rounds = p->nranks > 1 ? 2 : 0;
}
